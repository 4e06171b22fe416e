// Calls back when a file changes, however it is written: watches the folder (atomic writes replace the
// file by rename, which a watch on the file itself would lose) and compares the file's identity so
// that unrelated files in the folder do not count. Falls back to polling where folders cannot be watched.
import fs from "node:fs";
import path from "node:path";

function identity(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "missing";
  }
}

export function watchFile(
  file: string,
  onChange: () => void,
  options: { debounceMs?: number } = {},
): () => void {
  const debounceMs = options.debounceMs ?? 40;
  const name = path.basename(file);
  let last = identity(file);
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const check = () => {
    timer = null;
    if (closed) return;
    const now = identity(file);
    if (now === last) return;
    last = now;
    onChange();
  };
  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(check, debounceMs);
  };

  let watcher: fs.FSWatcher | null = null;
  let polling = false;
  const startPolling = () => {
    if (polling) return;
    polling = true;
    fs.watchFile(file, { interval: 500, persistent: false }, schedule);
  };
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, changed) => {
      if (changed === null || changed === name || String(changed).startsWith(`.${name}`)) schedule();
    });
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
      startPolling();
    });
  } catch {
    startPolling();
  }
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    watcher?.close();
    if (polling) fs.unwatchFile(file, schedule);
  };
}
