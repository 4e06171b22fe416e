// What a capability sync killed half-way leaves under names only Gatehouse makes: the temp file of an
// atomic write (`.<file>.gatehouse-<12 hex>`, src/core/store/atomic-write.ts) next to each file the
// sync writes, and a link or copy being built under `.gatehouse-link-<12 hex>` (links.ts) in a
// runtime folder. Start-up removes them (issue 30); nothing else is matched, so a user's file with
// any other name is never touched.
import fs from "node:fs/promises";
import path from "node:path";
import type { AppPaths } from "../../paths.js";
import { gatehouseMarketplaceRoot, knownMarketplacesFile } from "./claude-marketplaces.js";
import { claudeFilePaths } from "./claude-registry.js";
import { codexConfigFile, gatehouseCodexMarketplacesDir } from "./codex-marketplaces.js";
import { lastSyncFile } from "../last-sync.js";
import { syncJournalFile } from "./sync-journal.js";

const TEMP_LINK = /^\.gatehouse-link-[0-9a-f]{12}$/;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function list(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => [] as string[]);
}

/** Removes the temp files an interrupted atomic write of `file` left next to it (or next to its target). */
async function removeWriteTemps(file: string): Promise<void> {
  const places = [file];
  // A user file kept as a link (dotfiles) is written through to its target, and so is its temp file.
  const stat = await fs.lstat(file).catch(() => null);
  if (stat?.isSymbolicLink()) {
    const target = await fs.realpath(file).catch(() => null);
    if (target) places.push(target);
  }
  for (const place of places) {
    const temp = new RegExp(`^\\.${escape(path.basename(place))}\\.gatehouse-[0-9a-f]{12}$`);
    const dir = path.dirname(place);
    for (const name of (await list(dir)).filter((n) => temp.test(n))) {
      const leftover = path.join(dir, name);
      if ((await fs.lstat(leftover)).isFile()) await fs.rm(leftover, { force: true });
    }
  }
}

export async function removeLeftovers(paths: AppPaths): Promise<void> {
  const claude = claudeFilePaths(paths.claudeHome);
  const files = [
    claude.registry,
    claude.settings,
    knownMarketplacesFile(paths.claudeHome),
    codexConfigFile(paths.codexHome),
    paths.capabilityManifest,
    lastSyncFile(paths.capabilitiesDir),
    syncJournalFile(paths),
    // Claude Code's one `gatehouse` marketplace listing (claude-marketplaces.ts)
    path.join(gatehouseMarketplaceRoot(paths), ".claude-plugin", "marketplace.json"),
  ];
  for (const root of [gatehouseCodexMarketplacesDir(paths)])
    for (const marketplace of await list(root))
      files.push(path.join(root, marketplace, ".claude-plugin", "marketplace.json"));
  for (const file of files) await removeWriteTemps(file);

  // Links and copies being built: links go with unlink only; a copy is a folder of Gatehouse's.
  const cache = path.join(paths.claudeHome, "plugins", "cache");
  const runtimeDirs = [
    path.join(paths.claudeHome, "skills"),
    path.join(paths.codexHome, "skills"),
    path.join(paths.codexHome, "plugins"),
  ];
  for (const marketplace of await list(cache))
    for (const name of await list(path.join(cache, marketplace)))
      runtimeDirs.push(path.join(cache, marketplace, name));
  for (const dir of runtimeDirs) {
    for (const name of (await list(dir)).filter((n) => TEMP_LINK.test(n))) {
      const leftover = path.join(dir, name);
      const stat = await fs.lstat(leftover).catch(() => null);
      if (stat?.isSymbolicLink()) await fs.unlink(leftover);
      else if (stat?.isDirectory()) await fs.rm(leftover, { recursive: true, force: true });
    }
  }
}
