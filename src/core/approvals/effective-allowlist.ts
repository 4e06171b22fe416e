// The allowlist an agent's commands are matched against: entries of agents["*"] first, then the
// agent's own (exec-policy.md "Where settings come from", 3).
import type { AllowlistEntry, ApprovalsFile } from "./schema.js";

export interface EffectiveEntry {
  /** Which list the entry lives in (`*` or the agent id): needed to edit or count down the entry. */
  agentId: string;
  entry: AllowlistEntry;
}

export function effectiveAllowlist(file: ApprovalsFile, agentId: string): EffectiveEntry[] {
  const shared = (file.agents["*"]?.allowlist ?? []).map((entry) => ({ agentId: "*", entry }));
  if (agentId === "*") return shared;
  const own = (file.agents[agentId]?.allowlist ?? []).map((entry) => ({ agentId, entry }));
  return [...shared, ...own];
}

/** Whether an entry can match at all right now (exec-policy.md: expired or used-up entries match nothing). */
export function entryLiveness(entry: AllowlistEntry, now: number): "live" | "expired" | "used-up" {
  if (typeof entry.expiresAt === "number" && entry.expiresAt > 0 && now >= entry.expiresAt) return "expired";
  if (entry.usesLeft === 0) return "used-up";
  return "live";
}
