// Global capability sync (device-protocol.md §7): one `device:sync_capabilities` payload in, one ack
// out. Syncs run one at a time in arrival order, in three stages:
//   1. validate and load — a failure is a hard error and nothing has changed;
//   2. plan every item (paths, lengths, collisions, conflicts — sync-plan.ts), then download and
//      stage packages — only `store/.staging` changes, and a cancelled sync (the runner stopping)
//      ends here as a hard error with nothing changed;
//   3. apply: replace-removals, store migrations, swaps, links, MCPs, Claude registry, manifest,
//      clean-up. It runs to the end once begun (it only renames, links and writes small files).
// Stage 3 first writes a journal of what it replaces (sync-journal.ts); a process killed during it is
// repaired at the next start, before the first heartbeat: the sync is undone if the manifest does not
// record it, finished if it does (reconcile.ts).
import fs from "node:fs/promises";
import type { Logger } from "../../log.js";
import type { AppPaths } from "../../paths.js";
import { DEFAULT_ARCHIVE_LIMITS, extractPackage, type ArchiveLimits } from "./archive.js";
import {
  claudeMarketplaceProblem,
  readKnownMarketplaces,
  syncClaudeMarketplaces,
} from "./claude-marketplaces.js";
import { claudeKeysOf, ourInstallPaths, unregisterPlugin } from "./claude-plugin-keys.js";
import { claudePluginKey } from "../naming.js";
import { registerCodexPlugins } from "./codex-marketplaces.js";
import { claudeFilePaths, loadClaudeFiles, writeClaudeFiles, type ClaudeFiles } from "./claude-registry.js";
import {
  checksumError,
  DEFAULT_DOWNLOAD_LIMITS,
  defaultSkillDownloadPath,
  resolvePackageUrl,
  type DownloadLimits,
  type PackageDownloader,
} from "../download.js";
import {
  isHardError,
  lastSyncRecord,
  writeLastSync,
  type LastSyncRecord,
  type SyncAck,
} from "../last-sync.js";
import { isInside, type LinkOptions } from "./links.js";
import {
  cloneManifest,
  loadManifest,
  manifestTimestamp,
  writeManifest,
  type CapabilityManifest,
  type ManifestPlugin,
  type ManifestSkill,
} from "./manifest.js";
import { msg, type PackageKind } from "../messages.js";
import { parseSyncPayload, type SyncPayload } from "../payload.js";
import { removeLeftovers } from "./leftovers.js";
import { reconcileRuntime } from "./reconcile.js";
import { buildCapabilityReport, type CapabilityReport } from "./report.js";
import { RuntimeLinks } from "./runtime-links.js";
import { CapabilityStore } from "./store.js";
import {
  planPlugin,
  planSkill,
  recordedStoreFolders,
  refuseCollisions,
  type Plan,
  type PlanContext,
  type PluginPlan,
  type SkillPlan,
} from "./sync-plan.js";
import { fail, SyncRun } from "../sync-run.js";
import {
  closeSyncJournal,
  hasSyncJournal,
  registryBefore,
  undoInterruptedSync,
  writeSyncJournal,
  type SyncJournal,
} from "./sync-journal.js";
import type { SyncPhase, SyncProgress } from "../../../shared/schemas/capabilities.js";

export interface SyncLimits extends ArchiveLimits, DownloadLimits {
  /** Packages downloaded and extracted at the same time (default 4). */
  concurrency: number;
}

export interface CapabilitySyncDeps {
  paths: AppPaths;
  backendUrl: () => string | null;
  deviceToken: () => Promise<string | null>;
  /** Fetches packages (src/device/package-download.ts: `httpPackageDownloader()`). */
  download: PackageDownloader;
  now?: () => Date;
  logger: Logger;
  platform?: NodeJS.Platform;
  /** Smaller limits make the size, count and time tests small. */
  limits?: Partial<SyncLimits>;
  /** Injected in tests to simulate a file system where links are impossible. */
  symlink?: LinkOptions["symlink"];
}

export type { SyncPhase, SyncProgress };

export type SyncProgressListener = (event: SyncProgress) => void;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withoutTimestamp(entry: object | undefined): string {
  if (!entry) return "";
  const { updated_at: _u, ...rest } = entry as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** Runs `fn` over `items`, at most `limit` at a time; results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}

/** A download reports its bytes at most every this many bytes (or every 1/100 of its size, if larger). */
const BYTES_STEP = 64 * 1024;

/** How a cancel from the window went: it stopped a sync, came too late (applying), or found none. */
export type CancelOutcome = "cancelled" | "applying" | "idle";

/** Checks and link updates are file system round trips: a few in flight hide their latency. */
const FS_CONCURRENCY = 8;

type Outcome = { ack: SyncAck; record: LastSyncRecord | null };

export class CapabilitySync {
  private readonly paths: AppPaths;
  private readonly store: CapabilityStore;
  private readonly links: RuntimeLinks;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly limits: SyncLimits;
  private readonly platform: NodeJS.Platform;
  private readonly listeners = new Set<SyncProgressListener>();
  private queue: Promise<unknown> = Promise.resolve();
  private last: Outcome | null = null;
  /** Cancels the syncs queued or running now (`cancel()`); later syncs get a fresh one. */
  private cancellation = new AbortController();
  /** Runtime paths the items of the sync in progress will own: never retired by another item. */
  private planned = new Set<string>();
  /** The sync running now: its own cancel (the window's Cancel) and whether it is applying. */
  private running: { controller: AbortController; applying: boolean; reported: boolean } | null = null;
  /** The last payload that passed validation, as received: what "Apply the last sync again" re-runs. */
  private received: unknown = null;

  constructor(private readonly deps: CapabilitySyncDeps) {
    this.paths = deps.paths;
    this.logger = deps.logger.child("capabilities");
    this.now = deps.now ?? (() => new Date());
    this.platform = deps.platform ?? process.platform;
    this.limits = { ...DEFAULT_ARCHIVE_LIMITS, ...DEFAULT_DOWNLOAD_LIMITS, concurrency: 4, ...deps.limits };
    this.store = new CapabilityStore(deps.paths.capabilityStore, { platform: deps.platform });
    this.links = new RuntimeLinks({ paths: deps.paths, platform: deps.platform, symlink: deps.symlink });
  }

  /** Subscribes to progress events (for the UI); returns the unsubscribe function. */
  onProgress(listener: SyncProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The last sync's ack and record in this process, or null. `readLastSync` reads the persisted one. */
  lastResult(): Outcome | null {
    return this.last;
  }

  /** The heartbeat capability report (§5). */
  report(): Promise<CapabilityReport> {
    return buildCapabilityReport(this.paths);
  }

  /**
   * Start-up, before the device connects: removes what an interrupted write left behind, undoes a sync
   * killed before its manifest was written (sync-journal.ts), empties staging and trash, and makes
   * links, Claude registry and manifest agree again (reconcile.ts).
   */
  startup(): Promise<void> {
    return this.enqueue(async () => {
      try {
        await removeLeftovers(this.paths);
        await undoInterruptedSync({
          paths: this.paths,
          store: this.store,
          logger: this.logger,
          now: this.now,
        });
      } catch (error) {
        this.logger.error("could not undo an interrupted capability sync", { error: errorText(error) });
      }
      // A journal that could not be undone keeps the old folders in `.trash` for the next start.
      await this.store.prepare({ keepTrash: await hasSyncJournal(this.paths) });
      try {
        await this.links.refreshStoreRoots();
        await reconcileRuntime({
          paths: this.paths,
          store: this.store,
          links: this.links,
          logger: this.logger,
        });
      } catch (error) {
        this.logger.error("could not reconcile the capability store with the manifest", {
          error: errorText(error),
        });
      }
    });
  }

  /**
   * Cancels the sync in progress and those queued behind it (the runner is stopping). A sync still
   * downloading or extracting ends as a hard error with nothing changed; one already applying
   * finishes. Syncs applied after this call run normally.
   */
  cancel(): void {
    this.cancellation.abort();
    this.cancellation = new AbortController();
  }

  /**
   * Cancels the sync running now (the window's Cancel), not those queued behind it. Before the apply
   * stage it ends as a hard error with nothing changed; once applying it is too late ("applying"):
   * the apply only renames, links and writes small files, and runs to the end so nothing is half done.
   */
  cancelRunning(): CancelOutcome {
    if (!this.running) return "idle";
    if (this.running.applying) return "applying";
    this.running.controller.abort();
    return "cancelled";
  }

  /** The last payload received in this process that passed validation, or null. */
  lastPayload(): SyncPayload | null {
    if (this.received === null) return null;
    const parsed = parseSyncPayload(this.received);
    return parsed.ok ? parsed.payload : null;
  }

  /**
   * Applies the last valid payload again, as if it had just arrived (the device protocol has no way to
   * ask the backend for a sync); null when none was received. No ack goes anywhere: the next heartbeat
   * carries the new report.
   */
  rerunLast(): Promise<SyncAck> | null {
    return this.received === null ? null : this.applySync(this.received);
  }

  /** Applies one `device:sync_capabilities` payload; never throws. Queued behind earlier syncs. */
  applySync(payload: unknown): Promise<SyncAck> {
    const stopping = this.cancellation.signal;
    return this.enqueue(async () => {
      const controller = new AbortController();
      const running = { controller, applying: false, reported: false };
      this.running = running;
      let outcome: Outcome;
      try {
        outcome = await this.runSync(payload, AbortSignal.any([stopping, controller.signal]));
      } catch (error) {
        this.logger.error("capability sync failed", { error: errorText(error) });
        outcome = { ack: { success: false, error: errorText(error) }, record: null };
      } finally {
        this.planned = new Set();
        this.running = null;
      }
      // A sync that showed progress and ended early still says it ended, and how.
      if (running.reported && isHardError(outcome.ack)) {
        const cancelled = stopping.aborted || controller.signal.aborted;
        this.emit({
          phase: "done",
          item: null,
          done: 0,
          total: 0,
          outcome: cancelled ? "cancelled" : "failed",
        });
      }
      this.last = outcome;
      return outcome.ack;
    });
  }

  /** Why the running sync stopped: the window's Cancel, or Gatehouse stopping (`cancel()`). */
  private cancelledMessage(): string {
    return this.running?.controller.signal.aborted ? msg.syncCancelledByUser : msg.syncCancelled;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private emit(event: SyncProgress): void {
    if (this.running) this.running.reported = true;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn("progress listener failed", { error: errorText(error) });
      }
    }
  }

  private async runSync(raw: unknown, signal: AbortSignal): Promise<Outcome> {
    const hardError = (error: string): Outcome => ({ ack: { success: false, error }, record: null });
    if (signal.aborted) return hardError(this.cancelledMessage());

    // 1. Validate and load: every failure here is a hard error and nothing has changed yet.
    const parsed = parseSyncPayload(raw);
    if (!parsed.ok) return hardError(parsed.error);
    this.received = raw;
    const payload = parsed.payload;
    const loaded = await loadManifest(this.paths.capabilityManifest);
    if (!loaded.ok) return hardError(loaded.error);
    const old = loaded.manifest;
    const next = cloneManifest(old);
    const skillNames = new Set(payload.skills.map((s) => s.name));
    const pluginKeys = new Set(payload.plugins.map((p) => p.key));
    const replace = payload.mode === "replace";
    const removedSkills = replace
      ? Object.entries(old.skills).filter(([name, e]) => e.managed === true && !skillNames.has(name))
      : [];
    const removedPlugins = replace
      ? Object.entries(old.plugins).filter(([key, e]) => e.managed === true && !pluginKeys.has(key))
      : [];
    const claudePaths = claudeFilePaths(this.paths.claudeHome);
    let claude: ClaudeFiles | null = null;
    if (payload.plugins.length > 0 || removedPlugins.length > 0) {
      const files = await loadClaudeFiles(claudePaths);
      if (!files.ok) return hardError(files.error);
      claude = files.value;
    }

    // 2. Plan every item, then download and stage. Only Gatehouse's own store folders change.
    await fs.mkdir(this.paths.capabilitiesDir, { recursive: true, mode: 0o700 });
    await this.store.ensureLayout();
    await this.links.refreshStoreRoots();
    const run = new SyncRun(payload);
    const ctx: PlanContext = {
      claudeHome: this.paths.claudeHome,
      codexHome: this.paths.codexHome,
      skillsDir: this.store.skillsDir,
      pluginsDir: this.store.pluginsDir,
      platform: this.platform,
      links: this.links,
      old,
      recordedStore: recordedStoreFolders(old, this.links),
      claudeKeysOwned: claudeKeysOf(old),
      claudeMarketplaceProblem:
        payload.plugins.length > 0
          ? claudeMarketplaceProblem(await readKnownMarketplaces(this.paths.claudeHome), this.paths)
          : null,
    };
    const skillPlans = await mapLimit([...payload.skills.entries()], FS_CONCURRENCY, ([i, item]) =>
      planSkill(item, run.skills[i]!, ctx),
    );
    const pluginPlans: PluginPlan[] = [];
    for (const [i, item] of payload.plugins.entries()) {
      pluginPlans.push(await planPlugin(item, run.plugins[i]!, ctx, claude));
    }
    const removed = new Set([
      ...removedSkills.map(([name]) => `skill ${name}`),
      ...removedPlugins.map(([key]) => `plugin ${key}`),
    ]);
    this.planned = refuseCollisions(
      [...skillPlans, ...pluginPlans],
      this.untouchedEntries(old, payload, removed),
    );
    this.planMcps(payload, run);
    this.logger.info("capability sync started", {
      mode: payload.mode,
      skills: payload.skills.length,
      plugins: payload.plugins.length,
      mcps: payload.mcps.length,
    });
    const plans: Plan[] = [...skillPlans, ...pluginPlans];
    await this.preparePackages(plans, signal);
    if (signal.aborted) {
      await Promise.all(plans.map((plan) => (plan.staged ? this.store.discard(plan.staged) : undefined)));
      this.logger.info("capability sync cancelled before it changed anything");
      return hardError(this.cancelledMessage());
    }
    // From here on a cancel is refused: the apply runs to the end (cancelRunning).
    if (this.running) this.running.applying = true;

    // 3. Apply. Folders the app creates for itself are private; CH and XH hold agent credentials.
    // Item failures are recorded in the ack; if the environment fails the apply itself (a disk that is
    // full, a folder that cannot be written), links and registry go back to the manifest on disk.
    next.revision = old.revision + 1;
    next.last_sync_at = manifestTimestamp(this.now());
    let orphans: string[];
    try {
      orphans = await this.apply({
        payload,
        old,
        next,
        run,
        claude,
        plans,
        skillPlans,
        pluginPlans,
        removedSkills,
        removedPlugins,
      });
    } catch (error) {
      this.logger.error("capability sync could not be applied; restoring the last synced state", {
        error: errorText(error),
      });
      await undoInterruptedSync({
        paths: this.paths,
        store: this.store,
        logger: this.logger,
        now: this.now,
      }).catch((caught: unknown) =>
        this.logger.error("could not undo the sync", { error: errorText(caught) }),
      );
      await reconcileRuntime({
        paths: this.paths,
        store: this.store,
        links: this.links,
        logger: this.logger,
      }).catch((caught: unknown) =>
        this.logger.error("could not restore the last synced state", { error: errorText(caught) }),
      );
      return hardError(msg.applyFailed(errorText(error)));
    }

    // Clean up: orphaned links, then store folders no manifest entry references.
    this.emit({ phase: "cleanup", item: null, done: run.done, total: run.total });
    await this.cleanUp(orphans, next);

    const ack = run.ack();
    // Lands on disk and in `gatehouse caps status`: redacted (an item error may quote the token).
    const record = this.logger.redact(lastSyncRecord(ack, payload.mode, next.revision, next.last_sync_at));
    await writeLastSync(this.paths.capabilitiesDir, record).catch((error: unknown) =>
      this.logger.warn("could not record the last sync", { error: errorText(error) }),
    );
    this.logger.info("capability sync finished", {
      success: ack.success,
      revision: next.revision,
      errors: ack.errors.length,
    });
    this.emit({ phase: "done", item: null, done: run.done, total: run.total, outcome: "finished" });
    return { ack, record };
  }

  /** Stage 3 up to the manifest write; returns the orphaned links for the clean-up. */
  private async apply(stage: {
    payload: SyncPayload;
    old: CapabilityManifest;
    next: CapabilityManifest;
    run: SyncRun;
    claude: ClaudeFiles | null;
    plans: Plan[];
    skillPlans: SkillPlan[];
    pluginPlans: PluginPlan[];
    removedSkills: Array<[string, ManifestSkill]>;
    removedPlugins: Array<[string, ManifestPlugin]>;
  }): Promise<string[]> {
    const { payload, old, next, run, claude } = stage;
    const journal = await this.openJournal(stage);
    if (payload.skills.length > 0 || payload.plugins.length > 0) {
      for (const dir of [this.paths.claudeHome, this.paths.codexHome])
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    }
    if (payload.mode === "replace")
      await this.removeAbsent(stage.removedSkills, stage.removedPlugins, next, run);
    await this.migrateStoreFolders(stage.plans);
    await this.installAll(stage.skillPlans, stage.pluginPlans, old, next, run);
    this.applyMcps(payload, next, run);

    // Links an interrupted sync left behind (owned, but in no manifest entry) go with this sync.
    this.emit({ phase: "write", item: null, done: run.done, total: run.total });
    const orphans = await this.links.findOrphanLinks(next);
    await this.dropOrphanRegistryKeys(orphans, next, claude, run);

    // Claude files (only if changed), then the manifest.
    if (!run.patch.isEmpty)
      await this.writeRegistry(claudeFilePaths(this.paths.claudeHome), old, next, run, stage.pluginPlans);
    await writeManifest(this.paths.capabilityManifest, next);
    // Recorded: the folders it replaced and the journal go (a kill before this is undone at start-up).
    await closeSyncJournal(this.paths, this.store, journal);
    await this.registerMarketplaces(next);
    return orphans;
  }

  /**
   * Before the first change of stage 3: where each store folder a package replaces in place will wait
   * until the manifest records the sync, and the Claude registry keys the sync may rewrite with their
   * values now (sync-journal.ts).
   */
  private async openJournal(stage: {
    payload: SyncPayload;
    old: CapabilityManifest;
    claude: ClaudeFiles | null;
    plans: Plan[];
    removedPlugins: Array<[string, ManifestPlugin]>;
  }): Promise<SyncJournal> {
    const swaps: SyncJournal["swaps"] = [];
    for (const plan of stage.plans) {
      if (plan.result.status !== "synced" || !plan.staged || !plan.storePath) continue;
      if (!(await fs.lstat(plan.storePath).catch(() => null))) continue;
      plan.previous = this.store.trashPath();
      swaps.push({ path: plan.storePath, previous: plan.previous });
    }
    // The files as they are now: the downloads may have taken a while.
    let claude = stage.claude;
    if (claude) {
      const fresh = await loadClaudeFiles(claudeFilePaths(this.paths.claudeHome));
      if (fresh.ok) claude = fresh.value;
    }
    // Every key this sync may write or drop: each plugin's Claude Code key (`<name>@gatehouse`) and the
    // backend key earlier versions registered it under (dropped as a legacy key when still Gatehouse's).
    const keys = [
      ...stage.payload.plugins.flatMap((p) => [p.key, claudePluginKey(p.name)]),
      ...stage.removedPlugins.flatMap(([key, entry]) =>
        entry.name ? [key, claudePluginKey(entry.name)] : [key],
      ),
    ];
    const journal: SyncJournal = {
      version: 1,
      revision: stage.old.revision,
      swaps,
      ...registryBefore(claude, keys),
    };
    await writeSyncJournal(this.paths, journal);
    return journal;
  }

  /** An item that failed after its package was swapped in gets its previous folder back. */
  private async putPreviousBack(plan: Plan): Promise<void> {
    if (!plan.previous || !plan.storePath) return;
    if (!(await fs.lstat(plan.previous).catch(() => null))) return;
    await fs.rename(plan.storePath, this.store.trashPath()).catch(() => undefined);
    await fs.rename(plan.previous, plan.storePath);
  }

  /** The paths of the manifest entries this sync neither updates nor removes: they keep them. */
  private untouchedEntries(
    old: CapabilityManifest,
    payload: SyncPayload,
    removed: Set<string>,
  ): Array<{ owner: string; paths: string[]; claudeKey?: string }> {
    const skillNames = new Set(payload.skills.map((s) => s.name));
    const pluginKeys = new Set(payload.plugins.map((p) => p.key));
    const out: Array<{ owner: string; paths: string[]; claudeKey?: string }> = [];
    const add = (owner: string, entry: ManifestSkill | ManifestPlugin, claudeKey?: string) => {
      if (removed.has(owner)) return;
      const recorded = [entry.store_path, entry.runtime?.claude_link, entry.runtime?.codex_link];
      out.push({
        owner,
        paths: recorded.filter((p): p is string => !!p).map((p) => this.links.resolve(p)),
        ...(claudeKey && { claudeKey }),
      });
    };
    for (const [name, entry] of Object.entries(old.skills))
      if (!skillNames.has(name)) add(`skill ${name}`, entry);
    for (const [key, entry] of Object.entries(old.plugins)) {
      const claudeKey = entry.name && entry.runtime?.claude_link ? claudePluginKey(entry.name) : undefined;
      if (!pluginKeys.has(key)) add(`plugin ${key}`, entry, claudeKey);
    }
    return out;
  }

  /** A repeated name, or a server definition over its budget, fails the MCP item before anything runs. */
  private planMcps(payload: SyncPayload, run: SyncRun): void {
    for (const [i, item] of payload.mcps.entries()) {
      const result = run.mcps[i]!;
      if (item.duplicate) fail(result, msg.duplicateMcp(item.name));
      else if (item.serverProblem) fail(result, msg.mcpServerTooLarge(item.name, item.serverProblem));
    }
  }

  /** Swap, links, registry and manifest entry per item (§7.9 step 3, after the downloads). */
  private async installAll(
    skillPlans: SkillPlan[],
    pluginPlans: PluginPlan[],
    old: CapabilityManifest,
    next: CapabilityManifest,
    run: SyncRun,
  ): Promise<void> {
    const install = async (plan: Plan, apply: () => Promise<void>) => {
      if (plan.result.status === "synced") {
        this.emit({
          phase: "install",
          item: plan.kind === "skill" ? plan.item.name : plan.item.key,
          done: run.done,
          total: run.total,
        });
        try {
          await apply();
        } catch (error) {
          fail(plan.result, errorText(error));
          this.logger.warn("capability item failed", { item: plan.item.name, error: errorText(error) });
          // its manifest entry stays as it was, so its folder does too
          await this.putPreviousBack(plan).catch((caught: unknown) =>
            this.logger.warn("could not put the previous package back", {
              item: plan.item.name,
              error: errorText(caught),
            }),
          );
        }
      }
      if (plan.staged) await this.store.discard(plan.staged).catch(() => undefined);
      run.finish();
    };
    // Skills touch only their own paths, so they go side by side; their manifest entries are then
    // recorded in payload order. Plugins share the registry patch and go one by one.
    const skillEntries = await mapLimit(skillPlans, FS_CONCURRENCY, async (plan) => {
      let entry: ManifestSkill | null = null;
      await install(plan, async () => {
        entry = await this.installSkill(plan, old);
      });
      return entry as ManifestSkill | null;
    });
    for (const [i, plan] of skillPlans.entries()) {
      const entry = skillEntries[i];
      if (entry && plan.result.status === "synced") next.skills[plan.item.name] = entry;
    }
    for (const plan of pluginPlans) await install(plan, () => this.installPlugin(plan, old, next, run));
  }

  private applyMcps(payload: SyncPayload, next: CapabilityManifest, run: SyncRun): void {
    if (payload.mode === "replace") {
      for (const [name, entry] of Object.entries(next.mcps))
        if (entry.managed === true) delete next.mcps[name];
    }
    for (const [i, item] of payload.mcps.entries()) {
      const result = run.mcps[i]!;
      if (result.status === "synced") {
        next.mcps[item.name] = {
          ...(item.installedMcpId !== undefined && { installed_mcp_id: item.installedMcpId }),
          server: item.server,
          managed: true,
        };
      }
      run.finish();
    }
  }

  private async removeAbsent(
    removedSkills: Array<[string, ManifestSkill]>,
    removedPlugins: Array<[string, ManifestPlugin]>,
    next: CapabilityManifest,
    run: SyncRun,
  ): Promise<void> {
    for (const [name, entry] of removedSkills) {
      this.emit({ phase: "remove", item: name, done: run.done, total: run.total });
      try {
        await this.links.removeRuntime(entry.runtime, false);
        delete next.skills[name];
      } catch (error) {
        run.removalFailed({ kind: "skill", id: entry.skill_id, name, error: errorText(error) });
      }
    }
    for (const [key, entry] of removedPlugins) {
      this.emit({ phase: "remove", item: key, done: run.done, total: run.total });
      try {
        await this.links.removeRuntime(entry.runtime, true);
        delete next.plugins[key];
        unregisterPlugin(run.patch, key, entry, next, (p) => this.links.resolve(p));
        run.registryOwners.set(key, { kind: "removal", entry });
      } catch (error) {
        run.removalFailed({
          kind: "plugin",
          id: entry.installed_plugin_id,
          name: entry.name ?? key,
          error: errorText(error),
        });
      }
    }
  }

  /**
   * Items current in a folder named the earlier way move to their new folder first, before any swap
   * could land on the old name. If a move fails, that item fails, and so does any item whose new
   * folder is the one that could not be moved away.
   */
  private async migrateStoreFolders(plans: Plan[]): Promise<void> {
    const stuck = new Map<string, string>();
    for (const plan of plans) {
      if (plan.result.status !== "synced" || !plan.migrateFrom || !plan.storePath) continue;
      try {
        await this.store.swapIntoPlace(plan.migrateFrom, plan.storePath);
      } catch (error) {
        fail(plan.result, errorText(error));
        stuck.set(plan.migrateFrom, errorText(error));
      }
    }
    for (const plan of plans) {
      const error = plan.storePath ? stuck.get(plan.storePath) : undefined;
      if (error !== undefined && plan.result.status === "synced") fail(plan.result, error);
    }
  }

  /** Download → checksum → extract into staging, a few packages at a time. Nothing else changes. */
  private async preparePackages(plans: Plan[], signal: AbortSignal): Promise<void> {
    const needed = plans.filter(
      (p) => p.result.status === "synced" && !p.current && (p.kind === "skill" || p.storePath),
    );
    if (needed.length === 0) return;
    const backendUrl = this.deps.backendUrl();
    const token = await this.token();
    // The download phase counts packages ready of packages to fetch (items are counted when applied).
    let ready = 0;
    const progress = (item: string, bytes: SyncProgress["bytes"]): SyncProgress => ({
      phase: "download",
      item,
      done: ready,
      total: needed.length,
      bytes,
      cancellable: true,
    });
    await mapLimit(needed, this.limits.concurrency, async (plan) => {
      if (signal.aborted) return fail(plan.result, msg.syncCancelled);
      const kind: PackageKind = plan.kind;
      const label = plan.kind === "skill" ? plan.item.name : plan.item.key;
      this.emit(progress(label, null));
      let reportedAt = 0;
      const onProgress = (received: number, total: number | null) => {
        if (received - reportedAt < Math.max(BYTES_STEP, (total ?? 0) / 100)) return;
        reportedAt = received;
        this.emit(progress(label, { received, total }));
      };
      const source =
        plan.kind === "skill"
          ? (plan.item.downloadPath ?? defaultSkillDownloadPath(plan.item.skillId, plan.item.namespace))
          : (plan.item.downloadPath as string);
      const url = resolvePackageUrl(source, backendUrl);
      if (!url.ok) return fail(plan.result, url.error);
      const download = await this.deps.download({
        url: url.url,
        backendUrl,
        token,
        limits: this.limits,
        signal,
        onProgress,
      });
      ready++;
      if (!download.ok) return fail(plan.result, download.error);
      const mismatch = checksumError(kind, plan.item.checksum, download.bytes);
      if (mismatch) return fail(plan.result, mismatch);
      let staged: string | null = null;
      try {
        staged = await this.store.newStaging();
        const extracted = await extractPackage(download.bytes, kind, staged, this.limits, signal);
        if (!extracted.ok) {
          await this.store.discard(staged);
          return fail(plan.result, extracted.error);
        }
        plan.staged = staged;
      } catch (error) {
        if (staged) await this.store.discard(staged).catch(() => undefined);
        fail(plan.result, errorText(error));
      }
    });
  }

  private async token(): Promise<string | null> {
    try {
      const raw = await this.deps.deviceToken();
      const token = raw?.replace(/^bearer\s+/i, "").trim() || null;
      this.logger.addSecret(token);
      return token;
    } catch (error) {
      this.logger.warn("device token unavailable; downloading without it", { error: errorText(error) });
      return null;
    }
  }

  /** Removes the previous entry's runtime paths that no item of this sync uses any more (owned only). */
  private retireRuntime(previous: ManifestSkill["runtime"], cacheParent: boolean): Promise<void> {
    return this.links.removeRuntime(previous, cacheParent, this.planned);
  }

  private stamp(previous: object | undefined, entry: object, changed: boolean): string {
    const old = previous as { updated_at?: string } | undefined;
    if (!changed && old?.updated_at && withoutTimestamp(previous) === withoutTimestamp(entry))
      return old.updated_at;
    return manifestTimestamp(this.now());
  }

  private async installSkill(plan: SkillPlan, old: CapabilityManifest): Promise<ManifestSkill> {
    const { item } = plan;
    const previous = old.skills[item.name];
    if (plan.staged) {
      await this.store.swapIntoPlace(plan.staged, plan.storePath, plan.previous);
      plan.staged = undefined;
    }
    // A link already pointing at this folder needs no write (warm syncs); otherwise it is placed,
    // ownership re-checked at the moment of writing.
    const copies = plan.linksInPlace
      ? []
      : await this.links.placeLinks(plan.links, plan.storePath, this.links.copiesOf(previous?.runtime));
    await this.retireRuntime(previous?.runtime, false);
    const [claudeLink, codexLink] = plan.links as [string, string];
    const entry: ManifestSkill = {
      skill_id: item.skillId,
      namespace: item.namespace,
      managed: true,
      ...(item.isPublic !== undefined && { is_public: item.isPublic }),
      ...(item.contentHash !== undefined && { content_hash: item.contentHash }),
      store_path: plan.storePath,
      runtime: { claude_link: claudeLink, codex_link: codexLink, ...(copies.length > 0 && { copies }) },
    };
    entry.updated_at = this.stamp(previous, entry, !plan.current);
    return entry;
  }

  private async installPlugin(
    plan: PluginPlan,
    old: CapabilityManifest,
    next: CapabilityManifest,
    run: SyncRun,
  ): Promise<void> {
    const { item } = plan;
    const previous = old.plugins[item.key];
    const base = {
      ...(item.installedPluginId !== undefined && { installed_plugin_id: item.installedPluginId }),
      name: item.name,
      marketplace: item.marketplace,
      version: item.version,
      enabled: item.enabled,
    };
    if (!plan.storePath || !plan.claudeLink || !plan.codexLink) {
      // No installed_plugin_id: recorded in the manifest only; files from an earlier sync are retired.
      await this.retireRuntime(previous?.runtime, true);
      if (previous?.runtime?.claude_link) {
        unregisterPlugin(run.patch, item.key, previous, next, (p) => this.links.resolve(p));
        run.registryOwners.set(item.key, { kind: "item", result: plan.result });
      }
      const entry: ManifestPlugin = { managed: true, ...base };
      entry.updated_at = this.stamp(previous, entry, false);
      next.plugins[item.key] = entry;
      return;
    }
    const packageChanged = Boolean(plan.staged);
    if (plan.staged) {
      await this.store.swapIntoPlace(plan.staged, plan.storePath, plan.previous);
      plan.staged = undefined;
    }
    const links = [plan.claudeLink, plan.codexLink];
    const copies = plan.linksInPlace
      ? []
      : await this.links.placeLinks(links, plan.storePath, this.links.copiesOf(previous?.runtime));
    await this.retireRuntime(previous?.runtime, true);
    const claudeKey = claudePluginKey(item.name);
    run.patch.setPlugin(claudeKey, { installPath: plan.claudeLink, version: item.version, packageChanged });
    run.patch.setEnabled(claudeKey, item.enabled);
    if (item.key !== claudeKey)
      run.patch.dropLegacy(
        item.key,
        ourInstallPaths(previous, (p) => this.links.resolve(p), plan.claudeLink),
      );
    run.registryOwners.set(item.key, { kind: "item", result: plan.result });
    const entry: ManifestPlugin = {
      ...base,
      ...(item.checksum !== undefined && { checksum: item.checksum }),
      managed: true,
      store_path: plan.storePath,
      runtime: {
        claude_link: plan.claudeLink,
        codex_link: plan.codexLink,
        ...(copies.length > 0 && { copies }),
      },
    };
    entry.updated_at = this.stamp(previous, entry, packageChanged);
    next.plugins[item.key] = entry;
  }

  /**
   * Claude Code loads a synced plugin only when its marketplace is known (claude-marketplaces.ts);
   * Codex only from a configured marketplace and its own cache (codex-marketplaces.ts).
   */
  private async registerMarketplaces(manifest: CapabilityManifest): Promise<void> {
    try {
      const outcome = await syncClaudeMarketplaces(this.paths, manifest, this.now());
      if (outcome.error)
        this.logger.warn("could not register the synced plugins' marketplaces", { error: outcome.error });
    } catch (error) {
      this.logger.warn("could not register the synced plugins' marketplaces", { error: errorText(error) });
    }
    await registerCodexPlugins(this.paths, manifest, this.logger);
  }

  /** Re-reads and patches the Claude files; if that fails, the plugin changes behind it fail too. */
  private async writeRegistry(
    claudePaths: ReturnType<typeof claudeFilePaths>,
    old: CapabilityManifest,
    next: CapabilityManifest,
    run: SyncRun,
    pluginPlans: PluginPlan[],
  ): Promise<void> {
    let error: string | null = null;
    try {
      const written = await writeClaudeFiles(claudePaths, run.patch, this.now());
      if (!written.ok) error = written.error;
    } catch (caught) {
      error = errorText(caught);
    }
    if (error === null) return;
    this.logger.warn("could not update the Claude plugin registry", { error });
    for (const [key, owner] of run.registryOwners) {
      const previous = old.plugins[key];
      if (previous) next.plugins[key] = previous;
      else delete next.plugins[key];
      const plan = pluginPlans.find((p) => p.item.key === key);
      if (plan) await this.putPreviousBack(plan).catch(() => undefined);
      if (owner.kind === "item") fail(owner.result, error);
      else
        run.removalFailed({
          kind: "plugin",
          id: owner.entry.installed_plugin_id,
          name: owner.entry.name ?? key,
          error,
        });
    }
  }

  /** Registry keys an interrupted sync wrote for links that are now orphans go with those links. */
  private async dropOrphanRegistryKeys(
    orphans: string[],
    manifest: CapabilityManifest,
    loaded: ClaudeFiles | null,
    run: SyncRun,
  ): Promise<void> {
    if (!orphans.some((o) => isInside(o, this.links.cacheDir))) return;
    let claude = loaded;
    if (!claude) {
      const files = await loadClaudeFiles(claudeFilePaths(this.paths.claudeHome));
      if (!files.ok) return this.logger.warn("left the Claude plugin registry alone", { error: files.error });
      claude = files.value;
    }
    this.links.orphanRegistryKeys(orphans, manifest, claude, run.patch);
  }

  private async cleanUp(orphans: string[], manifest: CapabilityManifest): Promise<void> {
    for (const failure of await this.links.removeOrphans(orphans)) {
      this.logger.warn("could not remove a leftover link", {
        path: failure.path,
        error: errorText(failure.error),
      });
    }
    const referenced = new Set<string>();
    for (const entry of [...Object.values(manifest.skills), ...Object.values(manifest.plugins)]) {
      if (entry.store_path) referenced.add(this.links.resolve(entry.store_path));
    }
    try {
      const removed = await this.store.collectGarbage(referenced);
      if (removed.length > 0) this.logger.info("removed unused store folders", { count: removed.length });
    } catch (error) {
      this.logger.warn("store garbage collection failed", { error: errorText(error) });
    }
  }
}
