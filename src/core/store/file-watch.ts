// Tells a long-running reader whether a file may have changed since it last looked, without a
// filesystem call per look: the file's folder is watched (atomic writes replace the file, so the
// folder, not the file, sees every version; a chmod shows as an event too). Until an event, the last
// reading stands for at most `recheckMs` (default 1 s): events can be lost (a watcher limit, a folder
// replaced), so the reader still looks again once a second while it is being used — never on a timer.
// Where no watcher can be had, every look is a change (the reader re-reads, as without a watch).
import fs from "node:fs";
import path from "node:path";

export interface FileWatch {
  /** True when the file may have changed since the previous call that returned true (or ever). */
  changed(): boolean;
  /** Stops watching; every later `changed()` is true. */
  close(): void;
}

export interface FileWatchOptions {
  recheckMs?: number;
  /** Monotonic milliseconds (default: the global performance.now; importing node:perf_hooks costs start-up). */
  now?: () => number;
}

export function watchFile(file: string, options: FileWatchOptions = {}): FileWatch {
  const name = path.basename(file);
  const recheckMs = options.recheckMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  let dirty = true;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let watcher: fs.FSWatcher | null = null;
  try {
    // not persistent: a watch never keeps the process alive on its own
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, changed) => {
      if (changed === null || changed === name || String(changed) === name) dirty = true;
    });
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null;
  }
  return {
    changed() {
      const t = now();
      if (watcher !== null && !dirty && t - checkedAt < recheckMs) return false;
      dirty = false;
      checkedAt = t;
      return true;
    },
    close() {
      watcher?.close();
      watcher = null;
    },
  };
}
