// The one way the app writes a file: temp file in the same folder, fsync, rename, fsync the folder.
// A reader sees either the old bytes or the new bytes, never a mix.
import { randomBytes } from "node:crypto";
// node:fs's `promises`, loaded on first use: the served hook never reads a file asynchronously (issue 12)
import { promises as fs } from "node:fs";
import path from "node:path";
import { explainWriteError } from "./write-error.js";

export interface AtomicWriteOptions {
  /** Mode of the written file. Default 0o600. Ignored when `keepMode` finds an existing file. */
  mode?: number;
  /** Keep the mode of the file being replaced (user-owned files such as ~/.claude/settings.json). */
  keepMode?: boolean;
  /**
   * Create a missing parent folder with this mode (default 0o700). An existing parent is used as it
   * is: the app never changes the mode of a folder it did not create.
   */
  dirMode?: number;
}

export class UnsafeWriteTargetError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`Refusing to write ${file}: ${reason}`);
    this.name = "UnsafeWriteTargetError";
  }
}

/** Throws when `file` is a symlink or a hard link, or not a regular file; returns its mode when it exists. */
export async function assertSafeWriteTarget(file: string): Promise<number | null> {
  let stat;
  try {
    stat = await fs.lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  if (stat.isSymbolicLink()) throw new UnsafeWriteTargetError(file, "it is a symbolic link");
  if (!stat.isFile()) throw new UnsafeWriteTargetError(file, "it is not a regular file");
  if (stat.nlink > 1) throw new UnsafeWriteTargetError(file, "it is a hard link shared with another path");
  return stat.mode & 0o7777;
}

export function tempNameFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.gatehouse-${randomBytes(6).toString("hex")}`);
}

/** Writes `file` atomically; a full disk or a folder it cannot write is a StoreWriteError saying so. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  try {
    await writeAtomically(file, data, options);
  } catch (error) {
    throw explainWriteError(error, file);
  }
}

/**
 * Removes the temp files writes of `file` left when they were cut short (a kill, a crash: the rename
 * never came). Only for a caller that holds the file's lock (core/store's file-lock), under which every
 * writer of the file writes: any temp file of it then is a leftover, not a write under way.
 */
export async function removeLeftoverTempsOf(file: string): Promise<number> {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.gatehouse-`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^[0-9a-f]{12}$/.test(name.slice(prefix.length))) continue;
    await fs.rm(path.join(dir, name), { force: true });
    removed += 1;
  }
  return removed;
}

async function writeAtomically(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: options.dirMode ?? 0o700 });
  const existingMode = await assertSafeWriteTarget(file);
  const mode = options.keepMode && existingMode !== null ? existingMode : (options.mode ?? 0o600);
  const temp = tempNameFor(file);
  const handle = await fs.open(temp, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode); // the umask may have narrowed or widened the create mode
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return; // folders cannot be opened for fsync on Windows
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // some file systems refuse fsync on folders; the rename is still atomic
  } finally {
    await handle.close();
  }
}
