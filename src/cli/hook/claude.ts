// Claude Code's PreToolUse hook (agent-cli-notes.md "Hooks"): its input as a ToolCall and a verdict as its
// hook output. The hook is registered for every tool (agent-hook.ts) and answers every call: a call left
// unanswered would fall to Claude Code's own permissions. What each tool is comes from the tool table
// (claude-tools.ts); `mcp__*` tools are MCP calls, covered by `mcp:SERVER/TOOL` entries, except
// Gatehouse's own Skill tool, which only reads skill instructions.
import { z } from "zod/mini";
import { parseJsonText } from "../../core/store/json-file.js";
import { mcpTargetOfName } from "../../shared/mcp-names.js";
import { SKILL_TOOL_NAME } from "../../shared/skill-tool-names.js";
import { CLAUDE_TOOLS } from "./claude-tools.js";
import type { ToolCall } from "./tool-call.js";
import { builtOnFirstUse, classifyToolCall, inputText, person, type ToolContext } from "./tool-spec.js";

/**
 * Claude Code's PreToolUse input. The envelope is Claude Code's own (session, folder, event; 2.1.332 adds
 * `prompt_id`, `effort`, …: kept loose); `tool_input` is what the model asked for, read by the tool table.
 */
export const claudePreToolUseSchema = builtOnFirstUse(() =>
  z.looseObject({
    session_id: z.optional(z.string()),
    cwd: z.optional(z.string()),
    hook_event_name: z.optional(z.string()),
    tool_name: z.string(),
    tool_input: z.optional(z.unknown()),
  }),
);
export type ClaudePreToolUse = z.infer<ReturnType<typeof claudePreToolUseSchema>>;

const MCP_WHAT = "calls a tool of an MCP server";

function mcpCall(name: string, input: unknown): ToolCall {
  const target = mcpTargetOfName(name);
  if (!target) {
    return person(
      name,
      MCP_WHAT,
      "its name does not show a server and tool an allowlist entry can name",
      input,
    );
  }
  return { kind: "mcp", name, server: target.server, tool: target.tool, input: inputText(input ?? {}) };
}

export async function claudeToolCall(input: ClaudePreToolUse, ctx: ToolContext): Promise<ToolCall> {
  const name = input.tool_name;
  // Exactly Gatehouse's own Skill tool (its server name is reserved in every task's MCP config): it
  // reads skill files of the task's snapshot and runs nothing.
  if (name === SKILL_TOOL_NAME) {
    return { kind: "allow", reason: "Gatehouse allows its Skill tool (it only reads skill instructions)." };
  }
  if (name.startsWith("mcp__")) return mcpCall(name, input.tool_input);
  return classifyToolCall(CLAUDE_TOOLS, name, input.tool_input ?? {}, ctx, "Claude Code");
}

/**
 * Claude Code's hook input (the command hook's stdin, the HTTP hook's body) as a tool call, with the
 * session and folder it names; null when unreadable. `fallbackCwd`: the folder when the input names none.
 */
export async function readClaudeToolCall(
  text: string,
  workdir: string | undefined,
  fallbackCwd: string,
): Promise<{ call: ToolCall; sessionId: string | undefined; cwd: string } | null> {
  const parsed = parseJsonText(text, claudePreToolUseSchema());
  if (parsed.status !== "ok") return null;
  const input = parsed.value;
  const cwd = input.cwd && input.cwd.startsWith("/") ? input.cwd : fallbackCwd;
  const ctx = { cwd, ...(workdir !== undefined ? { workdir } : {}) };
  return { call: await claudeToolCall(input, ctx), sessionId: input.session_id, cwd };
}

export { claudeHookOutput } from "../../shared/claude-hook-output.js";
