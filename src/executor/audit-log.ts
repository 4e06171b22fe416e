// `E/audit.jsonl` (architecture.md "Data folders"): one JSON line per decision and per run, saying who
// decided. Appended with one write of whole lines (O_APPEND), so concurrent processes never
// interleave; never holds the environment or output. Rotated to `audit.jsonl.1` past 10 MiB. Lines
// that arrive while a write is under way go out together in the next write (one lstat and one write
// per batch on the kept-open file), so a busy server pays for its audit once per batch, not per line.
// A batch is written one event-loop turn after its first line (so the reply that caused it leaves
// first), and at least 5 ms after the previous write (a stream of decisions shares writes), with
// synchronous lstat and write calls: an append of a few lines to a local file costs a few
// microseconds that way, against ~50 µs of main-thread work per call through the thread pool (issue 12).
// Records are serialised when written, after the reply.
import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { explainWriteError, withFileLock } from "../core/store/index.js";
import { AuditRecordSchema, type AuditRecord } from "../shared/schemas/audit.js";

export { AuditRecordSchema, type AuditRecord } from "../shared/schemas/audit.js";

export const AUDIT_MAX_BYTES = 10 * 1024 * 1024;
/** Appends from several processes may land slightly out of time order; `since` reads this far past it. */
const SINCE_SLACK_MS = 5_000;
const READ_BLOCK = 64 * 1024;
const MAX_READ_LIMIT = 10_000;

const APPEND_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0);

export interface AuditLogOptions {
  path: string;
  /** Rotate when the file would grow past this (default 10 MiB). */
  maxBytes?: number;
}

/** How long an idle log keeps its file open (bursts of runs reuse it; idle instances hold nothing). */
const KEEP_OPEN_MS = 1_000;
/**
 * Writes follow each other at least this far apart: under a stream of decisions the lines of a few
 * milliseconds go out in one write (one lstat, one write, one folder event for the watchers of the home)
 * instead of one write per request; a line that arrives after a quiet spell goes out after this turn.
 */
const MIN_WRITE_SPACING_MS = 5;
/** At most this many characters (≤ 3 MiB of UTF-8) go out in one write; the rest follows in the next. */
const MAX_BATCH_CHARS = 1024 * 1024;

export class AuditLog {
  readonly path: string;
  private readonly maxBytes: number;
  private folderReady: Promise<unknown> | null = null;
  /** Writes of this instance run one after another (so the open file is never closed under a write). */
  private chain: Promise<void> = Promise.resolve();
  /**
   * Records waiting for the next write, and that write (settled when they are on disk). They are
   * turned into lines when written, after the reply that caused them has left.
   */
  private queue: AuditRecord[] = [];
  private nextWrite: Promise<void> | null = null;
  private open: { fd: number; ino: bigint } | null = null;
  /** The open file ends in the middle of a line (see writeLine). */
  private tornTail = false;
  private idleTimer: NodeJS.Timeout | null = null;
  /** performance.now() when the last write was made. */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(options: AuditLogOptions) {
    this.path = options.path;
    this.maxBytes = options.maxBytes ?? AUDIT_MAX_BYTES;
  }

  get rotatedPath(): string {
    return `${this.path}.1`;
  }

  /**
   * Appends one record (validated first: a bad record is a bug and throws). Settles when the write
   * that carries it is done; close() waits for every line appended before it.
   */
  async append(record: AuditRecord): Promise<void> {
    return this.appendBuilt(AuditRecordSchema.parse(record));
  }

  /**
   * Appends a record built by Gatehouse's own typed code (the gate's decision and run lines): its type
   * is the check, so it skips the zod pass of append() (a measurable share of a decided request).
   * The record is serialised when its batch is written: the caller must not change it afterwards.
   */
  appendBuilt(record: AuditRecord): Promise<void> {
    this.queue.push(record);
    if (this.nextWrite) return this.nextWrite;
    const written = this.chain.then(() => this.writeTime()).then(() => this.writeQueued());
    this.nextWrite = written;
    this.chain = written.catch(() => undefined);
    return written;
  }

  /** After this turn (the reply that caused the line leaves first), and MIN_WRITE_SPACING_MS after the last write. */
  private writeTime(): Promise<void> {
    const wait = this.lastWriteAt + MIN_WRITE_SPACING_MS - performance.now();
    if (wait <= 0) return afterThisTurn();
    return new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Writes the lines queued for this write (exactly those whose appends got its promise), in batches. */
  private async writeQueued(): Promise<void> {
    this.nextWrite = null;
    this.lastWriteAt = performance.now();
    const lines = this.queue.splice(0).map((record) => `${JSON.stringify(record)}\n`);
    let start = 0;
    while (start < lines.length) {
      let end = start;
      let size = 0;
      // lengths in UTF-16 units: a batch stays under MAX_BATCH_CHARS characters (one conversion, one write)
      while (end < lines.length && (end === start || size + lines[end]!.length <= MAX_BATCH_CHARS)) {
        size += lines[end]!.length;
        end++;
      }
      await this.writeLine(Buffer.from(end - start === 1 ? lines[start]! : lines.slice(start, end).join("")));
      start = end;
    }
  }

  /** Closes the file now (it also closes itself after a second without appends). */
  close(): Promise<void> {
    const closed = this.chain.then(() => this.release());
    this.chain = closed.catch(() => undefined);
    return closed;
  }

  private async writeLine(line: Buffer): Promise<void> {
    this.folderReady ??= fs.mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
    await this.folderReady;
    // One lstat per line: the current size (another process may append too) and whether the path
    // still names the file we hold open (another process may have rotated it, or put a link there).
    let stat = currentFile(this.path);
    if (stat && stat.size > 0n && stat.size + BigInt(line.length) > BigInt(this.maxBytes)) {
      await this.rotate(line.length);
      stat = null;
    }
    if (this.open && (!stat || stat.ino !== this.open.ino)) this.release();
    if (!this.open) {
      let fd: number;
      try {
        fd = fsSync.openSync(this.path, APPEND_FLAGS, 0o600);
      } catch (error) {
        throw explainWriteError(error, this.path, "append to"); // a read-only E, a full disk: said so
      }
      const opened = fsSync.fstatSync(fd, { bigint: true });
      this.open = { fd, ino: opened.ino };
      // A write cut short (a full disk, a kill mid-write) may have left a torn last line: the next
      // line starts on a line of its own, or it would be glued to the torn one and lost with it.
      this.tornTail = endsMidLine(this.path, opened.size);
    }
    const data = this.tornTail ? Buffer.concat([NEWLINE, line]) : line;
    let bytesWritten: number;
    try {
      bytesWritten = fsSync.writeSync(this.open.fd, data, 0, data.length);
    } catch (error) {
      this.release(); // the next write opens again and looks at the tail
      throw explainWriteError(error, this.path, "append to");
    }
    if (bytesWritten !== data.length) {
      this.release();
      throw new Error(
        `short write to ${this.path} (${bytesWritten} of ${data.length} bytes: is the disk full?)`,
      );
    }
    this.tornTail = false;
    this.keepOpenForAWhile();
  }

  private keepOpenForAWhile(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), KEEP_OPEN_MS);
    this.idleTimer.unref();
  }

  private release(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const open = this.open;
    this.open = null;
    if (open) fsSync.close(open.fd, () => undefined);
  }

  private async rotate(incoming: number): Promise<void> {
    // Under the lock and re-checked, so two processes do not both rotate (the second would replace
    // the first's full generation with an almost empty file).
    await withFileLock(this.path, async () => {
      const stat = await fs.stat(this.path).catch(() => null);
      if (stat && stat.size > 0 && stat.size + incoming > this.maxBytes)
        await fs.rename(this.path, this.rotatedPath);
    });
  }

  /**
   * The newest records first, at most `limit` (1…10 000), only those at or after `since` (epoch ms)
   * when given. Reads from the end of the file backwards, so the cost follows `limit`, not the
   * file's size; a torn or invalid line is skipped.
   */
  async read({ limit, since }: { limit: number; since?: number }): Promise<AuditRecord[]> {
    const wanted = Math.min(MAX_READ_LIMIT, Math.max(1, Math.floor(limit)));
    const out: AuditRecord[] = [];
    for (const file of [this.path, this.rotatedPath]) {
      const finished = await readLinesBackwards(file, (line) => {
        const record = parseRecord(line);
        if (!record) return true;
        if (since !== undefined && record.ts < since) return record.ts >= since - SINCE_SLACK_MS;
        out.push(record);
        return out.length < wanted;
      });
      if (finished) break;
    }
    return out;
  }
}

/** The log file's lstat, or null when it is not there (or cannot be looked at: the open then says why). */
function currentFile(file: string): fsSync.BigIntStats | null {
  try {
    return fsSync.lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

const NEWLINE = Buffer.from("\n");

/** Whether `file` (of `size` bytes) ends without a newline: one byte read, once per open. */
function endsMidLine(file: string, size: bigint): boolean {
  if (size === 0n) return false;
  let fd: number | null = null;
  try {
    fd = fsSync.openSync(file, fsSync.constants.O_RDONLY | (fsSync.constants.O_NOFOLLOW ?? 0));
    const last = Buffer.alloc(1);
    return fsSync.readSync(fd, last, 0, 1, Number(size) - 1) === 1 && last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== null) fsSync.closeSync(fd);
  }
}

/** Settles after the current event-loop turn's I/O (replies written during it have left). */
function afterThisTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function parseRecord(line: string): AuditRecord | null {
  if (line.trim() === "") return null;
  try {
    const parsed = AuditRecordSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Calls `visit` for each line from the last to the first until it returns false; true when it stopped early. */
async function readLinesBackwards(file: string, visit: (line: string) => boolean): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    let position = (await handle.stat()).size;
    let carry = Buffer.alloc(0); // the start of a line whose beginning lies in an earlier block
    while (position > 0) {
      const size = Math.min(READ_BLOCK, position);
      position -= size;
      const block = Buffer.alloc(size);
      await handle.read(block, 0, size, position);
      const data = carry.length ? Buffer.concat([block, carry]) : block;
      let end = data.length;
      for (let i = data.length - 1; i >= 0; i--) {
        if (data[i] !== 0x0a) continue;
        if (i + 1 < end && !visit(data.subarray(i + 1, end).toString("utf8"))) return true;
        end = i;
      }
      carry = Buffer.from(data.subarray(0, end));
    }
    if (carry.length && !visit(carry.toString("utf8"))) return true;
    return false;
  } finally {
    await handle.close();
  }
}
