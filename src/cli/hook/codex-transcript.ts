// The arguments Codex received for one tool call, read back from its session transcript (the rollout
// file named in the hook input). Codex's hook input for `exec_command` carries only the command text;
// the call's function name and other arguments (`workdir`, `shell`, …) are in the transcript, written
// before the hook runs (codex-cli 0.169, 0.171).
// Blocking reads, as the hook's other files (docs/decisions.md "Start-up"): the file promise API and
// the thread pool's threads it starts cost the Codex hook more than the read (issue 12).
import fs from "node:fs";
import { isRecord } from "../../shared/is-record.js";

/** How much of the end of a transcript is read: a call being decided is among its last lines. */
const TAIL_BYTES = 16 * 1024 * 1024;

/** One `function_call` of the transcript: the function the model called and its arguments as given. */
export interface TranscriptCall {
  name: string;
  /** The arguments JSON, parsed (any JSON value: the tool table judges it). */
  arguments: unknown;
}

function readTail(file: string): string {
  const fd = fs.openSync(file, "r");
  try {
    const { size } = fs.fstatSync(fd);
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = fs.readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString("utf8", 0, read);
  } finally {
    fs.closeSync(fd);
  }
}

function callOf(line: string, callId: string): TranscriptCall | null {
  let item: unknown;
  try {
    item = JSON.parse(line);
  } catch {
    return null;
  }
  const payload = isRecord(item) && isRecord(item.payload) ? item.payload : null;
  if (!payload || payload.type !== "function_call" || payload.call_id !== callId) return null;
  if (typeof payload.arguments !== "string" || typeof payload.name !== "string") return null;
  try {
    return { name: payload.name, arguments: JSON.parse(payload.arguments) as unknown };
  } catch {
    return null;
  }
}

/**
 * Every `function_call` with this call id in the transcript, latest first; empty when none is there (yet).
 * Call ids come from the model provider: more than one call may carry the same id.
 */
export function findCalls(transcript: string, callId: string): TranscriptCall[] {
  const text = readTail(transcript);
  const needle = JSON.stringify(callId);
  const lines = text.split("\n");
  const found: TranscriptCall[] = [];
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (!line.includes(needle)) continue;
    const call = callOf(line, callId);
    if (call) found.push(call);
  }
  return found;
}

/**
 * The one call with this id: polling for a short while in case Codex has not flushed the line yet.
 * `missing` when the transcript cannot be read or the call never appears; `ambiguous` when calls with
 * this id differ (the hook cannot tell which one it is asked about).
 */
export async function waitForCall(
  transcript: string,
  callId: string,
  deadlineMs = 2_000,
): Promise<TranscriptCall | "missing" | "ambiguous"> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    let found: TranscriptCall[] = [];
    try {
      found = findCalls(transcript, callId);
    } catch {
      // not readable (yet): polled again until the deadline
    }
    if (found.length > 0) {
      const first = JSON.stringify(found[0]);
      return found.every((call) => JSON.stringify(call) === first) ? found[0]! : "ambiguous";
    }
    if (Date.now() >= until) return "missing";
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
