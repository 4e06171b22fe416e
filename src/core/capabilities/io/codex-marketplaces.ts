// Codex 0.169 loads a plugin only when three things agree (codex-rs/core/src/plugins/store.rs,
// manager.rs; checked with the real CLI): a marketplace in `[marketplaces.<m>]` of `XH/config.toml`
// whose marketplace.json lists the plugin by a `./`-relative source (an absolute source hides it), a
// `[plugins."<name>@<m>"]` table with `enabled`, and an installed copy in
// `XH/plugins/cache/<m>/<name>/<version>`, a real folder (a link there is skipped: Codex reads the
// folder's entries without following links). The link in `XH/plugins` alone loads nothing.
//
// For the synced plugins Gatehouse keeps, like the Claude side (claude-marketplaces.ts), a marketplace
// of its own per marketplace name: `E/capabilities/codex-marketplaces/<m>` with
// `.claude-plugin/marketplace.json` and `plugins/<name>` links into the store, its `[marketplaces.<m>]`
// record, one `[plugins."<key>"]` table per plugin, and a copy of the package in Codex's cache marked
// with `.gatehouse-copy` (links.ts). Ownership: a record is Gatehouse's when its source lies in that
// folder; a plugin table when its key is listed in Gatehouse's marketplace.json or its cache copy
// carries the marker. A marketplace name the user configured, a key the user has, or a cache folder
// holding anything else is left alone and the plugin is not registered in Codex. Everything else in
// config.toml stays as written (toml-tables.ts).
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Logger } from "../../log.js";
import type { AppPaths } from "../../paths.js";
import { writeFileAtomic } from "../../store/index.js";
import { isRecord } from "../../../shared/is-record.js";
import {
  COPY_MARKER,
  copyMarkerText,
  inspectRuntimePath,
  isInside,
  parseCopyMarker,
  placeLink,
  removeEmptyFolders,
  type LinkOptions,
} from "./links.js";
import { manifestPath, type CapabilityManifest } from "./manifest.js";
import { editTomlTables, type TableEdit } from "./toml-tables.js";

type CodexPaths = Pick<AppPaths, "capabilityManifest" | "capabilityStore" | "codexHome" | "home">;

export function codexConfigFile(codexHome: string): string {
  return path.join(codexHome, "config.toml");
}

export function codexPluginCacheDir(codexHome: string): string {
  return path.join(codexHome, "plugins", "cache");
}

export function gatehouseCodexMarketplacesDir(paths: Pick<AppPaths, "capabilityManifest">): string {
  return path.join(path.dirname(paths.capabilityManifest), "codex-marketplaces");
}

/** Codex's rule for marketplace and plugin names (codex-rs plugin id: ASCII letters, digits, `_`, `-`). */
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** Codex's rule for a cache version folder (store.rs `validate_plugin_version_segment`). */
const VERSION = /^[A-Za-z0-9._+-]+$/;

const COPY_TEMP_PREFIX = ".gatehouse-copy-";

interface SyncedPlugin {
  key: string;
  name: string;
  marketplace: string;
  version: string;
  enabled: boolean;
  storePath: string;
  /** The package's checksum, when the backend sent one: a copy of another package is copied again. */
  checksum?: string;
}

export interface CodexPluginOutcome {
  /** Keys registered (or kept registered) in Codex. */
  registered: string[];
  /** Keys Gatehouse had registered and removed. */
  removed: string[];
  /** Synced plugins left out of Codex, with the reason. */
  skipped: Array<{ key: string; reason: string }>;
  /** Problem in words (config.toml unreadable or not editable); config.toml was not written. */
  error: string | null;
}

function syncedPlugins(manifest: CapabilityManifest, home: string): SyncedPlugin[] {
  const out: SyncedPlugin[] = [];
  for (const [key, entry] of Object.entries(manifest.plugins)) {
    if (entry.managed !== true || !entry.name || !entry.marketplace || !entry.store_path) continue;
    if (!entry.runtime?.codex_link) continue;
    const version =
      entry.version && VERSION.test(entry.version) && !/^\.\.?$/.test(entry.version)
        ? entry.version
        : "local";
    out.push({
      key,
      name: entry.name,
      marketplace: entry.marketplace,
      version,
      enabled: entry.enabled !== false,
      storePath: path.resolve(manifestPath(entry.store_path, home)),
      ...(entry.checksum !== undefined && { checksum: entry.checksum }),
    });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

async function list(dir: string): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [] as string[])).sort();
}

/** Keys Gatehouse's marketplace listings name (what it registered last time). */
async function listedKeys(root: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const marketplace of await list(root)) {
    const file = path.join(root, marketplace, ".claude-plugin", "marketplace.json");
    const parsed = await fs
      .readFile(file, "utf8")
      .then((t) => JSON.parse(t) as unknown)
      .catch(() => null);
    const plugins = isRecord(parsed) && Array.isArray(parsed.plugins) ? parsed.plugins : [];
    for (const p of plugins)
      if (isRecord(p) && typeof p.name === "string") keys.add(`${p.name}@${marketplace}`);
  }
  return keys;
}

interface CacheState {
  /** Gatehouse's copies by key: version folder → its marker (the store folder and package it copies). */
  owned: Map<string, Map<string, string>>;
  /** Keys whose cache folder holds something that is not Gatehouse's copy. */
  foreign: Set<string>;
}

async function readCache(cacheDir: string, options: LinkOptions): Promise<CacheState> {
  const state: CacheState = { owned: new Map(), foreign: new Set() };
  for (const marketplace of await list(cacheDir)) {
    if (marketplace.startsWith(".")) continue;
    for (const name of await list(path.join(cacheDir, marketplace))) {
      const key = `${name}@${marketplace}`;
      const base = path.join(cacheDir, marketplace, name);
      for (const version of await list(base)) {
        const folder = path.join(base, version);
        const seen = await inspectRuntimePath(folder, { ...options, copies: new Set([folder]) });
        if (seen.kind === "owned" && seen.copy) {
          const copies = state.owned.get(key) ?? new Map<string, string>();
          const marker = parseCopyMarker(
            await fs.readFile(path.join(folder, COPY_MARKER), "utf8").catch(() => ""),
          );
          copies.set(folder, copyMarkerText(seen.target, marker.packageId ?? undefined));
          state.owned.set(key, copies);
        } else if (seen.kind !== "absent") state.foreign.add(key);
      }
    }
  }
  return state;
}

/** A temp name in the cache root for a copy being built or taken away (swept at every registration). */
function copyTemp(cacheDir: string): string {
  return path.join(cacheDir, `${COPY_TEMP_PREFIX}${randomBytes(6).toString("hex")}`);
}

/**
 * Deletes Gatehouse's copy at `folder`: renamed out of Codex's view first, then deleted. Deleted in
 * place, a kill part way would leave a folder without its marker — a plugin Codex installed itself,
 * as far as anyone can tell, which keeps the plugin out of Codex for good (issue 30).
 */
async function removeCacheCopy(folder: string, cacheDir: string): Promise<void> {
  const temp = copyTemp(cacheDir);
  try {
    await fs.rename(folder, temp);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  await fs.rm(temp, { recursive: true, force: true });
}

/** A real folder copy of the store folder at `folder` (Codex skips links there), marked as Gatehouse's. */
async function placeCacheCopy(folder: string, plugin: SyncedPlugin, cacheDir: string): Promise<void> {
  const { storePath } = plugin;
  await fs.mkdir(cacheDir, { recursive: true, mode: 0o755 });
  // Built outside the plugin's folder: Codex takes any folder there as a version.
  const temp = copyTemp(cacheDir);
  try {
    await fs.cp(storePath, temp, { recursive: true, verbatimSymlinks: true });
    await fs.writeFile(path.join(temp, COPY_MARKER), copyMarkerText(storePath, plugin.checksum), {
      mode: 0o644,
    });
    await fs.mkdir(path.dirname(folder), { recursive: true, mode: 0o755 });
    await removeCacheCopy(folder, cacheDir); // the caller checked it is Gatehouse's copy
    await fs.rename(temp, folder);
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/** config.toml's text, "" when absent; a link (dotfiles) is written through to its target. */
async function readConfig(file: string): Promise<{ text: string; target: string }> {
  let target = file;
  try {
    if ((await fs.lstat(file)).isSymbolicLink()) target = await fs.realpath(file);
  } catch {
    // absent
  }
  try {
    return { text: await fs.readFile(target, "utf8"), target };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: "", target };
    throw error;
  }
}

/** Brings Codex's registration of the synced plugins in line with the manifest. */
export async function syncCodexPlugins(
  paths: CodexPaths,
  manifest: CapabilityManifest,
): Promise<CodexPluginOutcome> {
  const outcome: CodexPluginOutcome = { registered: [], removed: [], skipped: [], error: null };
  const configFile = codexConfigFile(paths.codexHome);
  const cacheDir = codexPluginCacheDir(paths.codexHome);
  const root = gatehouseCodexMarketplacesDir(paths);
  const linkOptions: LinkOptions = { store: paths.capabilityStore };

  let config: { text: string; target: string };
  let parsed: Record<string, unknown>;
  try {
    config = await readConfig(configFile);
    parsed = parseToml(config.text) as Record<string, unknown>;
  } catch (error) {
    outcome.error = `${configFile} could not be read (${(error as Error).message.split("\n")[0]}); synced plugins are not registered in Codex`;
    return outcome;
  }
  const marketplaces = isRecord(parsed.marketplaces) ? parsed.marketplaces : {};
  const pluginTables = isRecord(parsed.plugins) ? parsed.plugins : {};
  const ourMarketplace = (m: string) => {
    const record = marketplaces[m];
    return isRecord(record) && typeof record.source === "string" && isInside(record.source, root);
  };
  for (const name of await list(cacheDir))
    // copies an interrupted sync was building
    if (name.startsWith(COPY_TEMP_PREFIX))
      await fs.rm(path.join(cacheDir, name), { recursive: true, force: true });
  const cache = await readCache(cacheDir, linkOptions);
  const previous = new Set([...(await listedKeys(root)), ...cache.owned.keys()]);

  // What goes in: the synced plugins whose names are free in Codex or already Gatehouse's.
  const accepted: SyncedPlugin[] = [];
  for (const plugin of syncedPlugins(manifest, paths.home)) {
    const skip = (reason: string) => outcome.skipped.push({ key: plugin.key, reason });
    if (!SEGMENT.test(plugin.name) || !SEGMENT.test(plugin.marketplace))
      skip("Codex takes only ASCII letters, digits, _ and - in plugin and marketplace names");
    else if (plugin.marketplace in marketplaces && !ourMarketplace(plugin.marketplace))
      skip(`the marketplace ${plugin.marketplace} in ${configFile} is the user's`);
    else if (plugin.key in pluginTables && !previous.has(plugin.key))
      skip(`${configFile} already has [plugins."${plugin.key}"] (the user's)`);
    else if (cache.foreign.has(plugin.key))
      skip(`${path.join(cacheDir, plugin.marketplace, plugin.name)} holds a plugin Codex installed itself`);
    else accepted.push(plugin);
  }
  const acceptedKeys = new Set(accepted.map((p) => p.key));
  const wantedMarketplaces = new Map<string, SyncedPlugin[]>();
  for (const plugin of accepted)
    wantedMarketplaces.set(plugin.marketplace, [
      ...(wantedMarketplaces.get(plugin.marketplace) ?? []),
      plugin,
    ]);

  // 1. The copies Codex loads.
  for (const plugin of accepted) {
    const folder = path.join(cacheDir, plugin.marketplace, plugin.name, plugin.version);
    const copies = cache.owned.get(plugin.key) ?? new Map<string, string>();
    // a package replaced in its store folder (same version, new checksum) is copied again
    if (copies.get(folder) !== copyMarkerText(plugin.storePath, plugin.checksum))
      await placeCacheCopy(folder, plugin, cacheDir);
    for (const other of copies.keys()) if (other !== folder) await removeCacheCopy(other, cacheDir);
  }

  // 2. config.toml: Gatehouse's tables only.
  const edit: TableEdit = { remove: [], set: [] };
  for (const m of Object.keys(marketplaces))
    if (ourMarketplace(m) && !wantedMarketplaces.has(m)) edit.remove.push(["marketplaces", m]);
  for (const key of previous)
    // A key whose cache Codex itself has re-installed since is the user's now.
    if (!acceptedKeys.has(key) && key in pluginTables && !cache.foreign.has(key))
      edit.remove.push(["plugins", key]);
  for (const m of wantedMarketplaces.keys())
    edit.set.push({
      path: ["marketplaces", m],
      values: { source_type: "local", source: path.join(root, m) },
    });
  for (const plugin of accepted)
    edit.set.push({ path: ["plugins", plugin.key], values: { enabled: plugin.enabled } });
  const edited = editTomlTables(config.text, edit);
  if (!edited.ok) {
    outcome.error = `${configFile} ${edited.error}; synced plugins are not registered in Codex`;
    return outcome;
  }
  if (edited.changed) await writeFileAtomic(config.target, edited.text, { keepMode: true, mode: 0o600 });

  // 3. Gatehouse's marketplaces: listings and their links into the store.
  for (const [m, plugins] of wantedMarketplaces) {
    const folder = path.join(root, m);
    for (const plugin of plugins)
      await placeLink(path.join(folder, "plugins", plugin.name), plugin.storePath, linkOptions);
    const names = new Set(plugins.map((p) => p.name));
    for (const name of await list(path.join(folder, "plugins")))
      if (!names.has(name)) await fs.rm(path.join(folder, "plugins", name), { force: true, recursive: true });
    const listing = {
      name: m,
      owner: { name: "Gatehouse" },
      metadata: { description: "Plugins synced by Gatehouse" },
      plugins: plugins.map((p) => ({ name: p.name, source: `./plugins/${p.name}`, version: p.version })),
    };
    await writeFileAtomic(
      path.join(folder, ".claude-plugin", "marketplace.json"),
      `${JSON.stringify(listing, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
  }
  for (const m of await list(root))
    if (!wantedMarketplaces.has(m)) await fs.rm(path.join(root, m), { recursive: true, force: true });

  // 4. Copies of plugins that went.
  for (const [key, copies] of cache.owned) {
    if (acceptedKeys.has(key)) continue;
    for (const folder of copies.keys()) {
      await removeCacheCopy(folder, cacheDir);
      await removeEmptyFolders(path.dirname(folder), path.dirname(cacheDir)); // cache/ too, once empty
    }
  }
  for (const key of previous) if (!acceptedKeys.has(key)) outcome.removed.push(key);
  outcome.registered.push(...acceptedKeys);
  return outcome;
}

/** `syncCodexPlugins` for the sync and start-up: problems are logged, never thrown (Claude is unaffected). */
export async function registerCodexPlugins(
  paths: CodexPaths,
  manifest: CapabilityManifest,
  logger: Logger,
): Promise<void> {
  try {
    const outcome = await syncCodexPlugins(paths, manifest);
    if (outcome.error)
      logger.warn("could not register the synced plugins in Codex", { error: outcome.error });
    for (const skipped of outcome.skipped)
      logger.warn("synced plugin not registered in Codex", { plugin: skipped.key, reason: skipped.reason });
  } catch (error) {
    logger.warn("could not register the synced plugins in Codex", { error: (error as Error).message });
  }
}
