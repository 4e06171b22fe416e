// Codex's PreToolUse hook (codex-cli 0.169, 0.171, checked with the real CLIs): it runs for every tool
// call (but `write_stdin`, closed by launching Codex without TTY sessions, codex-spec.ts) with the tool's
// name and input. Commands (`Bash`, from exec_command) are read with their other arguments from the
// transcript (codex-exec.ts), and an `apply_patch <<'EOF'` command Codex applies itself is the patch's
// write (apply-patch.ts); the `apply_patch` tool goes to the file gate, read with Codex's grammar; `mcp__*` tools are MCP calls covered
// by `mcp:SERVER/TOOL` entries (Gatehouse's own Skill tool is allowed); every other tool is read by the
// tool table (codex-tools.ts), and one it does not know needs a person. Codex cannot ask from a hook: the
// hook waits for the person itself. It blocks with exit 2 and the reason on stderr (the model sees it);
// an exit 1, bad output or a timeout would let the call run, so every failure here is turned into a block.
import { z } from "zod/mini";
import { mcpTargetOfName } from "../../shared/mcp-names.js";
import { CODEX_SKILL_NAMESPACE, SKILL_TOOL } from "../../shared/skill-tool-names.js";
import { patchFileCall, shellPatchCall } from "./apply-patch.js";
import { execCommandCall, loginShellOfUser } from "./codex-exec.js";
import { CODEX_TOOLS } from "./codex-tools.js";
import { waitForCall } from "./codex-transcript.js";
import type { ToolCall } from "./tool-call.js";
import {
  builtOnFirstUse,
  classifyToolCall,
  inputText,
  issueText,
  person,
  type ToolContext,
} from "./tool-spec.js";

/** Codex's PreToolUse input: its own envelope (kept loose), the tool's input read by the tool table. */
export const codexPreToolUseSchema = builtOnFirstUse(() =>
  z.looseObject({
    session_id: z.optional(z.string()),
    cwd: z.optional(z.string()),
    transcript_path: z.optional(z.string()),
    tool_use_id: z.optional(z.string()),
    tool_name: z.string(),
    tool_input: z.optional(z.unknown()),
  }),
);
export type CodexPreToolUse = z.infer<ReturnType<typeof codexPreToolUseSchema>>;

/** Gatehouse's Skill tool as Codex's hook names it (its namespace + the tool). */
const CODEX_SKILL_TOOL_NAME = `${CODEX_SKILL_NAMESPACE}__${SKILL_TOOL}`;

/** The command text of an exec_command hook input: nothing else is ever there. */
const bashInputSchema = builtOnFirstUse(() => z.strictObject({ command: z.string().check(z.minLength(1)) }));

/** Codex names namespaced tools with their namespace glued on (`multi_agent_v1wait_agent`). */
function baseToolName(name: string): string {
  return name.replace(/^multi_agent_v\d+(?:[._]|__)?/, "");
}

async function commandCall(input: CodexPreToolUse, ctx: ToolContext): Promise<ToolCall> {
  const hookInput = bashInputSchema().safeParse(input.tool_input);
  if (!hookInput.success) {
    const why = issueText(hookInput.error.issues as unknown as Parameters<typeof issueText>[0]);
    return person(
      "Bash",
      "runs a shell command",
      `${why}, so Gatehouse cannot tell what it runs`,
      input.tool_input,
    );
  }
  if (!input.transcript_path || !input.tool_use_id) {
    return { kind: "refuse", reason: "Gatehouse cannot check this command: Codex named no transcript." };
  }
  const found = await waitForCall(input.transcript_path, input.tool_use_id);
  if (found === "missing") {
    return {
      kind: "refuse",
      reason:
        "Gatehouse cannot check this command: it is not in Codex's transcript, so its shell and folder are unknown.",
    };
  }
  if (found === "ambiguous") {
    return person(
      "Bash",
      "runs a shell command",
      "Codex's transcript holds different calls under this call's id, so Gatehouse cannot tell which one runs",
      input.tool_input,
    );
  }
  if (found.name !== "exec_command") {
    return person(
      found.name,
      "runs a shell command",
      `Codex ran it through its "${found.name}" tool, whose arguments Gatehouse does not read`,
      found.arguments,
    );
  }
  const call = await execCommandCall(found.arguments, {
    command: hookInput.data.command,
    hookCwd: ctx.cwd,
    turnCwd: ctx.workdir ?? process.cwd(),
    // Codex runs in the task's folder (codex-spec.ts); its PATH is the hook's (the hook inherits it).
    shells: {
      processCwd: ctx.workdir ?? process.cwd(),
      pathEnv: process.env.PATH,
      loginShell: loginShellOfUser(),
    },
  });
  if (call.kind !== "command") return call;
  // Codex intercepts `apply_patch <<'EOF' …` and writes the patch itself: the shell never runs it.
  return (await shellPatchCall(call.command, undefined, call.cwd)) ?? call;
}

/** The apply_patch tool: Codex 0.169–0.171 send the freeform tool's patch text as `command`, and nothing else. */
function applyPatchCall(toolInput: unknown, ctx: ToolContext): Promise<ToolCall> | ToolCall {
  const fields = (toolInput ?? {}) as Record<string, unknown>;
  const patch = fields.command;
  if (typeof patch !== "string" || Object.keys(fields).some((key) => key !== "command")) {
    return person(
      "apply_patch",
      "writes files by a patch",
      `Gatehouse does not know this form of Codex's apply_patch call (fields: ${Object.keys(fields).join(", ") || "none"})`,
      toolInput,
    );
  }
  return patchFileCall(patch, ctx.cwd);
}

function mcpCall(name: string, input: unknown): ToolCall {
  if (name === CODEX_SKILL_TOOL_NAME) {
    return { kind: "allow", reason: "Gatehouse allows its Skill tool (it only reads skill instructions)." };
  }
  const target = mcpTargetOfName(name);
  if (!target) {
    return person(
      name,
      "calls a tool of an MCP server",
      "its name does not show a server and tool an allowlist entry can name",
      input,
    );
  }
  return { kind: "mcp", name, server: target.server, tool: target.tool, input: inputText(input ?? {}) };
}

export async function codexToolCall(input: CodexPreToolUse, ctx: ToolContext): Promise<ToolCall> {
  const name = baseToolName(input.tool_name);
  if (name === "Bash") return commandCall(input, ctx);
  if (name === "apply_patch") return applyPatchCall(input.tool_input, ctx);
  if (name.startsWith("mcp__")) return mcpCall(name, input.tool_input);
  return classifyToolCall(CODEX_TOOLS, name, input.tool_input ?? {}, ctx, "Codex");
}
