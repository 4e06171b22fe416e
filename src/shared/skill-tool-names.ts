// The names of Gatehouse's Skill tool (docs/decisions.md "Skills for agents"), apart from the skill
// engine: the agent hooks match on them on every tool call, and the hook path must not load the engine.
// Claude Code 2.1 names MCP tools `mcp__<server>__<tool>`; Codex 0.169 offers them in the Responses tool
// namespace `mcp__<server>` with the server name sanitized (`-` becomes `_`).

/** The reserved MCP server name: a payload or manifest server of this name is never injected. */
export const SKILL_SERVER_NAME = "gatehouse-skills";
export const SKILL_TOOL = "Skill";
/** The Skill tool's name as Claude Code's model (and Gatehouse's hook) sees it. */
export const SKILL_TOOL_NAME = `mcp__${SKILL_SERVER_NAME}__${SKILL_TOOL}`;
/** The Responses tool namespace Codex 0.169 puts the Skill tool in (pinned by skill-tool.test.ts). */
export const CODEX_SKILL_NAMESPACE = `mcp__${SKILL_SERVER_NAME.replace(/[^A-Za-z0-9_]/g, "_")}`;
