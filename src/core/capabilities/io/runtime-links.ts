// The runtime links of the manifest's entries as a whole (device-protocol.md §7.6, §11): placing and
// retiring an entry's links, and finding the links no entry records (left by a sync killed half-way).
// Shared by the sync engine and the start-up reconciliation, so both apply one ownership rule.
import fs from "node:fs/promises";
import path from "node:path";
import type { AppPaths } from "../../paths.js";
import type { ClaudeFiles, ClaudeRegistryPatch } from "./claude-registry.js";
import { claudeKeysOf } from "./claude-plugin-keys.js";
import {
  inspectRuntimePath,
  isInside,
  placeLink,
  removeEmptyFolders,
  removeOwnedPath,
  resolveStoreRoots,
  type LinkOptions,
} from "./links.js";
import { manifestPath, type CapabilityManifest, type ManifestRuntime } from "./manifest.js";

export interface RuntimeLinksOptions {
  paths: AppPaths;
  platform?: NodeJS.Platform;
  symlink?: LinkOptions["symlink"];
}

export class RuntimeLinks {
  readonly cacheDir: string;
  private storeRoots: string[] | undefined;

  constructor(private readonly options: RuntimeLinksOptions) {
    this.cacheDir = path.join(options.paths.claudeHome, "plugins", "cache");
  }

  /** Resolves the store's real path once per sync (it is a temp folder under a linked /tmp in tests). */
  async refreshStoreRoots(): Promise<void> {
    this.storeRoots = await resolveStoreRoots(this.options.paths.capabilityStore);
  }

  linkOptions(copies: Iterable<string> = []): LinkOptions {
    return {
      store: this.options.paths.capabilityStore,
      storeRoots: this.storeRoots,
      platform: this.options.platform,
      copies: new Set(copies),
      symlink: this.options.symlink,
    };
  }

  /** A manifest path (absolute, or `~/…`) as an absolute path. */
  resolve(p: string): string {
    return path.resolve(manifestPath(p, this.options.paths.home));
  }

  copiesOf(runtime: ManifestRuntime | undefined): string[] {
    return (runtime?.copies ?? []).map((p) => this.resolve(p));
  }

  /** Places the links of an item and returns the ones that had to be copies. */
  async placeLinks(links: string[], target: string, previousCopies: string[]): Promise<string[]> {
    const options = this.linkOptions(previousCopies);
    const copies: string[] = [];
    for (const link of links) {
      if ((await placeLink(link, target, options)) === "copied") copies.push(link);
    }
    return copies;
  }

  /** Removes an entry's owned runtime paths (never user content), except those in `keep`. */
  async removeRuntime(
    runtime: ManifestRuntime | undefined,
    cacheParent: boolean,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const options = this.linkOptions(this.copiesOf(runtime));
    for (const link of [runtime?.claude_link, runtime?.codex_link]) {
      if (!link) continue;
      const p = this.resolve(link);
      if (keep.has(p)) continue;
      await removeOwnedPath(p, options);
      if (cacheParent && link === runtime?.claude_link) await this.removeEmptyCacheFolders(p);
    }
  }

  async removeEmptyCacheFolders(claudeLink: string): Promise<void> {
    if (isInside(claudeLink, this.cacheDir))
      await removeEmptyFolders(path.dirname(claudeLink), this.cacheDir);
  }

  /** Every runtime path the manifest records, resolved. */
  expectedRuntimePaths(manifest: CapabilityManifest): Set<string> {
    const out = new Set<string>();
    for (const entry of [...Object.values(manifest.skills), ...Object.values(manifest.plugins)]) {
      for (const link of [entry.runtime?.claude_link, entry.runtime?.codex_link])
        if (link) out.add(this.resolve(link));
    }
    return out;
  }

  /** Owned links in the runtime folders that no manifest entry records (left by an interrupted sync). */
  async findOrphanLinks(manifest: CapabilityManifest): Promise<string[]> {
    const { claudeHome, codexHome } = this.options.paths;
    const expected = this.expectedRuntimePaths(manifest);
    const options = this.linkOptions();
    const candidates: string[] = [];
    const list = async (dir: string) =>
      (await fs.readdir(dir).catch(() => [] as string[])).map((n) => path.join(dir, n));
    for (const dir of [
      path.join(claudeHome, "skills"),
      path.join(codexHome, "skills"),
      path.join(codexHome, "plugins"),
    ]) {
      candidates.push(...(await list(dir)));
    }
    const isRealFolder = async (p: string) => (await fs.lstat(p).catch(() => null))?.isDirectory() ?? false;
    for (const marketplace of await list(this.cacheDir)) {
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

  /** Registry keys that point at orphaned cache links go with those links (added to `patch`). */
  orphanRegistryKeys(
    orphans: string[],
    manifest: CapabilityManifest,
    claude: ClaudeFiles,
    patch: ClaudeRegistryPatch,
  ): void {
    const orphanCache = new Set(orphans.filter((o) => isInside(o, this.cacheDir)));
    if (orphanCache.size === 0) return;
    const heldKeys = claudeKeysOf(manifest);
    for (const [key, value] of Object.entries(claude.plugins)) {
      if (manifest.plugins[key]?.managed === true || patch.plugins.has(key) || heldKeys.has(key)) continue;
      const first = Array.isArray(value) ? (value[0] as Record<string, unknown> | undefined) : undefined;
      if (typeof first?.installPath === "string" && orphanCache.has(first.installPath))
        patch.removePlugin(key);
    }
  }

  /** Unlinks orphaned links; returns what could not be removed (logged by the caller). */
  async removeOrphans(orphans: string[]): Promise<Array<{ path: string; error: unknown }>> {
    const options = this.linkOptions();
    const failures: Array<{ path: string; error: unknown }> = [];
    for (const orphan of orphans) {
      try {
        await removeOwnedPath(orphan, options);
        await this.removeEmptyCacheFolders(orphan);
      } catch (error) {
        failures.push({ path: orphan, error });
      }
    }
    return failures;
  }
}
