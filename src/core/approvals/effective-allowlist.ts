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

/**
 * How far the wall clock may read before a time it already showed (an entry's creation or last use)
 * before it counts as set back: the small steps a time service makes are not a reason to refuse.
 */
export const CLOCK_SLACK_MS = 1_000;

/**
 * Whether an entry can match at all right now (exec-policy.md: expired or used-up entries match nothing).
 * An entry with an end time also matches nothing while the clock reads before the entry's creation or
 * last use (a clock set back, which would stretch its time: issue 30).
 */
export function entryLiveness(entry: AllowlistEntry, now: number): "live" | "expired" | "used-up" {
  if (typeof entry.expiresAt === "number" && entry.expiresAt > 0) {
    if (now >= entry.expiresAt) return "expired";
    const latestSeen = Math.max(entry.createdAt ?? 0, entry.lastUsedAt ?? 0);
    if (now + CLOCK_SLACK_MS < latestSeen) return "expired";
  }
  if (entry.usesLeft === 0) return "used-up";
  return "live";
}
