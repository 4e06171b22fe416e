// The terminal events (device-protocol.md §6, issue 31): `device:start_terminal_session` and
// `terminal:attach|input|resize|close`, read and answered as Wegent's executor does
// (executor/src/local/backend/session_events.rs and backend.rs): the same required fields and their
// error strings, the same ack (`{success, session_id, project_id, type, path, transport}` or
// `{success: false, error}`). What a terminal may do is decided behind the TerminalPort.
import type { TerminalReply, TerminalStartRequest } from "./deps.js";

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A trimmed non-empty string (Wegent's `value_string`). */
export function valueString(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** A non-negative integer, from a JSON number or a digit string (Wegent's `value_u64`). */
export function valueU64(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === "string" && /^\+?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** A u16 (Wegent's `value_u16`): terminal rows and columns. */
export function valueU16(value: unknown): number | null {
  const n = valueU64(value);
  return n !== null && n <= 0xffff ? n : null;
}

/** `device:start_terminal_session`'s payload, or Wegent's error text. */
export function terminalStartRequest(payload: unknown): TerminalStartRequest | { error: string } {
  const p = record(payload);
  const sessionId = valueString(p.session_id);
  if (!sessionId) return { error: "session_id is required" };
  const projectId = valueU64(p.project_id);
  if (projectId === null) return { error: "project_id is required" };
  let path = "";
  if (p.path !== undefined && p.path !== null) {
    if (typeof p.path !== "string") return { error: "path must be a string" };
    path = p.path.trim();
  }
  // Required by Wegent (it guards its code-server URL); a terminal over Socket.IO does not use it.
  if (!valueString(p.access_token)) return { error: "access_token is required" };
  const create = p.create_if_missing ?? p.createIfMissing;
  return {
    sessionId,
    projectId,
    path,
    rows: valueU16(p.rows),
    cols: valueU16(p.cols),
    createIfMissing: typeof create === "boolean" ? create : false,
    ttlSeconds: valueU64(p.ttl_seconds ?? p.ttlSeconds),
  };
}

/** The start ack (Wegent's `session_result_payload` for a terminal: no url, transport `socketio`). */
export function terminalStartedAck(request: TerminalStartRequest, folder: string): Record<string, unknown> {
  return {
    success: true,
    session_id: request.sessionId,
    project_id: request.projectId,
    type: "terminal",
    path: folder,
    transport: "socketio",
  };
}

export function replyAck(reply: TerminalReply): Record<string, unknown> {
  return reply.ok ? { success: true } : { success: false, error: reply.error };
}

/** `session_id` of a terminal control event, or null (then "session_id is required"). */
export function controlSessionId(payload: unknown): string | null {
  return valueString(record(payload).session_id);
}

export function inputData(payload: unknown): string | null {
  const data = record(payload).data;
  return typeof data === "string" ? data : null;
}

/** Rows and columns of `terminal:resize` (Wegent: 24 × 80 when absent). */
export function resizeOf(payload: unknown): { rows: number; cols: number } {
  const p = record(payload);
  return { rows: valueU16(p.rows) ?? 24, cols: valueU16(p.cols) ?? 80 };
}
