// Codex's PreToolUse hook (codex-cli 0.169, checked with the real CLI): it runs for every tool call
// but `write_stdin` (closed by launching Codex without TTY sessions, codex-spec.ts), with the tool's
// name and arguments. Commands (`Bash`, from exec_command) go to the command gate after checking the
// call's shell, except the `apply_patch <<'EOF'` commands Codex applies itself as patches (cli/hook/
// apply-patch.ts); `apply_patch` and `view_image` go to the file gate; tools that do nothing on this
// machine pass; anything else is refused, so a tool added by a later Codex is never let through
// unseen. Codex cannot ask from a hook: the hook waits for the person itself. It blocks with exit 2
// and the reason on stderr (the model sees it); an exit 1, bad output or a timeout would let the
// call run, so every failure here is turned into a block.
import path from "node:path";
import { z } from "zod/mini";
import { patchFileCall, shellPatchCall } from "./apply-patch.js";
import { waitForCallArguments } from "./codex-transcript.js";
import type { ToolCall } from "./tool-call.js";

export const CodexPreToolUseSchema = z.looseObject({
  session_id: z.optional(z.string()),
  cwd: z.optional(z.string()),
  transcript_path: z.optional(z.string()),
  tool_use_id: z.optional(z.string()),
  tool_name: z.string(),
  tool_input: z.optional(z.looseObject({})),
});
export type CodexPreToolUse = z.infer<typeof CodexPreToolUseSchema>;

/** Codex tools that run nothing and touch no file here (plans, goals, questions, sub-agents whose own
 * tool calls come through this hook, hosted search). */
const HARMLESS = new Set([
  "update_plan",
  "get_goal",
  "create_goal",
  "update_goal",
  "request_user_input",
  "tool_search",
  "web_search",
  "spawn_agent",
  "send_input",
  "resume_agent",
  "wait_agent",
  "close_agent",
  "list_agents",
]);

/** Codex names namespaced tools with their namespace glued on (`multi_agent_v1wait_agent`). */
function baseToolName(name: string): string {
  return name.replace(/^multi_agent_v\d+(?:[._]|__)?/, "");
}

/** The shell Codex would run a command with, by the name it maps the `shell` argument to. */
function shellName(shell: string): string {
  return path
    .basename(shell)
    .replace(/\.exe$/i, "")
    .toLowerCase();
}

async function commandCall(input: CodexPreToolUse, command: string, cwd: string): Promise<ToolCall> {
  if (!input.transcript_path || !input.tool_use_id) {
    return { kind: "refuse", reason: "Gatehouse cannot check this command: Codex named no transcript." };
  }
  const args = await waitForCallArguments(input.transcript_path, input.tool_use_id);
  if (!args) {
    return {
      kind: "refuse",
      reason:
        "Gatehouse cannot check this command: it is not in Codex's transcript, so its shell is unknown.",
    };
  }
  if (args.shell !== undefined && args.shell !== null) {
    const shell = typeof args.shell === "string" ? shellName(args.shell) : "";
    if (shell !== "bash") {
      return {
        kind: "refuse",
        reason: `Gatehouse checks commands as bash scripts; run it without the "shell" argument (asked for ${JSON.stringify(args.shell)}).`,
      };
    }
  }
  // Codex intercepts `apply_patch <<'EOF' …` and writes the patch itself: the shell never runs it.
  return (await shellPatchCall(command, args.workdir, cwd)) ?? { kind: "command", command, cwd };
}

export async function codexToolCall(input: CodexPreToolUse, cwd: string): Promise<ToolCall> {
  const toolInput = input.tool_input ?? {};
  const text = (field: string) => {
    const value = toolInput[field];
    return typeof value === "string" && value.trim() !== "" ? value : null;
  };
  const name = baseToolName(input.tool_name);
  if (name === "Bash") {
    const command = text("command");
    if (!command) return { kind: "refuse", reason: "Gatehouse denies a command that is empty." };
    return commandCall(input, command, cwd);
  }
  if (name === "apply_patch") {
    // Codex 0.169–0.171 send the freeform tool's patch text as `command`, and nothing else.
    const patch = toolInput.command;
    if (typeof patch !== "string" || Object.keys(toolInput).some((key) => key !== "command")) {
      // person: needs the "person" kind
      return {
        kind: "refuse",
        reason: `Gatehouse does not know this form of Codex's apply_patch call (fields: ${Object.keys(toolInput).join(", ") || "none"}), so it blocks it.`,
      };
    }
    return patchFileCall(patch, cwd);
  }
  if (name === "view_image") {
    const file = text("path");
    if (!file) return { kind: "refuse", reason: "Gatehouse denies a view_image call that names no file." };
    return { kind: "file", tool: "view_image", access: "read", paths: [file], runtime: "codex", base: cwd };
  }
  if (name.startsWith("mcp__") || HARMLESS.has(name)) return { kind: "pass" };
  return {
    kind: "refuse",
    reason: `Gatehouse does not know Codex's tool "${input.tool_name}", so it blocks it.`,
  };
}
