// Watching skill roots and the files the catalogue depends on (skills.md §11), with chokidar 4.
// Existing roots are watched recursively (3 levels); for a missing root, and for each watched file,
// the nearest existing parent folder is watched without recursion so that its appearance is noticed.
// Those parent folders are watched with plain `fs.watch` and a name filter, not chokidar: a parent
// such as the Gatehouse home also holds the audit log, and chokidar re-reads (and lstats) a whole
// folder on every change in it — per audit line, on the approval server's decided path (issue 12).
// This module only reports what changed; debouncing and versioning live in the catalogue.
import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import type { Logger } from "../../log.js";

/** Path segments whose contents never matter to the catalogue (matched as whole segments). */
const IGNORED_SEGMENTS = new Set([
  ".git",
  "node_modules",
  "dist",
  "build",
  ".venv",
  "venv",
  "__pycache__",
  ".cache",
]);

export function isIgnoredSegment(segment: string): boolean {
  return IGNORED_SEGMENTS.has(segment) || segment.endsWith(".egg-info");
}

/** Whether `file` lies under one of `roots` in an ignored folder (segments below the root only). */
export function isIgnoredPath(file: string, roots: readonly string[]): boolean {
  for (const root of roots) {
    if (file !== root && !file.startsWith(root + path.sep)) continue;
    const relative = path.relative(root, file);
    if (relative === "") return false;
    return relative.split(path.sep).some(isIgnoredSegment);
  }
  return false;
}

export type WatchedFileKind = "root" | "settings" | "registry" | "rescan";

export interface WatchPlan {
  /** Root folders; the existing ones are watched recursively, the missing ones through a parent. */
  roots: string[];
  /** Single files whose changes matter, by kind. */
  files: Array<{ path: string; kind: Exclude<WatchedFileKind, "root"> }>;
}

export type WatchChange = { kind: "files" } | { kind: WatchedFileKind; path: string };

async function isDirectory(p: string): Promise<boolean> {
  return fs.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function nearestExistingDir(p: string): Promise<string> {
  let current = path.dirname(p);
  for (;;) {
    if (await isDirectory(current)) return current;
    const parent = path.dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

export class SkillWatcher {
  private deep: FSWatcher | null = null;
  private shallow = new Map<string, fsSync.FSWatcher>();
  private deepPaths = new Set<string>();
  private shallowPaths = new Set<string>();
  /** Missing roots and watched files, each with the kind reported when it (or a parent) changes. */
  private sentinels: Array<{ path: string; kind: WatchedFileKind }> = [];
  private closed = false;
  /** The first plan is the watcher's start: what the roots hold then is what the catalogue builds. */
  private firstPlan = true;
  private retargeting: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      plan: () => Promise<WatchPlan>;
      onChange: (change: WatchChange) => void;
      logger: Logger;
    },
  ) {}

  /** Starts watching; resolves when the watchers have finished their initial scan. */
  start(): Promise<void> {
    return this.retarget();
  }

  /** Recomputes what to watch (roots appeared or vanished, settings or plugins changed). */
  retarget(): Promise<void> {
    this.retargeting = this.retargeting
      .then(() => this.applyPlan())
      .catch((error: unknown) => {
        this.options.logger.warn("Skill watcher could not update its folders", { error: String(error) });
      });
    return this.retargeting;
  }

  /** Resolves when the latest change of watched folders has taken effect. */
  settled(): Promise<void> {
    return this.retargeting;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.retargeting;
    await this.deep?.close();
    this.closeShallow();
    this.deep = null;
  }

  private async applyPlan(): Promise<void> {
    if (this.closed) return;
    const plan = await this.options.plan();
    const deep = new Set<string>();
    const sentinels: Array<{ path: string; kind: WatchedFileKind }> = [];
    for (const root of new Set(plan.roots)) {
      if (await isDirectory(root)) deep.add(root);
      else sentinels.push({ path: root, kind: "root" });
    }
    for (const file of plan.files) sentinels.push(file);
    const shallow = new Set<string>();
    for (const sentinel of sentinels) shallow.add(await nearestExistingDir(sentinel.path));
    if (this.closed) return;
    this.sentinels = sentinels;
    if (!sameSet(deep, this.deepPaths)) {
      const old = this.deep;
      const appeared = [...deep].some((root) => !this.deepPaths.has(root));
      this.deepPaths = deep;
      this.deep = await this.openDeep([...deep], (event, file) => this.onDeepEvent(event, file));
      await old?.close();
      // A root that appeared may have changed again between its sentinel firing and the new
      // watcher's initial scan; nothing reports that gap, so report the roots once more now.
      if (appeared && !this.firstPlan && !this.closed) this.options.onChange({ kind: "files" });
    }
    this.firstPlan = false;
    if (!sameSet(shallow, this.shallowPaths)) {
      this.shallowPaths = shallow;
      this.closeShallow();
      for (const dir of shallow) this.watchFolder(dir);
    }
    if (this.closed) {
      await this.deep?.close();
      this.closeShallow();
    }
  }

  /** A new chokidar watcher over the roots `paths` (3 levels), resolved once its initial scan is done. */
  private async openDeep(
    paths: string[],
    onEvent: (event: string, file: string) => void,
  ): Promise<FSWatcher | null> {
    if (paths.length === 0) return null;
    const watcher = chokidarWatch(paths, {
      depth: 3,
      ignoreInitial: true,
      followSymlinks: true,
      ignored: (file: string) => isIgnoredPath(file, paths),
    });
    watcher.on("all", (event, file) => {
      if (!this.closed) onEvent(event, file);
    });
    watcher.on("error", (error) => this.options.logger.warn("Skill watcher error", { error: String(error) }));
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
    return watcher;
  }

  /** Watches one folder's own entries (no recursion); each event names the entry that changed. */
  private watchFolder(dir: string): void {
    try {
      const watcher = fsSync.watch(dir, (event, name) => {
        if (this.closed) return;
        // No name (some platforms, overflow): any sentinel in this folder may have changed.
        if (name === null) return this.onShallowEvent(dir);
        // The folder itself was removed or renamed (reported under its own name; its watch ends
        // here): everything below it changed, and a parent that still exists is watched instead.
        if (event === "rename" && name.toString() === path.basename(dir) && !fsSync.existsSync(dir)) {
          this.onShallowEvent(dir);
          void this.retarget();
          return;
        }
        this.onShallowEvent(path.join(dir, name.toString()));
      });
      watcher.on("error", (error) => {
        this.options.logger.warn("Skill watcher error", { error: String(error) });
        // The folder itself went away: watch what is there now.
        void this.retarget();
      });
      this.shallow.set(dir, watcher);
    } catch (error) {
      this.options.logger.warn("Skill watcher could not watch a folder", { dir, error: String(error) });
    }
  }

  private closeShallow(): void {
    for (const watcher of this.shallow.values()) watcher.close();
    this.shallow.clear();
  }

  private onDeepEvent(event: string, file: string): void {
    this.options.onChange({ kind: "files" });
    // A watched root itself vanished: watch its parent instead.
    if (event === "unlinkDir" && this.deepPaths.has(file)) void this.retarget();
  }

  /** `file` changed: report the sentinels at or below it. */
  private onShallowEvent(file: string): void {
    for (const sentinel of this.sentinels) {
      const onTheWay = sentinel.path === file || sentinel.path.startsWith(file + path.sep);
      if (!onTheWay) continue;
      this.options.onChange({ kind: sentinel.kind, path: sentinel.path });
      // A parent of a missing root appeared: watch closer (or the root itself).
      if (sentinel.kind === "root" || sentinel.kind === "registry") void this.retarget();
    }
  }
}
