// The arguments Codex received for one tool call, read back from its session transcript (the
// rollout file named in the hook input). Codex's hook input for `exec_command` carries only the
// command text; the call's other arguments (such as `shell`, which picks zsh or sh instead of bash)
// are in the transcript, written before the hook runs (codex-cli 0.169).
// node:fs's `promises`, loaded on first use: the served hook never reads a file asynchronously (issue 12)
import { promises as fs } from "node:fs";
import { isRecord } from "../../shared/is-record.js";

/** How much of the end of a transcript is read: a call being decided is among its last lines. */
const TAIL_BYTES = 16 * 1024 * 1024;

async function readTail(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    return buffer.toString("utf8");
  } finally {
    await handle.close();
  }
}

function callArguments(line: string, callId: string): Record<string, unknown> | null {
  let item: unknown;
  try {
    item = JSON.parse(line);
  } catch {
    return null;
  }
  const payload = (item as { payload?: Record<string, unknown> } | null)?.payload;
  if (!payload || payload.type !== "function_call" || payload.call_id !== callId) return null;
  if (typeof payload.arguments !== "string") return null;
  try {
    const args: unknown = JSON.parse(payload.arguments);
    return isRecord(args) ? args : null;
  } catch {
    return null;
  }
}

/** The latest `function_call` with this call id in the transcript, or null when none is there (yet). */
export async function findCallArguments(
  transcript: string,
  callId: string,
): Promise<Record<string, unknown> | null> {
  const text = await readTail(transcript);
  const needle = JSON.stringify(callId);
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (!line.includes(needle)) continue;
    const args = callArguments(line, callId);
    if (args) return args;
  }
  return null;
}

/**
 * As findCallArguments, polling for a short while in case Codex has not flushed the line yet; null
 * when the transcript cannot be read or the call never appears.
 */
export async function waitForCallArguments(
  transcript: string,
  callId: string,
  deadlineMs = 2_000,
): Promise<Record<string, unknown> | null> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const found = await findCallArguments(transcript, callId).catch(() => null);
    if (found || Date.now() >= until) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
