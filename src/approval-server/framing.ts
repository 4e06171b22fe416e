// JSON Lines framing with a hard line limit: bytes are buffered only up to the limit, so a peer that
// never sends a newline cannot make the reader grow without bound.

/** 256 KiB: the longest request line the server accepts (the newline not counted). */
export const MAX_LINE_BYTES = 256 * 1024;

export type LineEvent = { kind: "line"; line: string } | { kind: "too_large" };

export class LineReader {
  private parts: Buffer[] = [];
  private pending = 0;
  private overflowed = false;

  constructor(private readonly maxBytes = MAX_LINE_BYTES) {}

  /** Splits `chunk` into complete lines; once a line overflows, reports `too_large` and stops. */
  push(chunk: Buffer): LineEvent[] {
    if (this.overflowed) return [];
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const length = this.pending + (newline - start);
      if (length > this.maxBytes) return this.overflow(events);
      const piece = chunk.subarray(start, newline);
      const line = this.pending === 0 ? piece : Buffer.concat([...this.parts, piece], length);
      this.parts = [];
      this.pending = 0;
      start = newline + 1;
      const text = line.toString("utf8").replace(/\r$/, "");
      if (text.trim() !== "") events.push({ kind: "line", line: text });
    }
    const rest = chunk.length - start;
    if (rest > 0) {
      if (this.pending + rest > this.maxBytes) return this.overflow(events);
      // copy: the caller may reuse `chunk`
      this.parts.push(Buffer.from(chunk.subarray(start)));
      this.pending += rest;
    }
    return events;
  }

  private overflow(events: LineEvent[]): LineEvent[] {
    this.overflowed = true;
    this.parts = [];
    this.pending = 0;
    events.push({ kind: "too_large" });
    return events;
  }
}
