// A cross-process lock next to a file (`<file>.lock`, created with O_EXCL), so two CLI processes or
// the UI and the CLI never interleave a read-modify-write. A lock whose owner process is gone, or
// that is older than `staleMs`, is broken.
import { randomBytes } from "node:crypto";
// node:fs's `promises`, loaded on first use: the served hook never reads a file asynchronously (issue 12)
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { explainWriteError } from "./write-error.js";

export interface FileLockOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** A lock file older than this is taken over (default 30 s; holders only do short updates). */
  staleMs?: number;
}

export class LockTimeoutError extends Error {
  constructor(readonly lockFile: string) {
    super(`Timed out waiting for the lock ${lockFile}; if no Gatehouse process is running, delete it.`);
    this.name = "LockTimeoutError";
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function lockIsStale(lockFile: string, staleMs: number): Promise<boolean> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(lockFile, "utf8"), fs.stat(lockFile)]);
    const age = Date.now() - stat.mtimeMs;
    if (age > staleMs) return true;
    const [pidText, host] = text.split("\n");
    // Only the no-hard-link fallback can leave an empty lock; its owner writes within milliseconds.
    if (!pidText && age > 1_000) return true;
    const pid = Number(pidText);
    if (host === os.hostname() && Number.isInteger(pid) && pid > 0 && !processIsAlive(pid)) return true;
    return false;
  } catch (error) {
    // vanished, or still being written by its owner: not stale, retry
    void error;
    return false;
  }
}

/**
 * Creates `lockFile` holding our pid, or throws EEXIST. The content is written to a temp file first
 * and hard-linked into place, so a lock file never exists without its owner's pid (a process killed
 * mid-create leaves at most a temp file, not an empty lock that looks alive).
 */
async function createLockFile(lockFile: string): Promise<void> {
  const temp = `${lockFile}.${process.pid}-${randomBytes(4).toString("hex")}`;
  let written = false;
  try {
    // inside the try: on a full disk the create succeeds and the write fails, leaving an empty temp
    await fs.writeFile(temp, `${process.pid}\n${os.hostname()}\n`, { mode: 0o600, flag: "wx" });
    written = true;
    await fs.link(temp, lockFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!written || (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV")) throw error;
    // File systems without hard links: exclusive create, then write (the short window is accepted there).
    const handle = await fs.open(lockFile, "wx", 0o600);
    try {
      await handle.writeFile(`${process.pid}\n${os.hostname()}\n`);
    } finally {
      await handle.close();
    }
  } finally {
    await fs.rm(temp, { force: true });
  }
}

export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const lockFile = `${file}.lock`;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    try {
      await createLockFile(lockFile);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        await fs.mkdir(path.dirname(lockFile), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== "EEXIST") throw explainWriteError(error, file);
      if (await lockIsStale(lockFile, staleMs)) {
        // Rename first so two processes that both saw it stale do not both delete a fresh lock.
        const claimed = `${lockFile}.stale-${process.pid}-${Date.now()}`;
        await fs.rename(lockFile, claimed).then(
          () => fs.rm(claimed, { force: true }),
          () => undefined,
        );
        continue;
      }
      if (Date.now() > deadline) throw new LockTimeoutError(lockFile);
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    await removeDeadOwnersTemps(lockFile);
    return await fn();
  } finally {
    await fs.rm(lockFile, { force: true });
  }
}

/**
 * The lock's own temp files (`<lock>.<pid>-<random>`, `<lock>.stale-<pid>-<ms>`) that a process killed
 * while taking or breaking the lock left behind: removed once their owner is gone (a live owner is
 * between two calls of createLockFile, and its own `finally` removes them).
 */
async function removeDeadOwnersTemps(lockFile: string): Promise<void> {
  const base = path.basename(lockFile);
  const names = await fs.readdir(path.dirname(lockFile)).catch(() => [] as string[]);
  for (const name of names) {
    const match = /^\.(?:stale-)?(\d+)-[0-9a-f]+$/.exec(name.slice(base.length));
    if (!name.startsWith(base) || !match) continue;
    if (processIsAlive(Number(match[1]))) continue;
    await fs.rm(path.join(path.dirname(lockFile), name), { force: true });
  }
}
