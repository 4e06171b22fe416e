// What an agent CLI's output means to a task run, whatever the runtime: the parsers for Claude Code's
// `stream-json` and Codex's `exec --json` both turn lines into these events, and the run turns them
// into the backend's task event stream (device-protocol.md §6.2).
import { isRecord } from "../../shared/is-record.js";

export type AgentEvent =
  /** The runtime's session id (Claude session id, Codex thread id): later turns of the task resume it. */
  | { kind: "session"; id: string }
  /** The tools the runtime reports it has this turn (Claude Code's init event), MCP tools included. */
  | { kind: "tools"; names: string[] }
  /** Answer text, in order. */
  | { kind: "text"; text: string }
  /** A tool call began. */
  | { kind: "tool-started"; id: string; name: string; input: unknown }
  /** A tool call ended with its output; `isError` when it failed or was refused. */
  | { kind: "tool-finished"; id: string; name: string; input: unknown; output: string; isError: boolean }
  /** The turn ended well; `text` is the runtime's own final text (used when no text streamed). */
  | { kind: "completed"; text: string | null }
  /** The turn failed; the message is the runtime's. */
  | { kind: "failed"; message: string }
  /** Something worth a log line that does not end the turn. */
  | { kind: "warning"; message: string };

/** Turns output lines of one agent process into events; keeps what it needs across lines. */
export interface AgentStreamParser {
  line(text: string): AgentEvent[];
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** Parses one JSON object line; null for blank lines, non-JSON text and non-objects. */
export function parseJsonLine(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
