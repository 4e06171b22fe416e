// Exec lifecycle events to the backend (issue 15; docs/device-protocol-exec-events.md, an extension of
// device-protocol.md): `exec.started`, `exec.finished` (exit code, duration, truncated flags, the last
// 20 000 characters of output) and `exec.denied` (who or what decided) for each `device:execute_command`.
// Snake_case like the task events. They leave the process through the connection's task-event sink,
// which redacts them (src/core/redact.ts through the logger) before they reach the socket.
import type { ExecEvent } from "../executor/gate.js";
import { positiveInt } from "../core/tasks/task-events.js";

export const EXEC_EVENT_TYPES = ["exec.started", "exec.finished", "exec.denied"] as const;

export interface ExecEventContext {
  sessionKey: string;
  commandKey?: string;
}

/** The wire body of one exec event of a backend command. */
export function execEventBody(event: ExecEvent, context: ExecEventContext): Record<string, unknown> {
  const taskId = context.sessionKey.startsWith("task:")
    ? positiveInt(context.sessionKey.slice("task:".length))
    : null;
  const common = {
    run_id: event.runId,
    ts: event.ts,
    ...(taskId !== null ? { task_id: taskId } : {}),
    ...(context.commandKey !== undefined ? { command_key: context.commandKey } : {}),
  };
  switch (event.type) {
    case "exec.started":
      return {
        ...common,
        command: event.command,
        cwd: event.cwd,
        agent_id: event.agentId,
        session_key: event.sessionKey,
        decided_by: event.decidedBy,
      };
    case "exec.finished":
      return {
        ...common,
        exit_code: event.exitCode,
        signal: event.signal,
        timed_out: event.timedOut,
        cancelled: event.cancelled,
        duration: event.durationMs / 1000,
        truncated: event.truncated,
        stdout_truncated: event.stdoutTruncated,
        stderr_truncated: event.stderrTruncated,
        output_tail: event.output,
        ...(event.error !== undefined ? { error: event.error } : {}),
      };
    case "exec.denied":
      return {
        ...common,
        command: event.command,
        agent_id: event.agentId,
        session_key: event.sessionKey,
        decision: event.decision,
        decided_by: event.decidedBy,
        reason: event.reason,
        ...(event.nextStep !== undefined ? { next_step: event.nextStep } : {}),
      };
  }
}
