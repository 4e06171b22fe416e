// Global capability sync (device-protocol.md §7): one `device:sync_capabilities` payload in, one ack
// out. Syncs run one at a time in arrival order. The order of operations is §7.9: validate and load
// (hard errors change nothing), replace-removals, per-item conflict checks before any download,
// download/stage/swap, links, Claude registry, manifest, garbage collection.
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../log.js";
import type { AppPaths } from "../paths.js";
import { DEFAULT_ARCHIVE_LIMITS, extractPackage, type ArchiveLimits } from "./archive.js";
import {
  claudeFilePaths,
  ClaudeRegistryPatch,
  loadClaudeFiles,
  writeClaudeFiles,
  type ClaudeFiles,
} from "./claude-registry.js";
import {
  checksumError,
  DEFAULT_DOWNLOAD_LIMITS,
  defaultSkillDownloadPath,
  downloadPackage,
  resolvePackageUrl,
  type DownloadLimits,
} from "./download.js";
import {
  lastSyncRecord,
  writeLastSync,
  type CapabilityKind,
  type LastSyncRecord,
  type SyncAck,
  type SyncErrorEntry,
  type SyncItemResult,
  type SyncItemsAck,
} from "./last-sync.js";
import {
  firstLinkBetween,
  inspectRuntimePath,
  isInside,
  placeLink,
  removeEmptyFolders,
  removeOwnedPath,
  resolveStoreRoots,
  type LinkOptions,
} from "./links.js";
import {
  loadManifest,
  manifestPath,
  manifestTimestamp,
  writeManifest,
  type CapabilityManifest,
  type ManifestPlugin,
  type ManifestRuntime,
  type ManifestSkill,
} from "./manifest.js";
import { msg, type PackageKind } from "./messages.js";
import { parseSyncPayload, type PluginItem, type SkillItem, type SyncPayload } from "./payload.js";
import { buildCapabilityReport, type CapabilityReport } from "./report.js";
import { CapabilityStore } from "./store.js";

export interface SyncLimits extends ArchiveLimits, DownloadLimits {
  /** Packages downloaded and extracted at the same time (default 4). */
  concurrency: number;
}

export interface CapabilitySyncDeps {
  paths: AppPaths;
  backendUrl: () => string | null;
  deviceToken: () => Promise<string | null>;
  fetch?: typeof fetch;
  now?: () => Date;
  logger: Logger;
  platform?: NodeJS.Platform;
  /** Smaller limits make the size and count tests small. */
  limits?: Partial<SyncLimits>;
  /** Injected in tests to simulate a file system where links are impossible. */
  symlink?: LinkOptions["symlink"];
}

export type SyncPhase = "remove" | "download" | "install" | "write" | "cleanup" | "done";

export interface SyncProgress {
  phase: SyncPhase;
  /** The skill name, plugin key or MCP name being worked on; null for whole-sync phases. */
  item: string | null;
  done: number;
  total: number;
}

export type SyncProgressListener = (event: SyncProgress) => void;

interface SkillPlan {
  kind: "skill";
  item: SkillItem;
  result: SyncItemResult;
  storePath: string;
  links: string[];
  current: boolean;
  /** Both runtime paths were already Gatehouse links to `storePath` when checked. */
  linksInPlace: boolean;
  staged?: string;
}

interface PluginPlan {
  kind: "plugin";
  item: PluginItem;
  result: SyncItemResult;
  /** Absent for a plugin without `installed_plugin_id`: recorded in the manifest only. */
  storePath?: string;
  claudeLink?: string;
  codexLink?: string;
  current: boolean;
  /** Both runtime paths were already Gatehouse links to `storePath` when checked. */
  linksInPlace: boolean;
  staged?: string;
}

type Plan = SkillPlan | PluginPlan;

function fail(result: SyncItemResult, error: string): void {
  result.status = "failed";
  result.error = error;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function isFile(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isFile() ?? false;
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

/** Checks and link updates are file system round trips: a few in flight hide their latency. */
const FS_CONCURRENCY = 8;

/** Temp files of atomic writes that a killed process left next to the files Gatehouse writes. */
const LEFTOVER_TEMP = /^\.(installed_plugins|settings|manifest|last-sync)\.json\.gatehouse-[0-9a-f]{12}$/;

export class CapabilitySync {
  private readonly paths: AppPaths;
  private readonly store: CapabilityStore;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly fetchImpl: typeof fetch;
  private readonly limits: SyncLimits;
  private readonly listeners = new Set<SyncProgressListener>();
  private queue: Promise<unknown> = Promise.resolve();
  private last: { ack: SyncAck; record: LastSyncRecord | null } | null = null;
  /** The store's resolved paths for the sync in progress (syncs never overlap). */
  private storeRoots: string[] | undefined;

  constructor(private readonly deps: CapabilitySyncDeps) {
    this.paths = deps.paths;
    this.logger = deps.logger.child("capabilities");
    this.now = deps.now ?? (() => new Date());
    this.fetchImpl = deps.fetch ?? fetch;
    this.limits = { ...DEFAULT_ARCHIVE_LIMITS, ...DEFAULT_DOWNLOAD_LIMITS, concurrency: 4, ...deps.limits };
    this.store = new CapabilityStore(deps.paths.capabilityStore, { platform: deps.platform });
  }

  /** Subscribes to progress events (for the UI); returns the unsubscribe function. */
  onProgress(listener: SyncProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The last sync's ack and record in this process, or null. `readLastSync` reads the persisted one. */
  lastResult(): { ack: SyncAck; record: LastSyncRecord | null } | null {
    return this.last;
  }

  /** The heartbeat capability report (§5). */
  report(): Promise<CapabilityReport> {
    return buildCapabilityReport(this.paths);
  }

  /** Start-up: empties staging and trash and removes temp files an interrupted write left behind. */
  startup(): Promise<void> {
    return this.enqueue(async () => {
      await this.store.prepare();
      const dirs = [
        this.paths.claudeHome,
        path.join(this.paths.claudeHome, "plugins"),
        this.paths.capabilitiesDir,
      ];
      for (const dir of dirs) {
        const names = await fs.readdir(dir).catch(() => [] as string[]);
        for (const name of names.filter((n) => LEFTOVER_TEMP.test(n))) {
          const file = path.join(dir, name);
          if ((await fs.lstat(file)).isFile()) await fs.rm(file, { force: true });
        }
      }
    });
  }

  /** Applies one `device:sync_capabilities` payload; never throws. Queued behind earlier syncs. */
  applySync(payload: unknown): Promise<SyncAck> {
    return this.enqueue(async () => {
      let ack: SyncAck;
      let record: LastSyncRecord | null = null;
      try {
        ({ ack, record } = await this.runSync(payload));
      } catch (error) {
        this.logger.error("capability sync failed", { error: errorText(error) });
        ack = { success: false, error: errorText(error) };
      }
      this.last = { ack, record };
      return ack;
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private emit(event: SyncProgress): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn("progress listener failed", { error: errorText(error) });
      }
    }
  }

  private linkOptions(copies: Iterable<string> = []): LinkOptions {
    return {
      store: this.paths.capabilityStore,
      storeRoots: this.storeRoots,
      platform: this.deps.platform,
      copies: new Set(copies),
      symlink: this.deps.symlink,
    };
  }

  private resolve(p: string): string {
    return path.resolve(manifestPath(p, this.paths.home));
  }

  private async runSync(raw: unknown): Promise<{ ack: SyncAck; record: LastSyncRecord | null }> {
    // 1. Validate and load: every failure here is a hard error and nothing has changed yet.
    const parsed = parseSyncPayload(raw);
    if (!parsed.ok) return { ack: { success: false, error: parsed.error }, record: null };
    const payload = parsed.payload;
    const loaded = await loadManifest(this.paths.capabilityManifest);
    if (!loaded.ok) return { ack: { success: false, error: loaded.error }, record: null };
    const old = loaded.manifest;
    const next: CapabilityManifest = structuredClone(old);
    const pluginKeys = new Set(payload.plugins.map((p) => p.key));
    const removedPlugins =
      payload.mode === "replace"
        ? Object.entries(old.plugins).filter(([key, e]) => e.managed === true && !pluginKeys.has(key))
        : [];
    const claudePaths = claudeFilePaths(this.paths.claudeHome);
    let claude: ClaudeFiles | null = null;
    if (payload.plugins.length > 0 || removedPlugins.length > 0) {
      const files = await loadClaudeFiles(claudePaths);
      if (!files.ok) return { ack: { success: false, error: files.error }, record: null };
      claude = files.value;
    }

    const run = new SyncRun(payload);
    // Folders the app creates for itself are private; CH and XH hold the user's agent credentials.
    await fs.mkdir(this.paths.capabilitiesDir, { recursive: true, mode: 0o700 });
    await this.store.ensureLayout();
    this.storeRoots = await resolveStoreRoots(this.paths.capabilityStore);
    if (payload.skills.length > 0 || payload.plugins.length > 0) {
      for (const dir of [this.paths.claudeHome, this.paths.codexHome])
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    }
    this.logger.info("capability sync started", {
      mode: payload.mode,
      skills: payload.skills.length,
      plugins: payload.plugins.length,
      mcps: payload.mcps.length,
    });

    // 2. replace: managed entries absent from the payload are removed (owned links only).
    if (payload.mode === "replace") await this.removeAbsent(payload, old, next, run, removedPlugins);

    // 3. Skills, then plugins: conflicts for every item before any download.
    const skillPlans = await mapLimit([...payload.skills.entries()], FS_CONCURRENCY, ([i, item]) =>
      this.planSkill(item, run.skills[i]!, old),
    );
    const pluginPlans: PluginPlan[] = [];
    for (const [i, item] of payload.plugins.entries()) {
      pluginPlans.push(await this.planPlugin(item, run.plugins[i]!, old, claude));
    }
    await this.preparePackages([...skillPlans, ...pluginPlans], run);
    await this.installAll(skillPlans, pluginPlans, old, next, run);

    // 4. MCPs: replace empties the managed ones first; both modes upsert by name.
    this.applyMcps(payload, next, run);

    // Links an interrupted sync left behind (owned, but in no manifest entry) go with this sync.
    this.emit({ phase: "write", item: null, done: run.done, total: run.total });
    const orphans = await this.findOrphanLinks(next);
    await this.dropOrphanRegistryKeys(orphans, next, claude, run);

    // 5. Claude files (only if changed), then the manifest.
    if (!run.patch.isEmpty) await this.writeRegistry(claudePaths, old, next, run);
    next.revision = old.revision + 1;
    next.last_sync_at = manifestTimestamp(this.now());
    await writeManifest(this.paths.capabilityManifest, next);

    // 6. Clean up: orphaned links, then store folders no manifest entry references.
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
    this.emit({ phase: "done", item: null, done: run.done, total: run.total });
    return { ack, record };
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
      if (item.duplicate) fail(result, msg.duplicateMcp(item.name));
      else {
        next.mcps[item.name] = {
          ...(item.installedMcpId !== undefined && { installed_mcp_id: item.installedMcpId }),
          server: item.server,
          managed: true,
        };
      }
      run.finish();
    }
  }

  private async removeRuntime(runtime: ManifestRuntime | undefined, cacheParent: boolean): Promise<void> {
    const options = this.linkOptions((runtime?.copies ?? []).map((p) => this.resolve(p)));
    for (const link of [runtime?.claude_link, runtime?.codex_link]) {
      if (!link) continue;
      const p = this.resolve(link);
      await removeOwnedPath(p, options);
      if (cacheParent && link === runtime?.claude_link) await this.removeEmptyCacheFolders(p);
    }
  }

  private async removeEmptyCacheFolders(claudeLink: string): Promise<void> {
    const cache = path.join(this.paths.claudeHome, "plugins", "cache");
    if (isInside(claudeLink, cache)) await removeEmptyFolders(path.dirname(claudeLink), cache);
  }

  private async removeAbsent(
    payload: SyncPayload,
    old: CapabilityManifest,
    next: CapabilityManifest,
    run: SyncRun,
    removedPlugins: [string, ManifestPlugin][],
  ): Promise<void> {
    const skillNames = new Set(payload.skills.map((s) => s.name));
    for (const [name, entry] of Object.entries(old.skills)) {
      if (entry.managed !== true || skillNames.has(name)) continue;
      this.emit({ phase: "remove", item: name, done: run.done, total: run.total });
      try {
        await this.removeRuntime(entry.runtime, false);
        delete next.skills[name];
      } catch (error) {
        run.removalFailed({ kind: "skill", id: entry.skill_id, name, error: errorText(error) });
      }
    }
    for (const [key, entry] of removedPlugins) {
      this.emit({ phase: "remove", item: key, done: run.done, total: run.total });
      try {
        await this.removeRuntime(entry.runtime, true);
        run.patch.removePlugin(key);
        run.registryOwners.set(key, { kind: "removal", entry });
        delete next.plugins[key];
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

  private async planSkill(
    item: SkillItem,
    result: SyncItemResult,
    old: CapabilityManifest,
  ): Promise<SkillPlan> {
    const storePath = this.store.skillFolder(item.skillId, item.namespace, item.name);
    const links = [
      path.join(this.paths.claudeHome, "skills", item.name),
      path.join(this.paths.codexHome, "skills", item.name),
    ];
    const plan: SkillPlan = {
      kind: "skill",
      item,
      result,
      storePath,
      links,
      current: false,
      linksInPlace: false,
    };
    if (item.duplicate) {
      fail(result, msg.duplicateSkill(item.name));
      return plan;
    }
    const previous = old.skills[item.name];
    const options = this.linkOptions((previous?.runtime?.copies ?? []).map((p) => this.resolve(p)));
    let inPlace = 0;
    for (const link of links) {
      const state = await inspectRuntimePath(link, options);
      if (state.kind === "user") {
        fail(result, msg.skillPathOccupied);
        return plan;
      }
      if (state.kind === "owned" && !state.copy && state.target === storePath) inPlace++;
    }
    plan.linksInPlace = inPlace === links.length;
    plan.current =
      (await isFile(path.join(storePath, "SKILL.md"))) &&
      (item.contentHash === undefined ||
        (previous?.skill_id === item.skillId &&
          previous.namespace === item.namespace &&
          previous.content_hash === item.contentHash));
    return plan;
  }

  private async planPlugin(
    item: PluginItem,
    result: SyncItemResult,
    old: CapabilityManifest,
    claude: ClaudeFiles | null,
  ): Promise<PluginPlan> {
    const plan: PluginPlan = { kind: "plugin", item, result, current: false, linksInPlace: false };
    if (item.duplicate) {
      fail(result, msg.duplicatePlugin(item.key));
      return plan;
    }
    const previous = old.plugins[item.key];
    const cache = path.join(this.paths.claudeHome, "plugins", "cache");
    const claudeLink = path.join(cache, item.marketplace, item.name, item.version);
    const codexLink = path.join(this.paths.codexHome, "plugins", `${item.name}-${item.marketplace}`);
    const options = this.linkOptions((previous?.runtime?.copies ?? []).map((p) => this.resolve(p)));
    const ownedByUs = previous?.managed === true;
    if (claude && Object.hasOwn(claude.plugins, item.key) && !ownedByUs) {
      // A registry entry written by an interrupted sync points at our own link: repair, not conflict.
      const entry = claude.plugins[item.key];
      const first = Array.isArray(entry) ? (entry[0] as Record<string, unknown> | undefined) : undefined;
      const leftover =
        first?.installPath === claudeLink && (await inspectRuntimePath(claudeLink, options)).kind === "owned";
      if (!leftover) {
        fail(result, msg.pluginRegisteredByUser(item.key));
        return plan;
      }
    }
    if (item.installedPluginId === undefined) return plan; // manifest only, no files
    const linkedParent = await firstLinkBetween(cache, path.dirname(claudeLink));
    if (linkedParent) {
      fail(result, msg.managedPathSymlink(linkedParent));
      return plan;
    }
    const storePath = this.store.pluginFolder(
      item.installedPluginId,
      item.marketplace,
      item.name,
      item.version,
    );
    let inPlace = 0;
    for (const link of [claudeLink, codexLink]) {
      const state = await inspectRuntimePath(link, options);
      if (state.kind === "user") {
        fail(result, msg.pluginPathOccupied);
        return plan;
      }
      if (state.kind === "owned" && !state.copy && state.target === storePath) inPlace++;
    }
    plan.linksInPlace = inPlace === 2;
    plan.storePath = storePath;
    plan.claudeLink = claudeLink;
    plan.codexLink = codexLink;
    const hasManifest =
      (await isFile(path.join(plan.storePath, ".claude-plugin", "plugin.json"))) ||
      (await isFile(path.join(plan.storePath, ".codex-plugin", "plugin.json")));
    plan.current = hasManifest && (item.checksum === undefined || previous?.checksum === item.checksum);
    if (!plan.current && !item.downloadPath) fail(result, msg.pluginUnavailable(item.key));
    return plan;
  }

  /** Download → checksum → extract into staging, a few packages at a time. Nothing else changes. */
  private async preparePackages(plans: Plan[], run: SyncRun): Promise<void> {
    const needed = plans.filter(
      (p) => p.result.status === "synced" && !p.current && (p.kind === "skill" || p.storePath),
    );
    if (needed.length === 0) return;
    const backendUrl = this.deps.backendUrl();
    const token = await this.token();
    await mapLimit(needed, this.limits.concurrency, async (plan) => {
      const kind: PackageKind = plan.kind;
      const label = plan.kind === "skill" ? plan.item.name : plan.item.key;
      this.emit({ phase: "download", item: label, done: run.done, total: run.total });
      const source =
        plan.kind === "skill"
          ? (plan.item.downloadPath ?? defaultSkillDownloadPath(plan.item.skillId, plan.item.namespace))
          : (plan.item.downloadPath as string);
      const url = resolvePackageUrl(source, backendUrl);
      if (!url.ok) return fail(plan.result, url.error);
      const download = await downloadPackage({
        url: url.url,
        backendUrl,
        token,
        fetch: this.fetchImpl,
        limits: this.limits,
      });
      if (!download.ok) return fail(plan.result, download.error);
      const mismatch = checksumError(kind, plan.item.checksum, download.bytes);
      if (mismatch) return fail(plan.result, mismatch);
      let staged: string | null = null;
      try {
        staged = await this.store.newStaging();
        const extracted = await extractPackage(download.bytes, kind, staged, this.limits);
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

  /** Places the links of an item and records which had to be copies. */
  private async placeLinks(links: string[], target: string, previousCopies: string[]): Promise<string[]> {
    const options = this.linkOptions(previousCopies.map((p) => this.resolve(p)));
    const copies: string[] = [];
    for (const link of links) {
      if ((await placeLink(link, target, options)) === "copied") copies.push(link);
    }
    return copies;
  }

  /** Removes the previous entry's runtime paths that the new entry no longer uses (owned only). */
  private async retireRuntime(
    previous: ManifestRuntime | undefined,
    keep: string[],
    cacheParent: boolean,
  ): Promise<void> {
    const options = this.linkOptions((previous?.copies ?? []).map((p) => this.resolve(p)));
    for (const link of [previous?.claude_link, previous?.codex_link]) {
      if (!link) continue;
      const p = this.resolve(link);
      if (keep.includes(p)) continue;
      await removeOwnedPath(p, options);
      if (cacheParent && link === previous?.claude_link) await this.removeEmptyCacheFolders(p);
    }
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
      await this.store.swapIntoPlace(plan.staged, plan.storePath);
      plan.staged = undefined;
    }
    // A link already pointing at this folder needs no write (warm syncs); otherwise it is placed,
    // ownership re-checked at the moment of writing.
    const copies = plan.linksInPlace
      ? []
      : await this.placeLinks(plan.links, plan.storePath, previous?.runtime?.copies ?? []);
    await this.retireRuntime(previous?.runtime, plan.links, false);
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
      await this.retireRuntime(previous?.runtime, [], true);
      if (previous?.runtime?.claude_link) {
        run.patch.removePlugin(item.key);
        run.registryOwners.set(item.key, { kind: "item", plan });
      }
      const entry: ManifestPlugin = { managed: true, ...base };
      entry.updated_at = this.stamp(previous, entry, false);
      next.plugins[item.key] = entry;
      return;
    }
    const packageChanged = Boolean(plan.staged);
    if (plan.staged) {
      await this.store.swapIntoPlace(plan.staged, plan.storePath);
      plan.staged = undefined;
    }
    const links = [plan.claudeLink, plan.codexLink];
    const copies = plan.linksInPlace
      ? []
      : await this.placeLinks(links, plan.storePath, previous?.runtime?.copies ?? []);
    await this.retireRuntime(previous?.runtime, links, true);
    run.patch.setPlugin(item.key, { installPath: plan.claudeLink, version: item.version, packageChanged });
    run.patch.setEnabled(item.key, item.enabled);
    run.registryOwners.set(item.key, { kind: "item", plan });
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

  /** Re-reads and patches the Claude files; if that fails, the plugin changes behind it fail too. */
  private async writeRegistry(
    claudePaths: ReturnType<typeof claudeFilePaths>,
    old: CapabilityManifest,
    next: CapabilityManifest,
    run: SyncRun,
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
      if (owner.kind === "item") fail(owner.plan.result, error);
      else
        run.removalFailed({
          kind: "plugin",
          id: owner.entry.installed_plugin_id,
          name: owner.entry.name ?? key,
          error,
        });
    }
  }

  /** Every runtime path the manifest records, resolved. */
  private expectedRuntimePaths(manifest: CapabilityManifest): Set<string> {
    const out = new Set<string>();
    for (const entry of [...Object.values(manifest.skills), ...Object.values(manifest.plugins)]) {
      for (const link of [entry.runtime?.claude_link, entry.runtime?.codex_link])
        if (link) out.add(this.resolve(link));
    }
    return out;
  }

  /** Owned links in the runtime folders that no manifest entry records (left by an interrupted sync). */
  private async findOrphanLinks(manifest: CapabilityManifest): Promise<string[]> {
    const expected = this.expectedRuntimePaths(manifest);
    const options = this.linkOptions();
    const candidates: string[] = [];
    const list = async (dir: string) =>
      (await fs.readdir(dir).catch(() => [] as string[])).map((n) => path.join(dir, n));
    for (const dir of [
      path.join(this.paths.claudeHome, "skills"),
      path.join(this.paths.codexHome, "skills"),
      path.join(this.paths.codexHome, "plugins"),
    ]) {
      candidates.push(...(await list(dir)));
    }
    const cache = path.join(this.paths.claudeHome, "plugins", "cache");
    const isRealFolder = async (p: string) => (await fs.lstat(p).catch(() => null))?.isDirectory() ?? false;
    for (const marketplace of await list(cache)) {
      if (!(await isRealFolder(marketplace))) continue;
      for (const name of await list(marketplace)) {
        if (await isRealFolder(name)) candidates.push(...(await list(name)));
      }
    }
    const orphans: string[] = [];
    for (const candidate of candidates) {
      if (expected.has(candidate)) continue;
      const state = await inspectRuntimePath(candidate, options);
      if (state.kind === "owned") orphans.push(candidate);
    }
    return orphans;
  }

  /** Registry keys an interrupted sync wrote for links that are now orphans go with those links. */
  private async dropOrphanRegistryKeys(
    orphans: string[],
    manifest: CapabilityManifest,
    loaded: ClaudeFiles | null,
    run: SyncRun,
  ): Promise<void> {
    const cache = path.join(this.paths.claudeHome, "plugins", "cache");
    const orphanCache = new Set(orphans.filter((o) => isInside(o, cache)));
    if (orphanCache.size === 0) return;
    let claude = loaded;
    if (!claude) {
      const files = await loadClaudeFiles(claudeFilePaths(this.paths.claudeHome));
      if (!files.ok) return this.logger.warn("left the Claude plugin registry alone", { error: files.error });
      claude = files.value;
    }
    for (const [key, value] of Object.entries(claude.plugins)) {
      if (manifest.plugins[key]?.managed === true || run.patch.plugins.has(key)) continue;
      const first = Array.isArray(value) ? (value[0] as Record<string, unknown> | undefined) : undefined;
      if (typeof first?.installPath === "string" && orphanCache.has(first.installPath))
        run.patch.removePlugin(key);
    }
  }

  private async cleanUp(orphans: string[], manifest: CapabilityManifest): Promise<void> {
    const options = this.linkOptions();
    for (const orphan of orphans) {
      try {
        await removeOwnedPath(orphan, options);
        await this.removeEmptyCacheFolders(orphan);
      } catch (error) {
        this.logger.warn("could not remove a leftover link", { path: orphan, error: errorText(error) });
      }
    }
    const referenced = new Set<string>();
    for (const entry of [...Object.values(manifest.skills), ...Object.values(manifest.plugins)]) {
      if (entry.store_path) referenced.add(this.resolve(entry.store_path));
    }
    try {
      const removed = await this.store.collectGarbage(referenced);
      if (removed.length > 0) this.logger.info("removed unused store folders", { count: removed.length });
    } catch (error) {
      this.logger.warn("store garbage collection failed", { error: errorText(error) });
    }
  }
}

type RegistryOwner = { kind: "item"; plan: PluginPlan } | { kind: "removal"; entry: ManifestPlugin };

/** Per-sync state: item results in payload order, removal errors, the pending registry patch. */
class SyncRun {
  readonly skills: SyncItemResult[];
  readonly plugins: SyncItemResult[];
  readonly mcps: SyncItemResult[];
  readonly removalErrors: SyncErrorEntry[] = [];
  readonly patch = new ClaudeRegistryPatch();
  readonly registryOwners = new Map<string, RegistryOwner>();
  readonly total: number;
  done = 0;

  constructor(payload: SyncPayload) {
    const result = (id: number | undefined, name: string): SyncItemResult => ({
      ...(id !== undefined && { id }),
      name,
      status: "synced",
    });
    this.skills = payload.skills.map((s) => result(s.skillId, s.name));
    this.plugins = payload.plugins.map((p) => result(p.installedPluginId, p.name));
    this.mcps = payload.mcps.map((m) => result(m.installedMcpId, m.name));
    this.total = this.skills.length + this.plugins.length + this.mcps.length;
  }

  finish(): void {
    this.done++;
  }

  removalFailed(entry: { kind: CapabilityKind; id: number | undefined; name: string; error: string }): void {
    this.removalErrors.push({
      kind: entry.kind,
      ...(entry.id !== undefined && { id: entry.id }),
      name: entry.name,
      error: entry.error,
    });
  }

  ack(): SyncItemsAck {
    const failures = (kind: CapabilityKind, results: SyncItemResult[]): SyncErrorEntry[] =>
      results
        .filter((r) => r.status === "failed")
        .map((r) => ({
          kind,
          ...(r.id !== undefined && { id: r.id }),
          name: r.name,
          error: r.error ?? "failed",
        }));
    const errors = [
      ...this.removalErrors,
      ...failures("skill", this.skills),
      ...failures("plugin", this.plugins),
      ...failures("mcp", this.mcps),
    ];
    return {
      success: errors.length === 0,
      skills: this.skills,
      plugins: this.plugins,
      mcps: this.mcps,
      errors,
    };
  }
}
