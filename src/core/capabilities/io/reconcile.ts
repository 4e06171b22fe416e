// Start-up reconciliation (issue 18): a sync killed half-way through its apply stage leaves runtime
// links, the Claude registry and the manifest disagreeing. Before the device connects (and so before
// the first heartbeat), they are made to agree with the manifest — the last state a sync committed:
//   - each managed entry whose store folder holds its package gets its recorded links back (and, for
//     a plugin, its registry key and enabled flag); an entry whose folder was moved to the current
//     naming by the killed sync is pointed at it;
//   - an entry whose package is gone is dropped, with its owned links and registry key;
//   - owned links no entry records are removed, with registry keys pointing at them;
//   - store folders no entry references are garbage-collected.
// The user's files are never touched (the ownership rule of links.ts); revision and last_sync_at
// stay as they are: no sync was applied.
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../log.js";
import type { AppPaths } from "../../paths.js";
import {
  claudeFilePaths,
  ClaudeRegistryPatch,
  loadClaudeFiles,
  writeClaudeFiles,
  type ClaudeFiles,
} from "./claude-registry.js";
import { syncClaudeMarketplaces } from "./claude-marketplaces.js";
import { registerCodexPlugins } from "./codex-marketplaces.js";
import { cloneManifest, loadManifest, writeManifest, type ManifestRuntime } from "./manifest.js";
import { claudePluginKey, pluginStoreName, skillStoreName } from "../naming.js";
import { ourInstallPaths, unregisterPlugin } from "./claude-plugin-keys.js";
import type { RuntimeLinks } from "./runtime-links.js";
import type { CapabilityStore } from "./store.js";

export interface ReconcileDeps {
  paths: AppPaths;
  store: CapabilityStore;
  links: RuntimeLinks;
  logger: Logger;
  now?: () => Date;
}

export interface ReconcileSummary {
  /** Entries whose package was gone. */
  dropped: string[];
  orphansRemoved: number;
}

async function isFile(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isFile() ?? false;
}

const hasSkill = (dir: string) => isFile(path.join(dir, "SKILL.md"));
const hasPluginManifest = async (dir: string) =>
  (await isFile(path.join(dir, ".claude-plugin", "plugin.json"))) ||
  (await isFile(path.join(dir, ".codex-plugin", "plugin.json")));

export async function reconcileRuntime(deps: ReconcileDeps): Promise<ReconcileSummary> {
  const { paths, store, links, logger } = deps;
  const summary: ReconcileSummary = { dropped: [], orphansRemoved: 0 };
  const loaded = await loadManifest(paths.capabilityManifest);
  if (!loaded.ok) {
    logger.warn("left the capability links alone: the manifest cannot be read", { error: loaded.error });
    return summary;
  }
  const manifest = cloneManifest(loaded.manifest);
  let changed = false;
  const claudePaths = claudeFilePaths(paths.claudeHome);
  const files = await loadClaudeFiles(claudePaths);
  const claude: ClaudeFiles | null = files.ok ? files.value : null;
  if (!files.ok) logger.warn("left the Claude plugin registry alone", { error: files.error });
  const patch = new ClaudeRegistryPatch();
  const resolve = (p: string) => links.resolve(p);

  /** The entry's package folder: as recorded, else where the killed sync had just moved it. */
  const packageFolder = async (
    recorded: string | undefined,
    current: string | null,
    holds: (dir: string) => Promise<boolean>,
  ): Promise<string | null> => {
    const candidates = [recorded ? links.resolve(recorded) : null, current].filter((p): p is string => !!p);
    for (const dir of candidates) if (await holds(dir)) return dir;
    return null;
  };
  const relink = async (what: string, runtime: ManifestRuntime | undefined, target: string) => {
    const wanted = [runtime?.claude_link, runtime?.codex_link].filter((p): p is string => !!p);
    try {
      await links.placeLinks(
        wanted.map((p) => links.resolve(p)),
        target,
        links.copiesOf(runtime),
      );
    } catch (error) {
      // A user item now sits there: it stays; the next sync reports the conflict.
      logger.warn(`could not restore the links of ${what}`, { error: (error as Error).message });
    }
  };

  for (const [name, entry] of Object.entries(manifest.skills)) {
    if (entry.managed !== true) continue;
    const current =
      entry.skill_id !== undefined && entry.namespace !== undefined
        ? path.join(store.skillsDir, skillStoreName(entry.skill_id, entry.namespace, name))
        : null;
    const folder = await packageFolder(entry.store_path, current, hasSkill);
    if (!folder) {
      await links.removeRuntime(entry.runtime, false);
      delete manifest.skills[name];
      summary.dropped.push(`skill ${name}`);
      changed = true;
      continue;
    }
    if (folder !== (entry.store_path && links.resolve(entry.store_path))) {
      entry.store_path = folder;
      changed = true;
    }
    await relink(`skill ${name}`, entry.runtime, folder);
  }

  for (const [key, entry] of Object.entries(manifest.plugins)) {
    if (entry.managed !== true || !entry.store_path) continue;
    const current =
      entry.installed_plugin_id !== undefined && entry.marketplace && entry.name && entry.version
        ? path.join(
            store.pluginsDir,
            pluginStoreName(entry.installed_plugin_id, entry.marketplace, entry.name, entry.version),
          )
        : null;
    const folder = await packageFolder(entry.store_path, current, hasPluginManifest);
    if (!folder) {
      await links.removeRuntime(entry.runtime, true);
      unregisterPlugin(patch, key, entry, manifest, resolve);
      delete manifest.plugins[key];
      summary.dropped.push(`plugin ${key}`);
      changed = true;
      continue;
    }
    if (folder !== links.resolve(entry.store_path)) {
      entry.store_path = folder;
      changed = true;
    }
    await relink(`plugin ${key}`, entry.runtime, folder);
    const installPath = entry.runtime?.claude_link;
    if (claude && installPath && entry.version && entry.name) {
      // Registered as `<name>@gatehouse` (naming.ts); the key an earlier Gatehouse wrote goes.
      const claudeKey = claudePluginKey(entry.name);
      if (!Object.hasOwn(claude.plugins, claudeKey))
        patch.setPlugin(claudeKey, {
          installPath: links.resolve(installPath),
          version: entry.version,
          packageChanged: false,
        });
      if (!Object.hasOwn(claude.enabledPlugins, claudeKey)) {
        const earlier = claude.enabledPlugins[key];
        patch.setEnabled(claudeKey, typeof earlier === "boolean" ? earlier : (entry.enabled ?? true));
      }
      if (key !== claudeKey) patch.dropLegacy(key, ourInstallPaths(entry, resolve));
    }
  }

  const orphans = await links.findOrphanLinks(manifest);
  if (claude) links.orphanRegistryKeys(orphans, manifest, claude, patch);
  if (claude && !patch.isEmpty) {
    const written = await writeClaudeFiles(claudePaths, patch, (deps.now ?? (() => new Date()))());
    if (!written.ok) logger.warn("could not repair the Claude plugin registry", { error: written.error });
  }
  const failures = await links.removeOrphans(orphans);
  summary.orphansRemoved = orphans.length - failures.length;
  for (const failure of failures)
    logger.warn("could not remove a leftover link", { path: failure.path, error: String(failure.error) });
  if (changed) await writeManifest(paths.capabilityManifest, manifest);
  // Marketplace records a crash or an older Gatehouse left out (Claude Code would not load the plugins).
  const marketplaces = await syncClaudeMarketplaces(
    paths,
    manifest,
    (deps.now ?? (() => new Date()))(),
  ).catch((error: unknown) => ({ error: String(error) }));
  if (marketplaces.error)
    logger.warn("could not register the synced plugins' marketplaces", { error: marketplaces.error });
  await registerCodexPlugins(paths, manifest, logger);

  const referenced = new Set<string>();
  for (const entry of [...Object.values(manifest.skills), ...Object.values(manifest.plugins)])
    if (entry.store_path) referenced.add(links.resolve(entry.store_path));
  await store.collectGarbage(referenced);
  if (summary.dropped.length > 0 || summary.orphansRemoved > 0)
    logger.info("repaired capability links left by an interrupted sync", { ...summary });
  return summary;
}
