// The Skill tool as each agent runtime sees it (skills.md §9, §10; docs/decisions.md "Skills for agents").
// Gatehouse serves it as the tool `Skill` of a small stdio MCP server that every task gets
// (`gatehouse skills mcp --task ID --runtime R`), so both runtimes reach the same engine. Claude Code 2.1
// names MCP tools `mcp__<server>__<tool>`; Codex 0.169 offers them to the model as the function `<tool>`
// in the Responses tool namespace `mcp__<server>` with the server name sanitized (`-` becomes `_`). The
// index names the tool exactly as each runtime's model sees it.
import { CLAUDE_TOOL_ALIASES, toolRegistry } from "./permissions.js";
import type { SkillRuntime } from "./runtime-subset.js";

import {
  CODEX_SKILL_NAMESPACE,
  SKILL_SERVER_NAME,
  SKILL_TOOL,
  SKILL_TOOL_NAME,
} from "../../shared/skill-tool-names.js";

export { CODEX_SKILL_NAMESPACE, SKILL_SERVER_NAME, SKILL_TOOL, SKILL_TOOL_NAME };

/** How the skill index names the Skill tool to this runtime's model ("call <phrase> with its name"). */
export function skillToolPhrase(runtime: SkillRuntime): string {
  return runtime === "codex"
    ? `the ${SKILL_TOOL} tool of the ${CODEX_SKILL_NAMESPACE} namespace`
    : `the ${SKILL_TOOL_NAME} tool`;
}

/**
 * Claude Code 2.1.197's native tools in a Gatehouse task, as its `system/init` event lists them (pinned
 * by test/integration/tasks/skill-tool.test.ts); EnterWorktree is refused by the hook, so it is not
 * here. A running turn replaces this with the init event's own list (`runtimeToolRegistry(…, names)`).
 */
export const CLAUDE_NATIVE_TOOLS: readonly string[] = [
  "Task",
  "Bash",
  "CronCreate",
  "CronDelete",
  "CronList",
  "Edit",
  "ExitWorktree",
  "NotebookEdit",
  "Read",
  "ReportFindings",
  "ScheduleWakeup",
  "SendMessage",
  "Skill",
  "TaskCreate",
  "TaskGet",
  "TaskList",
  "TaskOutput",
  "TaskStop",
  "TaskUpdate",
  "WebFetch",
  "WebSearch",
  "Workflow",
  "Write",
];

/** Tools the hook refuses whatever the runtime lists: not in any registry. */
const REFUSED_TOOLS: ReadonlySet<string> = new Set(["EnterWorktree"]);

/**
 * Codex 0.169's tools in `codex exec` (read from its Responses requests): `exec_command` runs commands,
 * `apply_patch` writes and edits files (offered to models that take it), `web_search` searches. Codex
 * has no read tool of its own: it reads files through its shell, so `exec_command` also counts as
 * `file_read`.
 */
export const CODEX_NATIVE_TOOLS: readonly string[] = [
  "exec_command",
  "write_stdin",
  "apply_patch",
  "view_image",
  "web_search",
];
export const CODEX_TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  exec_command: ["shell", "file_read"],
  apply_patch: ["file_write", "file_edit"],
  web_search: ["web_search"],
};

/**
 * The tool registry of §9.1 for a runtime: its native names (the list the runtime reported, else the
 * pinned one) without the ones the hook refuses, their canonical names, and the Skill tool.
 */
export function runtimeToolRegistry(runtime: SkillRuntime, reported?: readonly string[]): Set<string> {
  const names = (reported ?? (runtime === "claude" ? CLAUDE_NATIVE_TOOLS : CODEX_NATIVE_TOOLS)).filter(
    (name) => !REFUSED_TOOLS.has(name),
  );
  const registry = toolRegistry(names, runtime === "claude" ? CLAUDE_TOOL_ALIASES : CODEX_TOOL_ALIASES);
  registry.add(SKILL_TOOL_NAME);
  return registry;
}

/** What runtime sees a skill natively, in words for a refusal of the Gatehouse tool. */
export function nativePathOf(runtime: SkillRuntime): string {
  return runtime === "claude"
    ? "Claude Code loads it itself: use your own Skill tool"
    : "Codex lists it itself: read its SKILL.md";
}
