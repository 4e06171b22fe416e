// The Claude Code tools Gatehouse understands (2.1.197 and 2.1.332: names from the bundle's tool list
// and the init message of real runs, inputs from sdk-tools.d.ts and the schemas sent to the model), each
// with a strict schema of its input and what a call is: a command, a file read or write (and which
// fields are paths), harmless, a call only a person can judge, or refused because it runs programs
// outside the gate. Claude Code gives the hook a tool's canonical name (`Task` arrives as `Agent`,
// `KillShell` as `TaskStop`). Anything not here, or an input its schema refuses, needs a person
// (tool-spec.ts); `mcp__*` tools are MCP calls (claude.ts).
import path from "node:path";
import { z } from "zod/mini";
import type { ToolCall } from "./tool-call.js";
import {
  harmless,
  harmlessTool,
  person,
  personTool,
  tool,
  type ToolContext,
  type ToolTable,
} from "./tool-spec.js";

const Text = z.string();
/** A path or command: an empty one is not something Gatehouse can judge. */
const Given = z.string().check(z.minLength(1));
const Count = z.number();
const Flag = z.boolean();
const opt = z.optional;
const Effort = z.enum(["low", "medium", "high", "xhigh", "max"]);
const Anything = z.looseObject({});

const GLOB_CHAR = /[*?[\]{}]/;

/** The fixed folder in front of a glob pattern's first wildcard, when the pattern leaves the search folder. */
function globBase(pattern: string): string | null {
  const parts = pattern.split("/");
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (GLOB_CHAR.test(part)) break;
    fixed.push(part);
  }
  const leaves = pattern.startsWith("/") || pattern.startsWith("~") || parts.includes("..");
  if (!leaves) return null;
  const base = fixed.join("/");
  return base === "" ? "/" : base;
}

/** Relative paths are Claude Code's to resolve against its session cwd (the hook input's `cwd`). */
function files(tool: string, access: "read" | "write", paths: string[], ctx: ToolContext): ToolCall {
  return { kind: "file", tool, access, paths, runtime: "claude", base: ctx.cwd };
}

/** Read tools that search a folder (the session's by default) and, for a pattern that leaves it, its base. */
function search(
  tool: string,
  folder: string | undefined,
  pattern: string | null,
  ctx: ToolContext,
): ToolCall {
  const target = folder ?? ctx.cwd;
  const paths = [target];
  const base = pattern ? globBase(pattern) : null;
  if (base) paths.push(path.isAbsolute(base) || base.startsWith("~") ? base : path.join(target, base));
  return files(tool, "read", paths, ctx);
}

/** A row whose every call is refused: it runs programs that never pass the gate. */
function refusedTool(name: string, what: string) {
  return tool(
    what,
    () => Anything,
    () => ({
      kind: "refuse",
      reason: `Gatehouse blocks ${name}: it ${what}, outside the gate. Use Bash for what you need.`,
    }),
  );
}

const TodoItem = () =>
  z.strictObject({
    content: Text,
    status: z.enum(["pending", "in_progress", "completed"]),
    activeForm: Text,
    id: opt(Text),
  });

const QuestionOption = () => z.strictObject({ label: Text, description: Text, preview: opt(Text) });
const Question = () =>
  z.strictObject({
    question: Text,
    header: Text,
    options: z.array(QuestionOption()),
    multiSelect: Flag,
  });

const Finding = () =>
  z.strictObject({
    file: Text,
    line: opt(Count),
    summary: Text,
    short_summary: opt(Text),
    failure_scenario: Text,
    category: opt(Text),
    severity: opt(z.enum(["important", "pre_existing", "nit"])),
    verdict: opt(z.enum(["CONFIRMED", "PLAUSIBLE"])),
    outcome: opt(z.enum(["fixed", "skipped", "no_change_needed"])),
  });

const AGENT_WHAT = "starts a sub-agent, whose own tool calls come through this hook";

export const CLAUDE_TOOLS: ToolTable = {
  Bash: tool(
    "runs a shell command",
    () =>
      z.strictObject({
        command: Given,
        timeout: opt(Count),
        description: opt(Text),
        run_in_background: opt(Flag),
        dangerouslyDisableSandbox: opt(Flag),
      }),
    (input, ctx) => ({ kind: "command", command: input.command, cwd: ctx.cwd }),
  ),
  Monitor: tool(
    "runs a command in the background and reports its output",
    () =>
      z.strictObject({
        description: Text,
        timeout_ms: Count,
        persistent: opt(Flag),
        command: opt(Given),
        ws: opt(z.strictObject({ url: Text, protocols: opt(z.array(Text)) })),
      }),
    (input, ctx) =>
      input.command !== undefined && input.ws === undefined
        ? { kind: "command", command: input.command, cwd: ctx.cwd }
        : person(
            "Monitor",
            "watches a WebSocket from this machine",
            "it connects to a network address rather than running a command Gatehouse can check",
            input,
          ),
  ),

  Write: tool(
    "writes a file",
    () => z.strictObject({ file_path: Given, content: Text }),
    (input, ctx) => files("Write", "write", [input.file_path], ctx),
  ),
  Edit: tool(
    "edits a file",
    () => z.strictObject({ file_path: Given, old_string: Text, new_string: Text, replace_all: opt(Flag) }),
    (input, ctx) => files("Edit", "write", [input.file_path], ctx),
  ),
  MultiEdit: tool(
    "edits a file",
    () =>
      z.strictObject({
        file_path: Given,
        edits: z.array(z.strictObject({ old_string: Text, new_string: Text, replace_all: opt(Flag) })),
      }),
    (input, ctx) => files("MultiEdit", "write", [input.file_path], ctx),
  ),
  NotebookEdit: tool(
    "edits a Jupyter notebook",
    () =>
      z.strictObject({
        notebook_path: Given,
        cell_id: opt(Text),
        new_source: Text,
        cell_type: opt(z.enum(["code", "markdown"])),
        edit_mode: opt(z.enum(["replace", "insert", "delete"])),
      }),
    (input, ctx) => files("NotebookEdit", "write", [input.notebook_path], ctx),
  ),
  Read: tool(
    "reads a file",
    () =>
      z.strictObject({
        file_path: Given,
        offset: opt(Count),
        limit: opt(Count),
        pages: opt(Text),
        allow_large: opt(Flag),
      }),
    (input, ctx) => files("Read", "read", [input.file_path], ctx),
  ),
  NotebookRead: tool(
    "reads a Jupyter notebook",
    () => z.strictObject({ notebook_path: Given, cell_id: opt(Text) }),
    (input, ctx) => files("NotebookRead", "read", [input.notebook_path], ctx),
  ),
  LS: tool(
    "lists a folder",
    () => z.strictObject({ path: Given, ignore: opt(z.array(Text)) }),
    (input, ctx) => files("LS", "read", [input.path], ctx),
  ),
  Glob: tool(
    "finds files by name",
    () => z.strictObject({ pattern: Given, path: opt(Given) }),
    (input, ctx) => search("Glob", input.path, input.pattern, ctx),
  ),
  Grep: tool(
    "searches file contents",
    () =>
      z.strictObject({
        pattern: Text,
        path: opt(Given),
        glob: opt(Text),
        output_mode: opt(z.enum(["content", "files_with_matches", "count"])),
        "-B": opt(Count),
        "-A": opt(Count),
        "-C": opt(Count),
        context: opt(Count),
        "-n": opt(Flag),
        "-i": opt(Flag),
        "-o": opt(Flag),
        type: opt(Text),
        head_limit: opt(Count),
        offset: opt(Count),
        multiline: opt(Flag),
      }),
    (input, ctx) => search("Grep", input.path, null, ctx),
  ),

  Agent: tool(
    AGENT_WHAT,
    () =>
      z.strictObject({
        description: Text,
        prompt: Text,
        subagent_type: opt(Text),
        model: opt(z.enum(["sonnet", "opus", "haiku", "fable"])),
        effort: opt(Effort),
        run_in_background: opt(Flag),
        name: opt(Text),
        team_name: opt(Text),
        mode: opt(z.enum(["acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"])),
        isolation: opt(z.enum(["worktree", "remote"])),
      }),
    (input): ToolCall => {
      if (input.isolation === "worktree") {
        return {
          kind: "refuse",
          reason:
            "Gatehouse blocks a sub-agent in its own git worktree: creating it runs the repository's hooks outside the gate. Start it without isolation.",
        };
      }
      if (input.isolation === "remote")
        return person(
          "Agent",
          "starts a sub-agent in a remote cloud session",
          "its work leaves this machine's gate",
          input,
        );
      if (input.mode === "bypassPermissions" || input.mode === "dontAsk" || input.mode === "auto")
        return person("Agent", AGENT_WHAT, `it asks for the permission mode "${input.mode}"`, input);
      return harmless("Agent", AGENT_WHAT);
    },
  ),
  TaskStop: harmlessTool("TaskStop", "stops a background task of this session", () =>
    z.strictObject({ task_id: opt(Text), shell_id: opt(Text) }),
  ),
  TaskOutput: harmlessTool("TaskOutput", "reads the output of a background task of this session", () =>
    z.strictObject({ task_id: Text, block: opt(Flag), timeout: opt(Count) }),
  ),
  TodoWrite: harmlessTool("TodoWrite", "updates the session's to-do list", () =>
    z.strictObject({ todos: z.array(TodoItem()) }),
  ),
  TaskCreate: harmlessTool("TaskCreate", "adds to the session's task list", () =>
    z.strictObject({ subject: Text, description: Text, activeForm: opt(Text), metadata: opt(Anything) }),
  ),
  TaskGet: harmlessTool("TaskGet", "reads the session's task list", () => z.strictObject({ taskId: Text })),
  TaskList: harmlessTool("TaskList", "reads the session's task list", () => z.strictObject({})),
  TaskUpdate: harmlessTool("TaskUpdate", "updates the session's task list", () =>
    z.strictObject({
      taskId: Text,
      subject: opt(Text),
      description: opt(Text),
      activeForm: opt(Text),
      status: opt(z.enum(["pending", "in_progress", "completed", "deleted"])),
      addBlocks: opt(z.array(Text)),
      addBlockedBy: opt(z.array(Text)),
      owner: opt(Text),
      metadata: opt(Anything),
    }),
  ),
  AskUserQuestion: harmlessTool("AskUserQuestion", "asks the user a question", () =>
    z.strictObject({ questions: z.array(Question()) }),
  ),
  EnterPlanMode: harmlessTool("EnterPlanMode", "switches the session to planning", () => z.strictObject({})),
  ExitPlanMode: harmlessTool("ExitPlanMode", "ends planning and shows the plan", () =>
    z.strictObject({
      plan: opt(Text),
      planFilePath: opt(Text),
      allowedPrompts: opt(z.array(z.strictObject({ tool: z.literal("Bash"), prompt: Text }))),
    }),
  ),
  ToolSearch: harmlessTool("ToolSearch", "looks up the descriptions of more tools", () =>
    z.strictObject({ query: Text, max_results: opt(Count) }),
  ),
  ListAgents: harmlessTool("ListAgents", "lists the session's agents", () =>
    z.strictObject({ channel: opt(Text), q: opt(Text), cursor: opt(Text) }),
  ),
  ReportFindings: harmlessTool("ReportFindings", "reports review findings", () =>
    z.strictObject({ level: opt(Effort), findings: z.array(Finding()) }),
  ),
  ScheduleWakeup: harmlessTool("ScheduleWakeup", "asks to be woken later in this session", () =>
    z.strictObject({
      delaySeconds: opt(Count),
      reason: opt(Text),
      prompt: opt(Text),
      stop: opt(Flag),
      noop: opt(Flag),
    }),
  ),
  WebSearch: harmlessTool(
    "WebSearch",
    "searches the web through the model provider (nothing is fetched from this machine)",
    () =>
      z.strictObject({
        query: Text,
        allowed_domains: opt(z.array(Text)),
        blocked_domains: opt(z.array(Text)),
      }),
  ),
  CronList: harmlessTool("CronList", "lists the session's scheduled prompts", () => z.strictObject({})),
  CronDelete: harmlessTool("CronDelete", "removes a scheduled prompt of the session", () =>
    z.strictObject({ id: Text }),
  ),
  PushNotification: harmlessTool("PushNotification", "sends the user a notification", () =>
    z.strictObject({ message: Text, status: opt(z.literal("proactive")) }),
  ),
  ReadNotifications: harmlessTool("ReadNotifications", "reads the session's notifications", () =>
    z.strictObject({}),
  ),
  RefreshMcpTools: harmlessTool(
    "RefreshMcpTools",
    "reloads the tool lists of the session's MCP servers",
    () => z.strictObject({ server: opt(Text) }),
  ),

  WebFetch: tool(
    "fetches a web page from this machine",
    () => z.strictObject({ url: Given, prompt: Text, offset: opt(Count) }),
    (input) =>
      person(
        "WebFetch",
        `fetches ${input.url} from this machine`,
        "it reaches the network from this machine (a local service or an address in the URL), which only a person can judge",
        input,
      ),
  ),
  Skill: personTool(
    "Skill",
    "loads one of Claude Code's own skills",
    "a Claude Code skill can run shell commands of its own when it loads, which never pass the gate (Gatehouse's skills come through its Skill tool)",
  ),
  CronCreate: personTool(
    "CronCreate",
    "schedules a prompt to run later",
    "a scheduled prompt makes the agent act later, possibly after this task",
  ),
  SendMessage: personTool(
    "SendMessage",
    "sends a message to another agent",
    "the message may reach an agent outside this task",
  ),
  RemoteTrigger: personTool(
    "RemoteTrigger",
    "manages remote agent triggers",
    "it starts work outside this machine's gate",
  ),
  Projects: personTool(
    "Projects",
    "reads or writes claude.ai project files",
    "it moves files between this machine and a project",
  ),
  ClaudeDesign: personTool(
    "ClaudeDesign",
    "uses Claude Design",
    "what it sends and changes cannot be read from its input",
  ),
  Artifact: personTool("Artifact", "publishes or reads artifacts", "it can upload local files"),
  SendUserFile: personTool(
    "SendUserFile",
    "sends a file to the user",
    "it reads a local file and sends it away",
  ),
  ListMcpResourcesTool: personTool(
    "ListMcpResourcesTool",
    "lists the resources of MCP servers",
    "MCP resources can be any data a server holds; no allowlist entry covers them",
  ),
  ReadMcpResourceTool: personTool(
    "ReadMcpResourceTool",
    "reads a resource of an MCP server",
    "MCP resources can be any data a server holds; no allowlist entry covers them",
  ),
  ReadMcpResourceDirTool: personTool(
    "ReadMcpResourceDirTool",
    "lists a resource folder of an MCP server",
    "MCP resources can be any data a server holds; no allowlist entry covers them",
  ),
  PowerShell: personTool(
    "PowerShell",
    "runs a PowerShell command",
    "Gatehouse reads commands as bash; a PowerShell command can only be judged by a person",
  ),
  propose_skills: personTool("propose_skills", "proposes new or changed skills", "it may change skill files"),
  OfferChromeSetup: personTool(
    "OfferChromeSetup",
    "sets up the Chrome integration",
    "it changes this machine's browser setup",
  ),

  EnterWorktree: refusedTool(
    "EnterWorktree",
    "runs `git worktree add` and with it the repository's checkout hooks",
  ),
  ExitWorktree: refusedTool("ExitWorktree", "runs git to keep or remove a worktree"),
  Workflow: refusedTool("Workflow", "runs a workflow script"),
  REPL: refusedTool("REPL", "runs JavaScript code"),
  LSP: refusedTool("LSP", "starts language servers"),
};
