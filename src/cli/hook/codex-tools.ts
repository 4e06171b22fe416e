// The Codex tools Gatehouse understands (0.169 and 0.171: the tool list each sends to the model and the
// names its PreToolUse hook gives, checked with the real CLIs; handlers in codex-rs core/src/tools), each
// with a strict schema of its hook input and what a call is. `Bash` (exec_command: codex-exec.ts),
// `apply_patch` and `mcp__*` are read in codex.ts. Anything not here, or an input its schema refuses,
// needs a person (tool-spec.ts). `write_stdin` never reaches a hook: Gatehouse launches Codex without
// TTY sessions, so there is no running program to type into (codex-spec.ts).
import { z } from "zod/mini";
import type { ToolCall } from "./tool-call.js";
import { harmless, harmlessTool, person, personTool, tool, type ToolTable } from "./tool-spec.js";

const Text = z.string();
const Count = z.number();
const Flag = z.boolean();
const opt = z.optional;

/** An input item for a sub-agent: plain text is a message; an image, audio, skill or mention names more. */
const AgentItem = () =>
  z.strictObject({
    type: opt(Text),
    text: opt(Text),
    image_url: opt(Text),
    audio_url: opt(Text),
    name: opt(Text),
    path: opt(Text),
  });
type AgentItem = z.infer<ReturnType<typeof AgentItem>>;

const AGENT_WHAT = "starts or talks to a sub-agent, whose own tool calls come through this hook";

/** Sub-agent messages are harmless; items that name files, connectors or plugins need a person. */
function agentCall(name: string, input: { items?: AgentItem[] | undefined }): ToolCall {
  const named = (input.items ?? []).find((item) => item.type !== "text" || item.path !== undefined);
  if (named) {
    return person(
      name,
      AGENT_WHAT,
      `it hands the sub-agent a ${named.type ?? "item"} (${named.path ?? named.image_url ?? named.audio_url ?? named.name ?? "?"}) Gatehouse does not check`,
      input,
    );
  }
  return harmless(name, AGENT_WHAT);
}

const PlanStep = () =>
  z.strictObject({ step: Text, status: z.enum(["pending", "in_progress", "completed"]) });
const QuestionOption = () => z.strictObject({ label: Text, description: Text });
const Question = () =>
  z.strictObject({
    id: Text,
    header: Text,
    question: Text,
    options: opt(z.array(QuestionOption())),
  });

const RESOURCES_WHY = "MCP resources can be any data a server holds; no allowlist entry covers them";

export const CODEX_TOOLS: ToolTable = {
  view_image: tool(
    "shows the model an image file",
    () => z.strictObject({ path: z.string().check(z.minLength(1)) }),
    (input, ctx) => ({
      kind: "file",
      tool: "view_image",
      access: "read",
      paths: [input.path],
      runtime: "codex",
      ...(ctx.workdir !== undefined && ctx.workdir !== ctx.cwd ? { base: ctx.cwd } : {}),
    }),
  ),
  update_plan: harmlessTool("update_plan", "updates the session's plan", () =>
    z.strictObject({ explanation: opt(Text), plan: z.array(PlanStep()) }),
  ),
  request_user_input: harmlessTool("request_user_input", "asks the user a question", () =>
    z.strictObject({ questions: z.array(Question()) }),
  ),
  get_goal: harmlessTool("get_goal", "reads the session's goal", () => z.strictObject({})),
  create_goal: harmlessTool("create_goal", "sets the session's goal", () =>
    z.strictObject({ objective: Text, token_budget: opt(Count) }),
  ),
  update_goal: harmlessTool("update_goal", "updates the session's goal", () =>
    z.strictObject({ status: z.enum(["complete", "blocked", "paused"]) }),
  ),
  tool_search: harmlessTool("tool_search", "looks up the descriptions of more tools", () =>
    z.strictObject({ query: Text, limit: opt(Count) }),
  ),
  spawn_agent: tool(
    AGENT_WHAT,
    () =>
      z.strictObject({
        message: opt(Text),
        items: opt(z.array(AgentItem())),
        fork_context: opt(Flag),
        model: opt(Text),
        reasoning_effort: opt(Text),
        agent_type: opt(Text),
      }),
    (input) => agentCall("spawn_agent", input),
  ),
  send_input: tool(
    AGENT_WHAT,
    () =>
      z.strictObject({
        target: Text,
        message: opt(Text),
        items: opt(z.array(AgentItem())),
        interrupt: opt(Flag),
      }),
    (input) => agentCall("send_input", input),
  ),
  resume_agent: harmlessTool("resume_agent", "resumes a sub-agent", () => z.strictObject({ id: Text })),
  wait_agent: harmlessTool("wait_agent", "waits for sub-agents", () =>
    z.strictObject({ targets: z.array(Text), timeout_ms: opt(Count) }),
  ),
  close_agent: harmlessTool("close_agent", "closes a sub-agent", () => z.strictObject({ target: Text })),
  list_agents: harmlessTool("list_agents", "lists the session's sub-agents", () => z.strictObject({})),

  list_mcp_resources: personTool("list_mcp_resources", "lists the resources of MCP servers", RESOURCES_WHY),
  list_mcp_resource_templates: personTool(
    "list_mcp_resource_templates",
    "lists the resource templates of MCP servers",
    RESOURCES_WHY,
  ),
  read_mcp_resource: personTool("read_mcp_resource", "reads a resource of an MCP server", RESOURCES_WHY),
};
