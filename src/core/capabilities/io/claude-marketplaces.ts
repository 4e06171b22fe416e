// Claude Code 2.1 loads an installed plugin only when its marketplace is known: without a record in
// `CH/plugins/known_marketplaces.json` it reports "Marketplace <m> not found" and the session starts
// without it. For each marketplace of the synced plugins that the user has not registered, Gatehouse
// keeps a marketplace of its own (a directory marketplace under `E/capabilities/marketplaces/<m>`
// whose `.claude-plugin/marketplace.json` lists the synced plugins by their installed folder) and
// its record in known_marketplaces.json. A marketplace the user registered is never touched: their
// record already resolves the key. Records are Gatehouse's only when they point into its folder;
// when its last synced plugin goes, the record and the folder go too (docs/decisions.md "Skills for
// agents").
import fs from "node:fs/promises";
import path from "node:path";
import type { AppPaths } from "../../paths.js";
import { writeFileAtomic } from "../../store/index.js";
import type { CapabilityManifest } from "./manifest.js";
import { isInside } from "./links.js";
import { isRecord } from "../../../shared/is-record.js";

type Json = Record<string, unknown>;

export function knownMarketplacesFile(claudeHome: string): string {
  return path.join(claudeHome, "plugins", "known_marketplaces.json");
}

export function gatehouseMarketplacesDir(paths: Pick<AppPaths, "capabilityManifest">): string {
  return path.join(path.dirname(paths.capabilityManifest), "marketplaces");
}

interface SyncedPlugin {
  name: string;
  marketplace: string;
  version: string;
  installPath: string;
}

/** The managed plugins with files on disk, grouped by marketplace. */
function syncedByMarketplace(manifest: CapabilityManifest): Map<string, SyncedPlugin[]> {
  const out = new Map<string, SyncedPlugin[]>();
  for (const entry of Object.values(manifest.plugins)) {
    const link = entry.runtime?.claude_link;
    if (entry.managed !== true || !entry.name || !entry.marketplace || !link) continue;
    const list = out.get(entry.marketplace) ?? [];
    list.push({
      name: entry.name,
      marketplace: entry.marketplace,
      version: entry.version ?? "latest",
      installPath: link,
    });
    out.set(entry.marketplace, list);
  }
  return out;
}

export interface MarketplaceOutcome {
  /** Marketplaces Gatehouse registered or updated. */
  registered: string[];
  /** Gatehouse's marketplaces removed (no synced plugin left in them). */
  removed: string[];
  /** Problem in words (the user's known_marketplaces.json could not be read); nothing was written. */
  error: string | null;
}

/** Brings Gatehouse's marketplaces and their records in line with the manifest's synced plugins. */
export async function syncClaudeMarketplaces(
  paths: Pick<AppPaths, "capabilityManifest" | "claudeHome">,
  manifest: CapabilityManifest,
  now: Date,
): Promise<MarketplaceOutcome> {
  const outcome: MarketplaceOutcome = { registered: [], removed: [], error: null };
  const file = knownMarketplacesFile(paths.claudeHome);
  const root = gatehouseMarketplacesDir(paths);
  let known: Json;
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as unknown;
    if (!isRecord(parsed)) throw new Error("not a JSON object");
    known = parsed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      outcome.error = `${file} could not be read (${(error as Error).message}); synced plugins may not load`;
      return outcome;
    }
    known = {};
  }
  const ours = (name: string) => {
    const record = known[name];
    const location =
      isRecord(record) && typeof record.installLocation === "string" ? record.installLocation : null;
    return location !== null && isInside(location, root);
  };
  const next: Json = { ...known };
  const wanted = syncedByMarketplace(manifest);
  for (const [marketplace, plugins] of wanted) {
    if (marketplace in known && !ours(marketplace)) continue; // the user's own record resolves it
    const folder = path.join(root, marketplace);
    const listing = {
      name: marketplace,
      owner: { name: "Gatehouse" },
      metadata: { description: "Plugins synced by Gatehouse" },
      plugins: plugins
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((p) => ({ name: p.name, source: p.installPath, version: p.version })),
    };
    await writeFileAtomic(
      path.join(folder, ".claude-plugin", "marketplace.json"),
      `${JSON.stringify(listing, null, 2)}\n`,
      { mode: 0o600 },
    );
    const previous = isRecord(known[marketplace]) ? (known[marketplace] as Json) : null;
    next[marketplace] = {
      source: { source: "directory", path: folder },
      installLocation: folder,
      lastUpdated: typeof previous?.lastUpdated === "string" ? previous.lastUpdated : now.toISOString(),
    };
    outcome.registered.push(marketplace);
  }
  for (const marketplace of Object.keys(known)) {
    if (wanted.has(marketplace) || !ours(marketplace)) continue;
    delete next[marketplace];
    await fs.rm(path.join(root, marketplace), { recursive: true, force: true });
    outcome.removed.push(marketplace);
  }
  if (JSON.stringify(next) !== JSON.stringify(known)) {
    await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { keepMode: true, mode: 0o600 });
  }
  return outcome;
}
