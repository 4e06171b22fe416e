// `gatehouse login` / `logout` run in another process than the one holding the connection. They touch
// `E/.credentials-changed` (a timestamp, never a secret) and the running device, which watches E,
// re-reads its token and backend URL at once: a new token ends the sign-in-required pause (§2).
import fs from "node:fs";
import path from "node:path";
import type { AppPaths } from "../core/paths.js";
import { writeFileAtomic } from "../core/store/index.js";

export const CREDENTIALS_SIGNAL = ".credentials-changed";

export function credentialsSignalPath(paths: Pick<AppPaths, "executorHome">): string {
  return path.join(paths.executorHome, CREDENTIALS_SIGNAL);
}

export async function signalCredentialsChanged(
  paths: Pick<AppPaths, "executorHome">,
  now = new Date(),
): Promise<void> {
  await writeFileAtomic(credentialsSignalPath(paths), `${now.toISOString()}\n`, { mode: 0o600 });
}

/**
 * Calls `onChange` (debounced) when the signal file or `device-config.json` changes. Returns the
 * function that stops watching. A folder that cannot be watched means no live reload, not an error.
 */
export function watchCredentials(
  paths: Pick<AppPaths, "executorHome" | "deviceConfig">,
  onChange: () => void,
  options: { debounceMs?: number; onError?: (error: Error) => void } = {},
): () => void {
  const names = new Set([CREDENTIALS_SIGNAL, path.basename(paths.deviceConfig)]);
  let timer: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher;
  try {
    fs.mkdirSync(paths.executorHome, { recursive: true, mode: 0o700 });
    watcher = fs.watch(paths.executorHome, { persistent: false }, (_event, name) => {
      if (name !== null && !names.has(name.toString())) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, options.debounceMs ?? 150);
    });
  } catch (error) {
    options.onError?.(error as Error);
    return () => undefined;
  }
  watcher.on("error", (error) => options.onError?.(error));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
