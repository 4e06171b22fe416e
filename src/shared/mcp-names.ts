// The name each agent runtime gives an MCP tool, and the server and tool a call's name shows. Apart from
// the matching (core/policy/mcp-tools.ts) because the agent hooks load it on every tool call and, with
// Gatehouse running, must load neither the policy engine nor the approvals store (issue 12).
import { parseMcpPattern, type McpTarget } from "./mcp-entry.js";
import type { AgentRuntime } from "./schemas/policy-words.js";

export type { AgentRuntime };

/**
 * Claude Code (2.1.197, 2.1.332: `normalizeMcpServerName` in its bundle) names an MCP tool
 * `mcp__<server>__<tool>`, each part with every character but letters, digits, `_` and `-` made `_`.
 */
function claudeName(target: McpTarget): string {
  const part = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_");
  return `mcp__${part(target.server)}__${part(target.tool)}`;
}

/**
 * Codex (0.169, 0.171, checked with the real CLIs: server `marker-srv` → `mcp__marker_srv__mark`) puts
 * the tool in the Responses namespace `mcp__<server>__` with every character but letters, digits and
 * `_` made `_`, and its hook names the call namespace + tool. A name it had to shorten or de-duplicate
 * (a sha1 suffix) matches no entry: such a call needs a person.
 */
function codexName(target: McpTarget): string {
  const part = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
  return `mcp__${part(target.server)}__${part(target.tool)}`;
}

export function mcpToolName(runtime: AgentRuntime, target: McpTarget): string {
  return runtime === "claude" ? claudeName(target) : codexName(target);
}

/**
 * The server and tool a call's name shows, for the person and for *allow always* (whose entry then
 * names the parts as the runtime spelled them, and so matches this very name again); null when the
 * name is not an MCP tool's or its parts could not name an entry.
 */
export function mcpTargetOfName(name: string): McpTarget | null {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  if (!match) return null;
  return parseMcpPattern(`mcp:${match[1]}/${match[2]}`);
}
