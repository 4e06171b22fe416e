// Status and activity: the connection, the approval socket, pending approvals, running tasks, and the
// audit log as a filterable list (newest first).
import type { AuditRecord } from "../../executor/audit-log.js";
import { runningElevations } from "../../executor/elevation.js";
import { APP_VERSION } from "../../version.js";
import type { ActivityQuery } from "../contract.js";
import type { HandlerContext, Handlers } from "./types.js";

export function matchesActivity(record: AuditRecord, query: ActivityQuery): boolean {
  if (query.event && record.event !== query.event) return false;
  if (query.agentId && record.agentId !== query.agentId) return false;
  if (query.decision) {
    const allowed = record.decision === "allow-once" || record.decision === "allow-always";
    const kind = allowed ? "allowed" : record.decision === "deny" ? "denied" : record.decision;
    if (kind !== query.decision) return false;
  }
  if (query.decidedBy) {
    const who = record.decidedBy.startsWith("rule:") ? "rule" : record.decidedBy;
    if (who !== query.decidedBy) return false;
  }
  const words = (query.text ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length) {
    const haystack =
      `${record.command}\n${record.cwd}\n${record.agentId}\n${record.reason}\n${record.decidedBy}`.toLowerCase();
    if (!words.every((w) => haystack.includes(w))) return false;
  }
  return true;
}

export function statusHandlers(
  ctx: HandlerContext,
): Pick<Handlers, "status.get" | "activity.list" | "tasks.stop" | "terminals.close"> {
  const s = ctx.services;
  return {
    "status.get": async () => {
      const connection = s.device?.state() ?? null;
      const beat = connection?.lastHeartbeatAt ? Date.parse(connection.lastHeartbeatAt) : NaN;
      const approvals = await s.approvals.load();
      return {
        version: APP_VERSION,
        home: s.paths.executorHome,
        connection,
        heartbeatAgeMs: Number.isFinite(beat) ? Math.max(0, ctx.now() - beat) : null,
        socket: {
          path: s.socket.address(),
          state: s.socket.listening() ? "listening" : "stopped",
          connections: s.socket.connections(),
        },
        approvalsFile:
          approvals.status === "invalid"
            ? { path: approvals.path, status: "invalid", error: approvals.error }
            : { path: approvals.path, status: approvals.status },
        pending: s.broker.size,
        tasks: s.tasks?.list() ?? [],
        terminals: s.terminals?.list() ?? [],
        elevated: await runningElevations(s.approvals, ctx.now()),
      };
    },
    "tasks.stop": async ({ taskId, subtaskId }) => {
      const tasks = s.tasks;
      if (!tasks?.stop) return { ok: false, reason: "Tasks cannot be stopped from this app." };
      return { ok: true, stopped: await tasks.stop(taskId, subtaskId ?? null) };
    },
    "terminals.close": async ({ sessionId }) => {
      const terminals = s.terminals;
      if (!terminals) return { ok: false, reason: "This app opens no terminals." };
      return { ok: true, closed: terminals.close(sessionId) };
    },
    "activity.list": async (query) => {
      const wanted = query.limit ?? 300;
      const filtering = Boolean(
        query.text || query.decision || query.decidedBy || query.agentId || query.event,
      );
      const records = await s.audit.read({ limit: filtering ? 10_000 : wanted });
      const matched = records.filter((r) => matchesActivity(r, query)).slice(0, wanted);
      return { records: matched, scanned: records.length };
    },
  };
}
