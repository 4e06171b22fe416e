// Claude Code's PreToolUse hook (agent-cli-notes.md "Hooks"): its input as a ToolCall and a verdict
// as its hook output. Bash goes to the command gate; Write/Edit/MultiEdit/NotebookEdit and the read
// tools go to the file gate. Other tools are left to Claude Code's own permissions, which in a
// Gatehouse task allow nothing by themselves (nothing is passed with --allowedTools): only this
// hook's explicit "allow" lets a tool run, so a hook that fails can never let one through.
import path from "node:path";
import { z } from "zod/mini";
import { CLAUDE_FILE_TOOLS, CLAUDE_REFUSED_TOOLS } from "../../core/runtime/agent-hook.js";
import { SKILL_TOOL_NAME } from "../../shared/skill-tool-names.js";
import type { HookVerdict, ToolCall } from "./tool-call.js";

/** The fields of Claude Code's PreToolUse input read here; the rest is ignored. */
export const ClaudePreToolUseSchema = z.looseObject({
  session_id: z.optional(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.optional(z.string()),
  tool_name: z.string(),
  tool_input: z.optional(z.looseObject({})),
});
export type ClaudePreToolUse = z.infer<typeof ClaudePreToolUseSchema>;

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

export function claudeToolCall(input: ClaudePreToolUse, cwd: string): ToolCall {
  const toolInput = input.tool_input ?? {};
  const text = (field: string) => {
    const value = toolInput[field];
    return typeof value === "string" && value.trim() !== "" ? value : null;
  };
  if (input.tool_name === "Bash") {
    const command = text("command");
    if (!command) return { kind: "refuse", reason: "Gatehouse denies a Bash call without a command." };
    return { kind: "command", command, cwd };
  }
  // Exactly Gatehouse's own Skill tool (its server name is reserved in every task's MCP config): it
  // reads skill files of the task's snapshot and runs nothing. Other MCP tools never get here.
  if (input.tool_name === SKILL_TOOL_NAME) {
    return { kind: "allow", reason: "Gatehouse allows its Skill tool (it only reads skill instructions)." };
  }
  if (CLAUDE_REFUSED_TOOLS.has(input.tool_name)) {
    return {
      kind: "refuse",
      reason: `Gatehouse blocks ${input.tool_name}: it runs programs outside the gate. Use Bash for what you need.`,
    };
  }
  const tool = CLAUDE_FILE_TOOLS[input.tool_name];
  if (!tool) return { kind: "pass" };
  const target = text(tool.field) ?? (tool.defaultsToCwd ? cwd : null);
  if (!target)
    return { kind: "refuse", reason: `Gatehouse denies a ${input.tool_name} call that names no file.` };
  const paths = [target];
  const pattern = input.tool_name === "Glob" ? text("pattern") : null;
  const base = pattern ? globBase(pattern) : null;
  if (base) paths.push(path.isAbsolute(base) || base.startsWith("~") ? base : path.join(target, base));
  // Relative paths are Claude Code's to resolve against its session cwd (the hook input's `cwd`).
  return { kind: "file", tool: input.tool_name, access: tool.access, paths, runtime: "claude", base: cwd };
}

/** Claude Code's hook output: allow or deny with the reason (no output at all leaves the tool to Claude). */
export function claudeHookOutput(verdict: HookVerdict): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict.allow ? "allow" : "deny",
      permissionDecisionReason: verdict.reason,
    },
  });
}
