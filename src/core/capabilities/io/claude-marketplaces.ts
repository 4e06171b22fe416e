// Claude Code loads an installed plugin only when its marketplace is known: without a record in
// `CH/plugins/known_marketplaces.json` it reports "Marketplace <m> not found" and the session starts
// without it. Gatehouse registers one marketplace of its own, `gatehouse` (naming.ts), whatever
// marketplaces the backend names: Claude Code 2.1.332 refuses a directory marketplace registered
// under a reserved name (`claude-plugins-official`, …) or one that only looks official, and reads a
// directory marketplace's plugins only from `./` paths that stay inside its folder once links are
// resolved. So the marketplace's folder is `E/capabilities` itself: its `.claude-plugin/marketplace.json`
// lists each synced plugin by its store folder (`./store/plugins/<folder>`). The user's marketplaces are
// never touched; a record is Gatehouse's only when it points into `E/capabilities` (earlier versions
// registered one record per backend marketplace under `E/capabilities/marketplaces/<m>`: those go).
// When the last synced plugin goes, the record and the listing go too (docs/agent-clis.md).
import fs from "node:fs/promises";
import path from "node:path";
import type { AppPaths } from "../../paths.js";
import { writeFileAtomic } from "../../store/index.js";
import { CLAUDE_MARKETPLACE } from "../naming.js";
import { compareCodePoints } from "../canonical-json.js";
import type { CapabilityManifest } from "./manifest.js";
import { manifestPath } from "./manifest.js";
import { isInside } from "./links.js";
import { isRecord } from "../../../shared/is-record.js";

type Json = Record<string, unknown>;
type MarketplacePaths = Pick<AppPaths, "capabilitiesDir" | "claudeHome" | "home">;

export function knownMarketplacesFile(claudeHome: string): string {
  return path.join(claudeHome, "plugins", "known_marketplaces.json");
}

/** The folder Claude Code reads as the `gatehouse` marketplace: E/capabilities. */
export function gatehouseMarketplaceRoot(paths: Pick<AppPaths, "capabilitiesDir">): string {
  return paths.capabilitiesDir;
}

/** Where earlier versions kept one marketplace folder per backend marketplace (removed on sight). */
function legacyMarketplacesDir(paths: Pick<AppPaths, "capabilitiesDir">): string {
  return path.join(paths.capabilitiesDir, "marketplaces");
}

function listingFile(root: string): string {
  return path.join(root, ".claude-plugin", "marketplace.json");
}

/** A known_marketplaces.json record is Gatehouse's when it points into E/capabilities. */
function isOurs(record: unknown, root: string): boolean {
  const location =
    isRecord(record) && typeof record.installLocation === "string" ? record.installLocation : null;
  return location !== null && (path.resolve(location) === path.resolve(root) || isInside(location, root));
}

export type KnownMarketplaces = { ok: true; value: Json } | { ok: false; error: string };

export async function readKnownMarketplaces(claudeHome: string): Promise<KnownMarketplaces> {
  const file = knownMarketplacesFile(claudeHome);
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as unknown;
    if (!isRecord(parsed)) return { ok: false, error: `${file} could not be read (not a JSON object)` };
    return { ok: true, value: parsed };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, value: {} };
    return { ok: false, error: `${file} could not be read (${(error as Error).message})` };
  }
}

/**
 * Why synced plugins cannot be registered in Claude Code, or null: the user has a marketplace of
 * their own named `gatehouse` (Gatehouse never changes it), or known_marketplaces.json is unreadable.
 */
export function claudeMarketplaceProblem(
  known: KnownMarketplaces,
  paths: Pick<AppPaths, "capabilitiesDir" | "claudeHome">,
): string | null {
  if (!known.ok) return `${known.error}; fix or remove that file so Claude Code can load synced plugins`;
  const record = known.value[CLAUDE_MARKETPLACE];
  if (record === undefined || isOurs(record, gatehouseMarketplaceRoot(paths))) return null;
  return (
    `Claude Code already has a marketplace named "${CLAUDE_MARKETPLACE}" that Gatehouse did not register ` +
    `(${knownMarketplacesFile(paths.claudeHome)}); synced plugins are registered under that name. ` +
    `Remove or rename that marketplace (claude plugin marketplace remove ${CLAUDE_MARKETPLACE}) and sync again`
  );
}

interface ListedPlugin {
  name: string;
  source: string;
  version: string;
}

/**
 * The managed plugins with files, by their store folder relative to the marketplace root. A store
 * folder that leaves the root once links are resolved cannot be listed (Claude Code refuses it).
 */
async function listedPlugins(paths: MarketplacePaths, manifest: CapabilityManifest): Promise<ListedPlugin[]> {
  const root = gatehouseMarketplaceRoot(paths);
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  const byName = new Map<string, ListedPlugin>();
  for (const key of Object.keys(manifest.plugins).sort(compareCodePoints)) {
    const entry = manifest.plugins[key]!;
    if (entry.managed !== true || !entry.name || !entry.store_path || !entry.runtime?.claude_link) continue;
    if (byName.has(entry.name)) continue; // one plugin of a name per marketplace (sync-plan.ts refuses a second)
    const store = manifestPath(entry.store_path, paths.home);
    const real = await fs.realpath(store).catch(() => null);
    if (real === null || !isInside(real, realRoot)) continue;
    const relative = path.relative(realRoot, real).split(path.sep).join("/");
    byName.set(entry.name, { name: entry.name, source: `./${relative}`, version: entry.version ?? "latest" });
  }
  return [...byName.values()].sort((a, b) => compareCodePoints(a.name, b.name));
}

export interface MarketplaceOutcome {
  /** Whether Gatehouse's marketplace is registered after the call. */
  registered: boolean;
  /** Records of earlier versions (one per backend marketplace) that were removed. */
  removedLegacy: string[];
  /** Problem in words; nothing of the user's was written. */
  error: string | null;
}

/** Brings Gatehouse's marketplace listing and its record in line with the manifest's synced plugins. */
export async function syncClaudeMarketplaces(
  paths: MarketplacePaths,
  manifest: CapabilityManifest,
  now: Date,
): Promise<MarketplaceOutcome> {
  const outcome: MarketplaceOutcome = { registered: false, removedLegacy: [], error: null };
  const file = knownMarketplacesFile(paths.claudeHome);
  const root = gatehouseMarketplaceRoot(paths);
  const known = await readKnownMarketplaces(paths.claudeHome);
  const problem = claudeMarketplaceProblem(known, paths);
  if (!known.ok || problem !== null) {
    outcome.error = problem;
    return outcome;
  }
  const next: Json = { ...known.value };
  for (const name of Object.keys(known.value)) {
    if (name === CLAUDE_MARKETPLACE || !isOurs(known.value[name], root)) continue;
    delete next[name];
    outcome.removedLegacy.push(name);
  }
  await fs.rm(legacyMarketplacesDir(paths), { recursive: true, force: true });

  const plugins = await listedPlugins(paths, manifest);
  if (plugins.length > 0) {
    const listing = {
      name: CLAUDE_MARKETPLACE,
      owner: { name: "Gatehouse" },
      metadata: { description: "Plugins synced to this device by Gatehouse" },
      plugins,
    };
    await writeFileAtomic(listingFile(root), `${JSON.stringify(listing, null, 2)}\n`, { mode: 0o600 });
    const previous = isRecord(known.value[CLAUDE_MARKETPLACE])
      ? (known.value[CLAUDE_MARKETPLACE] as Json)
      : null;
    next[CLAUDE_MARKETPLACE] = {
      source: { source: "directory", path: root },
      installLocation: root,
      lastUpdated: typeof previous?.lastUpdated === "string" ? previous.lastUpdated : now.toISOString(),
    };
    outcome.registered = true;
  } else {
    delete next[CLAUDE_MARKETPLACE];
    await fs.rm(path.dirname(listingFile(root)), { recursive: true, force: true });
  }
  if (JSON.stringify(next) !== JSON.stringify(known.value)) {
    await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { keepMode: true, mode: 0o600 });
  }
  return outcome;
}
