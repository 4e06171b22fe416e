// The capability store (device-protocol.md §7.2, §7.5): `store/skills/<id>-<ns>-<name>`,
// `store/plugins/<id>-<mp>-<name>-<version>`, and the work folders `.staging` and `.trash`.
// A package is extracted into staging and swapped into place with two renames, so a reader (or a
// crash) sees the old folder or the new one, and a failed swap puts the old folder back.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

export interface StoreFs {
  rename(from: string, to: string): Promise<void>;
}

const realFs: StoreFs = { rename: (from, to) => fs.rename(from, to) };

export interface StoreOptions {
  platform?: NodeJS.Platform;
  /** Injected in tests to simulate Windows locking a folder. */
  fs?: StoreFs;
  /** How long a Windows EPERM/EBUSY rename is retried (default 2 s). */
  retryMs?: number;
}

/** Renames, retrying for a while on Windows where antivirus or indexers briefly lock folders. */
export async function renameWithRetry(
  from: string,
  to: string,
  { platform = process.platform, fs: ops = realFs, retryMs = 2_000 }: StoreOptions = {},
): Promise<void> {
  const deadline = Date.now() + retryMs;
  let delay = 10;
  for (;;) {
    try {
      await ops.rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const retriable = platform === "win32" && (code === "EPERM" || code === "EBUSY");
      if (!retriable || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 200);
    }
  }
}

export class CapabilityStore {
  readonly skillsDir: string;
  readonly pluginsDir: string;
  readonly stagingDir: string;
  readonly trashDir: string;

  constructor(
    readonly root: string,
    private readonly options: StoreOptions = {},
  ) {
    this.skillsDir = path.join(root, "skills");
    this.pluginsDir = path.join(root, "plugins");
    this.stagingDir = path.join(root, ".staging");
    this.trashDir = path.join(root, ".trash");
  }

  skillFolder(skillId: number, namespace: string, name: string): string {
    return path.join(this.skillsDir, `${skillId}-${namespace}-${name}`);
  }

  pluginFolder(installedPluginId: number, marketplace: string, name: string, version: string): string {
    return path.join(this.pluginsDir, `${installedPluginId}-${marketplace}-${name}-${version}`);
  }

  /**
   * Start-up: empties the work folders left by an interrupted sync and makes sure the layout exists.
   * `keepTrash` while a sync journal still needs the old folders there (sync-journal.ts).
   */
  async prepare(options: { keepTrash?: boolean } = {}): Promise<void> {
    await fs.rm(this.stagingDir, { recursive: true, force: true });
    if (!options.keepTrash) await fs.rm(this.trashDir, { recursive: true, force: true });
    await this.ensureLayout();
  }

  async ensureLayout(): Promise<void> {
    for (const dir of [this.skillsDir, this.pluginsDir, this.stagingDir, this.trashDir]) {
      await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    }
  }

  /** A new empty folder under `.staging`. */
  async newStaging(): Promise<string> {
    await fs.mkdir(this.stagingDir, { recursive: true, mode: 0o755 });
    const dir = path.join(this.stagingDir, randomBytes(8).toString("hex"));
    await fs.mkdir(dir, { mode: 0o755 });
    return dir;
  }

  async discard(dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
  }

  /** A fresh name in `.trash` for a folder a swap will replace (the sync journal records it first). */
  trashPath(): string {
    return path.join(this.trashDir, randomBytes(8).toString("hex"));
  }

  /**
   * Moves `staged` to `dest`: the old folder (if any) goes to `.trash` first; if the second rename
   * fails, it is renamed back, so `dest` never ends up missing because of this call. With `keep`, the
   * old folder stays at that path in `.trash` (until the manifest records the sync: sync-journal.ts);
   * otherwise it is deleted at once.
   */
  async swapIntoPlace(staged: string, dest: string, keep?: string): Promise<void> {
    await fs.mkdir(path.dirname(dest), { recursive: true, mode: 0o755 });
    let trashed: string | null = null;
    if (await exists(dest)) {
      await fs.mkdir(this.trashDir, { recursive: true, mode: 0o755 });
      trashed = keep ?? this.trashPath();
      await renameWithRetry(dest, trashed, this.options);
    }
    try {
      await renameWithRetry(staged, dest, this.options);
    } catch (error) {
      if (trashed) await renameWithRetry(trashed, dest, this.options);
      throw error;
    }
    if (trashed && !keep) await fs.rm(trashed, { recursive: true, force: true });
  }

  /** Deletes every entry of `store/skills` and `store/plugins` that no manifest `store_path` names. */
  async collectGarbage(referenced: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = [];
    for (const dir of [this.skillsDir, this.pluginsDir]) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const full = path.join(dir, name);
        if (referenced.has(full)) continue;
        await fs.rm(full, { recursive: true, force: true }); // rm never follows links
        removed.push(full);
      }
    }
    return removed;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
