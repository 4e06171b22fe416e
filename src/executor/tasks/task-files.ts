// The files a task's agent runs with, on disk only while it runs: the launch spec's files in
// `E/runtime/<task_id>` (hook settings, MCP config with the task's token) are written for each turn and
// deleted once its agent has exited; leftovers of a crash go at start-up, and so do non-project tasks'
// own Claude folders (`E/task-claude/<task_id>`) nobody has used for a long time.
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../core/log.js";
import type { LaunchFile } from "../../core/runtime/index.js";
import { writeFileAtomic } from "../../core/store/index.js";

/** The spec's files (0600, folders 0700). They hold the task's token: removeRuntimeFolder deletes them. */
export async function writeLaunchFiles(files: LaunchFile[]): Promise<void> {
  for (const file of files)
    await writeFileAtomic(file.path, file.content, { mode: file.mode, dirMode: 0o700 });
}

/**
 * Deletes a task's runtime folder `E/runtime/<task_id>` (hook settings, MCP config with the task's
 * token) once its agent has exited (every turn writes it anew), or another folder of a task that is
 * over. A failure is logged, never thrown.
 */
export async function removeRuntimeFolder(folder: string, logger: Logger): Promise<void> {
  try {
    await fs.rm(folder, { recursive: true, force: true });
  } catch (error) {
    logger.warn(`could not delete ${folder}`, { error });
  }
}

/** At start-up no agent runs: whatever is left in `E/runtime` (a crash, a kill) is deleted. */
export async function sweepRuntimeFolders(runtimeDir: string, logger: Logger): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(runtimeDir);
  } catch {
    return;
  }
  for (const name of names) await removeRuntimeFolder(path.join(runtimeDir, name), logger);
}

/**
 * Non-project tasks' own Claude folders (`E/task-claude/<task_id>`) not touched for `maxAgeMs` (the age
 * after which a task's workdir binding is dropped too) go at start-up: their sessions cannot be resumed.
 */
export async function sweepTaskClaudeHomes(
  folder: string,
  now: number,
  maxAgeMs: number,
  logger: Logger,
): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const home = path.join(folder, name);
    const entries = await fs.readdir(home).catch(() => [] as string[]);
    const times = await Promise.all(
      [home, ...entries.map((e) => path.join(home, e))].map((p) =>
        fs.lstat(p).then(
          (st) => st.mtimeMs,
          () => 0,
        ),
      ),
    );
    if (now - Math.max(...times) > maxAgeMs) await removeRuntimeFolder(home, logger);
  }
}
