// An allowlist entry for an MCP tool (exec-policy.md "Tool calls other than a shell string"; decision in
// docs/decisions.md "MCP tools on the allowlist"): the entry's `pattern` is `mcp:<server>/<tool>`. Plain
// code without imports: core, the CLI and the renderer share it. One
// field says what the entry covers, so every path that stores, copies or de-duplicates entries keeps
// working unchanged; an older Gatehouse reads it as a program path that is not absolute and never
// matches a real executable (and its editor refuses to save it as one), so it can never widen what an
// older version allows.

export const MCP_PATTERN_PREFIX = "mcp:";

/** Server and tool names as MCP configurations write them: no `/`, no spaces, no glob characters. */
const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface McpTarget {
  server: string;
  tool: string;
}

/** Whether an entry pattern is an MCP entry (then it never matches a program). */
export function isMcpPattern(pattern: string): boolean {
  return pattern.startsWith(MCP_PATTERN_PREFIX);
}

export function mcpPattern(target: McpTarget): string {
  return `${MCP_PATTERN_PREFIX}${target.server}/${target.tool}`;
}

/** Why `server` or `tool` cannot name an MCP entry, or null. */
export function mcpNameProblem(what: "server" | "tool", name: string): string | null {
  if (MCP_NAME.test(name)) return null;
  return `the MCP ${what} name "${name}" must be 1–128 letters, digits, "_", "." or "-"`;
}

/** The server and tool an MCP pattern names; null when it is not one or is malformed. */
export function parseMcpPattern(pattern: string): McpTarget | null {
  if (!isMcpPattern(pattern)) return null;
  const rest = pattern.slice(MCP_PATTERN_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash < 0) return null;
  const target = { server: rest.slice(0, slash), tool: rest.slice(slash + 1) };
  return MCP_NAME.test(target.server) && MCP_NAME.test(target.tool) ? target : null;
}

/** Why an MCP pattern is unusable, or null. */
export function mcpPatternProblem(pattern: string): string | null {
  const rest = pattern.slice(MCP_PATTERN_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash < 0) return `names no tool: write ${MCP_PATTERN_PREFIX}SERVER/TOOL`;
  return (
    mcpNameProblem("server", rest.slice(0, slash)) ?? mcpNameProblem("tool", rest.slice(slash + 1)) ?? null
  );
}

/** `SERVER/TOOL` as typed on the command line, as a target; a reason when it is not one. */
export function mcpTargetFromText(text: string): McpTarget | { problem: string } {
  const target = parseMcpPattern(`${MCP_PATTERN_PREFIX}${text}`);
  return target ?? { problem: `"${text}" ${mcpPatternProblem(`${MCP_PATTERN_PREFIX}${text}`)}` };
}
