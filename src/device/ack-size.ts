// The backend accepts at most 1,000,000 bytes per message (device-protocol.md §6.5): a command ack is
// kept under 980,000 serialised bytes by cutting stdout, then stderr, on a UTF-8 boundary.
import type { CommandAck } from "./deps.js";

export const MAX_ACK_BYTES = 980_000;

export function serialisedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** The first `maxBytes` bytes of `text`'s UTF-8 form, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--; // back off continuation bytes
  return bytes.subarray(0, end).toString("utf8");
}

export function capCommandAck(ack: CommandAck, limit: number = MAX_ACK_BYTES): CommandAck {
  let result = ack;
  for (const stream of ["stdout", "stderr"] as const) {
    for (let round = 0; round < 8; round++) {
      const excess = serialisedBytes(result) - (limit - 1);
      if (excess <= 0) return result;
      const current = result[stream];
      if (current === "") break;
      const keep = Math.max(0, Buffer.byteLength(current, "utf8") - excess);
      result = { ...result, [stream]: cutUtf8(current, keep), [`${stream}_truncated`]: true };
    }
  }
  return result;
}
