// workdir.md §9: `E/workdir-bindings.json`, task bindings (task_id, device_id) → workdir and repo
// bindings (repository, branch) → folder. Written only through src/core/store (atomic, 0600,
// locked read-modify-write); an unreadable or invalid file is set aside, never trusted.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../../log.js";
import { readJsonFile, removeLeftoverTempsOf, withFileLock, writeJsonFile } from "../../store/index.js";
import {
  RepoBindingSchema,
  TaskBindingSchema,
  type RepoBinding,
  type TaskBinding,
} from "../../../shared/schemas/workdir.js";

export { RepoBindingSchema, TaskBindingSchema, type RepoBinding, type TaskBinding };

export const WorkdirBindingsFileSchema = z.looseObject({
  version: z.literal(1),
  tasks: z.array(TaskBindingSchema).default([]),
  repos: z.array(RepoBindingSchema).default([]),
});
export type WorkdirBindingsFile = z.infer<typeof WorkdirBindingsFileSchema>;

export const TASK_BINDING_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;
export const TASK_BINDING_CAP = 10_000;

export function emptyBindings(): WorkdirBindingsFile {
  return { version: 1, tasks: [], repos: [] };
}

export function findTaskBinding(
  file: WorkdirBindingsFile,
  taskId: string,
  deviceId: string,
): TaskBinding | undefined {
  return file.tasks.find((t) => t.task_id === taskId && t.device_id === deviceId);
}

/** One binding per (task_id, device_id): the new one replaces any old one. */
export function upsertTaskBinding(tasks: readonly TaskBinding[], binding: TaskBinding): TaskBinding[] {
  return [
    ...tasks.filter((t) => !(t.task_id === binding.task_id && t.device_id === binding.device_id)),
    binding,
  ];
}

/** Drops bindings unused for `maxAgeMs` (when given) and keeps the `cap` most recently used. */
export function pruneTaskBindings(
  tasks: readonly TaskBinding[],
  options: { now: number; maxAgeMs?: number; cap?: number },
): TaskBinding[] {
  const cap = options.cap ?? TASK_BINDING_CAP;
  const fresh =
    options.maxAgeMs === undefined
      ? [...tasks]
      : tasks.filter((t) => options.now - t.used_at <= options.maxAgeMs!);
  if (fresh.length <= cap) return fresh;
  const keep = new Set([...fresh].sort((a, b) => b.used_at - a.used_at).slice(0, cap));
  return fresh.filter((t) => keep.has(t));
}

/** The repo binding for (key, branch), else (key, `*`). A missing branch matches only `*`. */
export function findRepoBinding(
  repos: readonly RepoBinding[],
  key: string,
  branch: string | null,
): RepoBinding | undefined {
  if (branch) {
    const exact = repos.find((r) => r.repo === key && r.branch === branch);
    if (exact) return exact;
  }
  return repos.find((r) => r.repo === key && r.branch === "*");
}

export function upsertRepoBinding(repos: readonly RepoBinding[], binding: RepoBinding): RepoBinding[] {
  return [...repos.filter((r) => !(r.repo === binding.repo && r.branch === binding.branch)), binding];
}

export interface BindingsStoreOptions {
  now: () => number;
  logger: Logger;
  /** Called with a person-readable warning when the file had to be set aside. */
  onWarning?: (warning: string) => void;
}

/** The bindings file with its lock, corruption handling and the LRU cap applied on every write. */
export class BindingsStore {
  constructor(
    readonly file: string,
    private readonly options: BindingsStoreOptions,
  ) {}

  /** The current content; an unreadable or invalid file is renamed and reads as empty. */
  async read(): Promise<WorkdirBindingsFile> {
    const result = await readJsonFile(this.file, WorkdirBindingsFileSchema);
    if (result.status === "ok") return result.value;
    if (result.status === "missing") return emptyBindings();
    return withFileLock(this.file, () => this.readLocked());
  }

  /**
   * Read-modify-write under the lock. `update` returns the new content and a result, or undefined
   * to leave the file as it is.
   */
  async update<R>(
    update: (current: WorkdirBindingsFile) => { value: WorkdirBindingsFile; result: R } | undefined,
  ): Promise<R | undefined> {
    return withFileLock(this.file, async () => {
      const current = await this.readLocked();
      const next = update(current);
      if (next === undefined) return undefined;
      const value = {
        ...next.value,
        tasks: pruneTaskBindings(next.value.tasks, { now: this.options.now() }),
      };
      // under the lock every writer holds: a temp file of this one is a killed writer's leftover
      await removeLeftoverTempsOf(this.file);
      await writeJsonFile(this.file, WorkdirBindingsFileSchema, value);
      return next.result;
    });
  }

  /** Start-up housekeeping: bindings unused for 90 days go. Returns how many were dropped. */
  async dropStale(maxAgeMs = TASK_BINDING_MAX_AGE_MS): Promise<number> {
    const dropped = await this.update((current) => {
      const tasks = pruneTaskBindings(current.tasks, { now: this.options.now(), maxAgeMs });
      if (tasks.length === current.tasks.length) return undefined;
      return { value: { ...current, tasks }, result: current.tasks.length - tasks.length };
    });
    return dropped ?? 0;
  }

  /**
   * Removes temp files a killed writer left next to the file (`.<name>.gatehouse-<random>`), once
   * they are older than `olderThanMs` so a live writer's temp file is never touched.
   */
  async removeLeftoverTemps(olderThanMs = 10 * 60 * 1000): Promise<number> {
    const dir = path.dirname(this.file);
    const prefix = `.${path.basename(this.file)}.gatehouse-`;
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names.filter((n) => n.startsWith(prefix))) {
      const full = path.join(dir, name);
      const stat = await fs.lstat(full).catch(() => null);
      if (!stat?.isFile() || this.options.now() - stat.mtimeMs < olderThanMs) continue;
      await fs.rm(full, { force: true });
      removed += 1;
    }
    return removed;
  }

  private async readLocked(): Promise<WorkdirBindingsFile> {
    const result = await readJsonFile(this.file, WorkdirBindingsFileSchema);
    if (result.status === "ok") return result.value;
    if (result.status === "missing") return emptyBindings();
    const aside = `${this.file}.corrupt-${this.options.now()}`;
    await fs.rename(this.file, aside);
    const warning =
      `The workdir bindings file ${this.file} was invalid (${result.error}); it was moved to ` +
      `${path.basename(aside)} and Gatehouse started with no bindings.`;
    this.options.logger.warn(warning);
    this.options.onWarning?.(warning);
    return emptyBindings();
  }
}
