// Starting and ending elevated mode (seed 004 `/elevated`) for the person's own front ends: the CLI,
// the app's window (IPC) and the tray. Each change is one locked write of the approvals file plus one
// audit line (`event: "elevation"`), so Activity shows who elevated whom, until when, and when it ended.
// Never reachable from the approval socket or the backend: an agent must not be able to elevate itself.
import type { ApprovalsStore } from "../core/approvals/index.js";
import type { AuditLog } from "./audit-log.js";
import { newRunId } from "./gate.js";

/** The longest elevation: a working day, so a forgotten one never lasts into the next. */
export const MAX_ELEVATION_MS = 8 * 60 * 60_000;

export interface ElevationDeps {
  approvals: Pick<ApprovalsStore, "elevate" | "endElevation" | "load">;
  audit: Pick<AuditLog, "append">;
  now: () => number;
}

export interface RunningElevation {
  agentId: string;
  until: number;
  since: number;
  by: string | null;
}

export function whoIsElevated(agentId: string): string {
  return agentId === "*" ? "every agent" : `agent ${agentId}`;
}

/** The elevations still running at `now`, `*` first. */
export async function runningElevations(
  approvals: Pick<ApprovalsStore, "load">,
  now: number,
): Promise<RunningElevation[]> {
  const state = await approvals.load();
  if (state.status !== "ok") return [];
  return Object.entries(state.file.elevated ?? {})
    .filter(([, e]) => e.until > now)
    .map(([agentId, e]) => ({ agentId, until: e.until, since: e.since, by: e.by ?? null }))
    .sort((a, b) => (a.agentId === "*" ? -1 : b.agentId === "*" ? 1 : a.agentId.localeCompare(b.agentId)));
}

function auditLine(
  agentId: string,
  by: string,
  now: number,
  command: string,
  reason: string,
  elevation?: { forMs: number; until: number },
) {
  return {
    ts: now,
    runId: newRunId(),
    event: "elevation" as const,
    agentId,
    sessionKey: "",
    source: `elevate:${by}`,
    command,
    cwd: "",
    // A person's choice: starting grants (allow), ending takes it back (deny).
    decision: command.endsWith(" off") ? ("deny" as const) : ("allow-once" as const),
    decidedBy: "user" as const,
    reason,
    exitCode: null,
    timedOut: false,
    durationMs: 0,
    // Activity words a start from these ("raised to full for 15 min, until 14:05"), never from the reason.
    ...(elevation ? { elevation } : {}),
  };
}

/** Starts (or replaces) an elevation of `agentId` (`*` = every agent) for `forMs`; throws on bad input. */
export async function startElevation(
  deps: ElevationDeps,
  request: { agentId: string; forMs: number; by: string },
): Promise<RunningElevation> {
  if (!Number.isInteger(request.forMs) || request.forMs <= 0 || request.forMs > MAX_ELEVATION_MS)
    throw new RangeError("an elevation lasts more than 0 and at most 8 hours");
  const now = deps.now();
  const until = now + request.forMs;
  const elevation = await deps.approvals.elevate(request.agentId, until, request.by);
  const minutes = Math.max(1, Math.round(request.forMs / 60_000));
  await deps.audit.append(
    auditLine(
      request.agentId,
      request.by,
      now,
      `elevate ${request.agentId} for ${minutes}m`,
      `elevated mode started: ${whoIsElevated(request.agentId)} runs with security=full until ${new Date(until).toISOString()}`,
      { forMs: request.forMs, until },
    ),
  );
  return { agentId: request.agentId, until, since: elevation.since, by: request.by };
}

/** Ends the elevation of one agent, or all of them; returns the agents whose elevation was running. */
export async function endElevation(
  deps: ElevationDeps,
  request: { agentId?: string; by: string },
): Promise<string[]> {
  const ended = await deps.approvals.endElevation(request.agentId);
  const now = deps.now();
  for (const agentId of ended)
    await deps.audit.append(
      auditLine(
        agentId,
        request.by,
        now,
        `elevate ${agentId} off`,
        `elevated mode ended early: ${whoIsElevated(agentId)} follows the policy again`,
      ),
    );
  return ended;
}
