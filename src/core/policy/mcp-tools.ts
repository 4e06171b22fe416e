// MCP tool calls against the allowlist: the name each agent runtime gives an MCP tool, and the entry
// (`mcp:SERVER/TOOL`, core/approvals/mcp-entry.ts) that covers a call. An entry matches when the name
// its runtime would give that server's tool is exactly the name of the call: nothing is parsed out of
// the call's name to decide, so a server name holding `__` cannot make one entry cover another tool.
import {
  effectiveAllowlist,
  entryLiveness,
  parseMcpPattern,
  type ApprovalsFile,
  type McpTarget,
} from "../approvals/index.js";
import type { AgentRuntime } from "../../shared/schemas/policy-words.js";

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

export interface McpEntryMatch {
  entryId: string;
  /** The list the entry lives in (`*` or the agent id). */
  agentId: string;
  /** Whether it has a use limit (an allowed call takes one use). */
  limited: boolean;
}

/** The first live entry of the agent's allowlist that covers the MCP tool `name` of `runtime`, or null. */
export function matchMcpEntry(
  file: ApprovalsFile,
  agentId: string,
  runtime: AgentRuntime,
  name: string,
  now: number,
): McpEntryMatch | null {
  for (const { agentId: owner, entry } of effectiveAllowlist(file, agentId)) {
    const target = parseMcpPattern(entry.pattern);
    if (!target || entryLiveness(entry, now) !== "live") continue;
    if (mcpToolName(runtime, target) !== name) continue;
    return { entryId: entry.id, agentId: owner, limited: typeof entry.usesLeft === "number" };
  }
  return null;
}
