// The report of one gated run, as the socket's `exec.result` body and `gatehouse exec --json` both give
// it: one shape, so a script reading either sees the same fields.
import type { GateRunResult } from "../executor/gate.js";
import type { ExecResultBody } from "./protocol.js";

export type RunReport = ExecResultBody & { warnings?: string[] };

export function runReport(result: GateRunResult): RunReport {
  return {
    decision: result.decision,
    decidedBy: result.decidedBy,
    reason: result.reason,
    ...(result.denyReason !== undefined ? { denyReason: result.denyReason } : {}),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.truncated,
    durationMs: result.durationMs,
    ...(result.warnings.length ? { warnings: result.warnings } : {}),
    ...(result.nextStep ? { nextStep: result.nextStep } : {}),
    ...(result.explanation.elevatedUntil !== undefined
      ? { elevatedUntil: result.explanation.elevatedUntil }
      : {}),
  };
}
