// Keeps a child's output up to a cap and counts the rest (exec-policy.md "Running", device-protocol.md
// §6.5). Kept bytes live in one growing Buffer per stream, so memory is bounded by the cap whatever
// the child prints and however small its writes are.

export type OutputMode = "combined" | "separate";
export type StreamName = "stdout" | "stderr";

export const TRUNCATION_MARKER = "\n... (truncated)";
export const COMBINED_DEFAULT_CAP = 200_000;
export const SEPARATE_DEFAULT_CAP = 1024 * 1024;
export const MAX_OUTPUT_CAP = 5 * 1024 * 1024;

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  truncated: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
}

/** The cap a request gets: its own when given (clamped to 0…5 MiB), else the mode's default. */
export function effectiveCap(mode: OutputMode, requested?: number): number {
  const fallback = mode === "combined" ? COMBINED_DEFAULT_CAP : SEPARATE_DEFAULT_CAP;
  if (requested === undefined || !Number.isFinite(requested)) return fallback;
  return Math.min(MAX_OUTPUT_CAP, Math.max(0, Math.floor(requested)));
}

class KeptBytes {
  private buffer = Buffer.alloc(0);
  length = 0;
  /** Every byte the stream produced, kept or not. */
  total = 0;
  cut = false;

  append(chunk: Buffer, room: number): number {
    this.total += chunk.length;
    const take = Math.min(room, chunk.length);
    if (take < chunk.length) this.cut = true;
    if (take <= 0) return 0;
    if (this.length + take > this.buffer.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(this.length + take, Math.min(this.buffer.length * 2 || 65_536, room + this.length)),
      );
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.length, 0, take);
    this.length += take;
    return take;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Drops a multi-byte UTF-8 sequence that the cut left incomplete at the end of `bytes`. */
export function trimIncompleteUtf8Tail(bytes: Buffer): Buffer {
  const end = bytes.length;
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const byte = bytes[i] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return end - i >= needed ? bytes : bytes.subarray(0, i);
  }
  return bytes;
}

export class OutputCapture {
  private readonly streams: Record<StreamName, KeptBytes> = {
    stdout: new KeptBytes(),
    stderr: new KeptBytes(),
  };

  constructor(
    readonly mode: OutputMode,
    readonly cap: number,
  ) {}

  push(stream: StreamName, chunk: Buffer): void {
    const target = this.streams[stream];
    const room =
      this.mode === "combined"
        ? this.cap - this.streams.stdout.length - this.streams.stderr.length
        : this.cap - target.length;
    target.append(chunk, room);
  }

  result(): CapturedOutput {
    const text = (s: KeptBytes) => {
      if (!s.cut) return s.bytes().toString("utf8");
      const kept = trimIncompleteUtf8Tail(s.bytes()).toString("utf8");
      return this.mode === "combined" ? `${kept}${TRUNCATION_MARKER}` : kept;
    };
    const { stdout, stderr } = this.streams;
    return {
      stdout: text(stdout),
      stderr: text(stderr),
      truncated: stdout.cut || stderr.cut,
      stdoutTruncated: stdout.cut,
      stderrTruncated: stderr.cut,
      stdoutBytes: stdout.total,
      stderrBytes: stderr.total,
    };
  }
}

/**
 * The last output of a run in arrival order (for `exec.finished`), bounded whatever the child prints:
 * a ring of the last bytes, copied in (the chunks it is given may be views of a reused read buffer).
 */
export class OutputTail {
  private ring: Buffer | null = null;
  /** Where the next byte goes. */
  private end = 0;
  /** How many bytes the ring holds (at most its length). */
  private held = 0;
  private readonly maxBytes: number;

  constructor(readonly maxChars: number) {
    this.maxBytes = maxChars * 4; // a character is at most 4 UTF-8 bytes
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0 || this.maxBytes === 0) return;
    this.ring ??= Buffer.allocUnsafe(this.maxBytes);
    const ring = this.ring;
    const bytes = chunk.length > ring.length ? chunk.subarray(chunk.length - ring.length) : chunk;
    const first = Math.min(bytes.length, ring.length - this.end);
    bytes.copy(ring, this.end, 0, first);
    bytes.copy(ring, 0, first);
    this.end = (this.end + bytes.length) % ring.length;
    this.held = Math.min(ring.length, this.held + bytes.length);
  }

  private bytes(): Buffer {
    const ring = this.ring;
    if (!ring) return Buffer.alloc(0);
    if (this.held < ring.length) return ring.subarray(0, this.held);
    return Buffer.concat([ring.subarray(this.end), ring.subarray(0, this.end)]);
  }

  text(): string {
    const bytes = this.bytes();
    let start = 0;
    while (start < bytes.length && start < 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    let text = bytes.subarray(start).toString("utf8");
    if (text.length > this.maxChars) {
      text = text.slice(text.length - this.maxChars);
      const first = text.charCodeAt(0);
      if (first >= 0xdc00 && first <= 0xdfff) text = text.slice(1); // half of a surrogate pair
    }
    return text;
  }
}
