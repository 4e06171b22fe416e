// Claude Code's PreToolUse hook (agent-cli-notes.md "Hooks"): its input as a ToolCall and a verdict as its
// hook output. The hook is registered for every tool (agent-hook.ts) and answers every call: a call left
// unanswered would fall to Claude Code's own permissions. What each tool is comes from the tool table
// (claude-tools.ts); `mcp__*` tools are MCP calls, covered by `mcp:SERVER/TOOL` entries, except
// Gatehouse's own Skill tool, which only reads skill instructions.
import { z } from "zod/mini";
import { mcpTargetOfName } from "../../shared/mcp-names.js";
import { SKILL_TOOL_NAME } from "../../shared/skill-tool-names.js";
import { CLAUDE_TOOLS } from "./claude-tools.js";
import type { HookVerdict, ToolCall } from "./tool-call.js";
import { classifyToolCall, inputText, person, type ToolContext } from "./tool-spec.js";

/**
 * Claude Code's PreToolUse input. The envelope is Claude Code's own (session, folder, event; 2.1.332 adds
 * `prompt_id`, `effort`, …: kept loose); `tool_input` is what the model asked for, read by the tool table.
 */
export const ClaudePreToolUseSchema = z.looseObject({
  session_id: z.optional(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.optional(z.string()),
  tool_name: z.string(),
  tool_input: z.optional(z.unknown()),
});
export type ClaudePreToolUse = z.infer<typeof ClaudePreToolUseSchema>;

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

/** Claude Code's hook output: allow or deny with the reason. Every call gets one (no output would be no decision). */
export function claudeHookOutput(verdict: HookVerdict): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict.allow ? "allow" : "deny",
      permissionDecisionReason: verdict.reason,
    },
  });
}
