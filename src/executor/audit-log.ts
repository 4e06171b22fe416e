// `E/audit.jsonl` (architecture.md "Data folders"): one JSON line per decision and per run, saying who
// decided. Appended with one write of the whole line (O_APPEND), so concurrent processes never
// interleave; never holds the environment or output. Rotated to `audit.jsonl.1` past 10 MiB.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { withFileLock } from "../core/store/index.js";

export const AUDIT_MAX_BYTES = 10 * 1024 * 1024;
/** Appends from several processes may land slightly out of time order; `since` reads this far past it. */
const SINCE_SLACK_MS = 5_000;
const READ_BLOCK = 64 * 1024;
const MAX_READ_LIMIT = 10_000;

export const DecidedBySchema = z.union([
  z.templateLiteral(["rule:", z.string().min(1)]),
  z.enum(["user", "fallback", "policy"]),
]);

export const AuditRecordSchema = z.looseObject({
  ts: z.number().int().nonnegative(),
  runId: z.string().min(1),
  event: z.enum(["decision", "run"]),
  agentId: z.string(),
  sessionKey: z.string(),
  source: z.string(),
  /** The command as shown to people (displayCommand). */
  command: z.string(),
  cwd: z.string(),
  decision: z.enum(["allow-once", "allow-always", "deny", "timeout", "no-approver", "cancelled"]),
  decidedBy: DecidedBySchema,
  reason: z.string(),
  /** Run lines: the exit code (null when killed or not started); decision lines: null. */
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  /** Run lines: spawn to exit; decision lines: request to decision (a prompt's wait included). */
  durationMs: z.number().nonnegative(),
  commandKey: z.string().optional(),
  signal: z.string().nullable().optional(),
  truncated: z.boolean().optional(),
  /** The command was decided under elevated mode, which ends then (epoch ms). */
  elevatedUntil: z.number().int().optional(),
  /** Settings the request asked for (they may only tighten). */
  requested: z.looseObject({ security: z.string().optional(), ask: z.string().optional() }).optional(),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

const APPEND_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0);

export interface AuditLogOptions {
  path: string;
  /** Rotate when the file would grow past this (default 10 MiB). */
  maxBytes?: number;
}

/** How long an idle log keeps its file open (bursts of runs reuse it; idle instances hold nothing). */
const KEEP_OPEN_MS = 1_000;

export class AuditLog {
  readonly path: string;
  private readonly maxBytes: number;
  private folderReady: Promise<unknown> | null = null;
  /** Appends of this instance run one after another (so the open file is never closed under a write). */
  private chain: Promise<void> = Promise.resolve();
  private open: { handle: fs.FileHandle; ino: bigint } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(options: AuditLogOptions) {
    this.path = options.path;
    this.maxBytes = options.maxBytes ?? AUDIT_MAX_BYTES;
  }

  get rotatedPath(): string {
    return `${this.path}.1`;
  }

  /** Appends one record (validated first: a bad record is a bug and throws). */
  async append(record: AuditRecord): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(AuditRecordSchema.parse(record))}\n`);
    const written = this.chain.then(() => this.writeLine(line));
    this.chain = written.catch(() => undefined);
    return written;
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
    let stat = await fs.lstat(this.path, { bigint: true }).catch(() => null);
    if (stat && stat.size > 0n && stat.size + BigInt(line.length) > BigInt(this.maxBytes)) {
      await this.rotate(line.length);
      stat = null;
    }
    if (this.open && (!stat || stat.ino !== this.open.ino)) await this.release();
    if (!this.open) {
      const handle = await fs.open(this.path, APPEND_FLAGS, 0o600);
      this.open = { handle, ino: (await handle.stat({ bigint: true })).ino };
    }
    const { bytesWritten } = await this.open.handle.write(line, 0, line.length);
    if (bytesWritten !== line.length) throw new Error(`short write to ${this.path}`);
    this.keepOpenForAWhile();
  }

  private keepOpenForAWhile(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), KEEP_OPEN_MS);
    this.idleTimer.unref();
  }

  private async release(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const open = this.open;
    this.open = null;
    await open?.handle.close().catch(() => undefined);
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
