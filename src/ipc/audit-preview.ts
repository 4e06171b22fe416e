// The allowlist editor's preview: which past commands (from the audit log) an entry would have covered.
// Each past command is explained again, today, against the agent's allowlist with the entry added, so
// the answer includes what the other entries cover. Executables resolve as they do now, not as then.
import {
  parseMcpPattern,
  type ApprovalsFile,
  type ApprovalsState,
  type McpTarget,
} from "../core/approvals/index.js";
import { ExecutableResolver, explainCommand } from "../core/policy/index.js";
import { mcpToolName } from "../core/policy/mcp-tools.js";
import type { AuditRecord } from "../executor/audit-log.js";
import type { AuditPreview, EntryInput } from "./contract.js";

export const PREVIEW_ENTRY_ID = "gatehouse-preview-entry";

type Covered = AuditPreview["covered"][number];

/** A decision line the previewed entry covers, as the editor lists it. */
function coveredBy(record: AuditRecord, coverage: Covered["coverage"]): Covered {
  const { ts, command, cwd, agentId, decision, decidedBy } = record;
  return { ts, command, cwd, agentId, decision, decidedBy, coverage };
}

export interface PreviewInput {
  file: ApprovalsFile;
  /** The list the entry goes into (`*` covers every agent). */
  agentId: string;
  entry: EntryInput;
  /** The entry being edited: left out, so the preview shows the edited version alone. */
  replaceId?: string;
  /** Newest first, as AuditLog.read returns them. */
  records: AuditRecord[];
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  now: number;
  platform?: NodeJS.Platform;
  /** At most this many distinct commands are explained (the rest are not looked at). */
  maxCommands?: number;
}

/** The past calls of the MCP tool an `mcp:SERVER/TOOL` entry names (by the name each runtime gives it). */
function previewMcpEntry(input: PreviewInput, target: McpTarget): AuditPreview {
  const names = new Set([mcpToolName("claude", target), mcpToolName("codex", target)]);
  const covered: AuditPreview["covered"] = [];
  let scanned = 0;
  for (const record of input.records) {
    if (record.event !== "decision") continue;
    if (input.agentId !== "*" && record.agentId !== input.agentId) continue;
    scanned++;
    if (!names.has(record.command.split(" ")[0] ?? "")) continue;
    covered.push(coveredBy(record, "all"));
    if (covered.length >= (input.maxCommands ?? 500)) break;
  }
  return { scanned, covered };
}

export async function previewEntry(input: PreviewInput): Promise<AuditPreview> {
  const mcp = parseMcpPattern(input.entry.pattern);
  if (mcp) return previewMcpEntry(input, mcp);
  const file: ApprovalsFile = structuredClone(input.file);
  for (const agent of Object.values(file.agents)) {
    if (agent.allowlist) agent.allowlist = agent.allowlist.filter((e) => e.id !== input.replaceId);
  }
  // First in the effective order (the `*` list comes first), so it wins over entries that would also
  // match; only this agent's records are looked at, so the `*` list stands for the agent's here.
  const shared = ((file.agents["*"] ??= {}).allowlist ??= []);
  shared.unshift({ id: PREVIEW_ENTRY_ID, ...withoutEmpty(input.entry) });
  const approvals: ApprovalsState = { status: "ok", path: "(preview)", file };
  const resolver = new ExecutableResolver();
  const seen = new Set<string>();
  const covered: AuditPreview["covered"] = [];
  let scanned = 0;
  const max = input.maxCommands ?? 500;
  for (const record of input.records) {
    if (record.event !== "decision") continue;
    if (input.agentId !== "*" && record.agentId !== input.agentId) continue;
    // a request that did not prove its agent is covered only by `*` entries, never by that agent's own
    if (input.agentId !== "*" && record.identity === "unproven") continue;
    const key = JSON.stringify([record.agentId, record.cwd, record.command]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > max) break;
    scanned++;
    const explanation = await explainCommand(
      { command: record.command },
      {
        agentId: record.agentId,
        cwd: record.cwd,
        env: input.env,
        home: input.home,
        approvals,
        now: input.now,
        resolver,
        ...(input.platform ? { platform: input.platform } : {}),
        ...(record.identity ? { identity: record.identity } : {}),
      },
    );
    const hits = explanation.segments.filter((s) => s.matchedEntryId === PREVIEW_ENTRY_ID).length;
    if (hits === 0) continue;
    covered.push(coveredBy(record, explanation.allowlistSatisfied ? "all" : "some"));
  }
  return { scanned, covered };
}

/** Empty optional text fields mean "not set" in the editor. */
export function withoutEmpty(entry: EntryInput): EntryInput {
  const out: EntryInput = { pattern: entry.pattern.trim() };
  if (entry.argPattern !== undefined && entry.argPattern !== "") out.argPattern = entry.argPattern;
  if (entry.cwd !== undefined && entry.cwd.trim() !== "") out.cwd = entry.cwd.trim();
  if (entry.expiresAt !== undefined && entry.expiresAt !== null) out.expiresAt = entry.expiresAt;
  if (entry.usesLeft !== undefined && entry.usesLeft !== null) out.usesLeft = entry.usesLeft;
  return out;
}
