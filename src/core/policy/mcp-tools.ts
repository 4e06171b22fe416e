// MCP tool calls against the allowlist: the entry (`mcp:SERVER/TOOL`, src/shared/mcp-entry.ts) that
// covers a call, by the name its runtime gives the tool (src/shared/mcp-names.ts). An entry matches when the name
// its runtime would give that server's tool is exactly the name of the call: nothing is parsed out of
// the call's name to decide, so a server name holding `__` cannot make one entry cover another tool.
import {
  effectiveAllowlist,
  entryLiveness,
  parseMcpPattern,
  type ApprovalsFile,
} from "../approvals/index.js";
import { mcpToolName, type AgentRuntime } from "../../shared/mcp-names.js";

export { mcpTargetOfName, mcpToolName, type AgentRuntime } from "../../shared/mcp-names.js";

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
