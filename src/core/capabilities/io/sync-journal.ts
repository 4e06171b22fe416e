// The sync journal `E/capabilities/sync-journal.json` (issue 30). The apply stage of a sync changes
// two things the manifest alone cannot put back after a crash: a store folder replaced in place (a
// skill or plugin whose package changed keeps its folder name, so the old content is only in
// `.trash`) and the Claude registry keys and enabled flags it rewrites before the manifest records
// the sync. So before its first change the sync writes what it is about to replace — where each old
// folder goes in `.trash` and the previous value of each registry key and flag — and removes the
// journal once the manifest records the sync (then the old folders are deleted).
//
// A journal found at the next start (or by the sync's own failure path) means the sync stopped part
// way. If the manifest still has the revision the sync started from, the sync did not happen: each
// old folder goes back in place and each key and flag gets its previous value; links, marketplaces
// and garbage then follow the manifest (reconcile.ts). If the manifest moved on, the sync happened
// and only its clean-up was left: reconcile.ts finishes it. Every step here can itself be interrupted
// and run again. Only paths inside the store are ever moved.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../../log.js";
import type { AppPaths } from "../../paths.js";
import { writeFileAtomic } from "../../store/index.js";
import {
  claudeFilePaths,
  ClaudeRegistryPatch,
  writeClaudeFiles,
  type ClaudeFiles,
} from "./claude-registry.js";
import { isInside } from "./links.js";
import { loadManifest } from "./manifest.js";
import type { CapabilityStore } from "./store.js";

/** A store folder the sync replaces in place, and where its previous content waits until the commit. */
const SwapSchema = z.object({ path: z.string(), previous: z.string() });

/** A Claude registry key or enabled flag the sync may rewrite; `previous` absent: there was none. */
const KeyValueSchema = z.object({ key: z.string(), previous: z.unknown().optional() });

export const SyncJournalSchema = z.object({
  version: z.literal(1),
  /** The manifest revision the sync started from: a manifest still at it did not record the sync. */
  revision: z.number().int().nonnegative(),
  swaps: z.array(SwapSchema),
  plugins: z.array(KeyValueSchema),
  enabledPlugins: z.array(KeyValueSchema),
});
export type SyncJournal = z.infer<typeof SyncJournalSchema>;
export type SyncJournalSwap = z.infer<typeof SwapSchema>;

export function syncJournalFile(paths: Pick<AppPaths, "capabilitiesDir">): string {
  return path.join(paths.capabilitiesDir, "sync-journal.json");
}

/** The journal entries of the registry keys a sync may rewrite, with their values now. */
export function registryBefore(
  claude: ClaudeFiles | null,
  keys: Iterable<string>,
): Pick<SyncJournal, "plugins" | "enabledPlugins"> {
  const plugins: SyncJournal["plugins"] = [];
  const enabledPlugins: SyncJournal["enabledPlugins"] = [];
  if (!claude) return { plugins, enabledPlugins };
  for (const key of new Set(keys)) {
    plugins.push(Object.hasOwn(claude.plugins, key) ? { key, previous: claude.plugins[key] } : { key });
    enabledPlugins.push(
      Object.hasOwn(claude.enabledPlugins, key) ? { key, previous: claude.enabledPlugins[key] } : { key },
    );
  }
  return { plugins, enabledPlugins };
}

export async function writeSyncJournal(
  paths: Pick<AppPaths, "capabilitiesDir">,
  journal: SyncJournal,
): Promise<void> {
  await writeFileAtomic(syncJournalFile(paths), `${JSON.stringify(journal, null, 2)}\n`, {
    mode: 0o600,
    dirMode: 0o700,
  });
}

/**
 * After the manifest recorded the sync: the old folders and the journal go. Never throws: the sync is
 * done, and whatever stays (the journal of a recorded sync, folders in `.trash`) goes at the next start.
 */
export async function closeSyncJournal(
  paths: Pick<AppPaths, "capabilitiesDir">,
  store: CapabilityStore,
  journal: SyncJournal,
): Promise<void> {
  for (const swap of journal.swaps) await store.discard(swap.previous).catch(() => undefined);
  await fs.rm(syncJournalFile(paths), { force: true }).catch(() => undefined);
}

/** Whether a journal is still there (one start-up could not undo: its old folders must stay). */
export async function hasSyncJournal(paths: Pick<AppPaths, "capabilitiesDir">): Promise<boolean> {
  return exists(syncJournalFile(paths));
}

type JournalRead =
  { status: "none" } | { status: "ok"; journal: SyncJournal } | { status: "invalid"; error: string };

async function readSyncJournal(file: string): Promise<JournalRead> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "none" };
    return { status: "invalid", error: (error as Error).message };
  }
  try {
    const parsed = SyncJournalSchema.safeParse(JSON.parse(text));
    return parsed.success
      ? { status: "ok", journal: parsed.data }
      : { status: "invalid", error: parsed.error.issues[0]?.message ?? "not a sync journal" };
  } catch (error) {
    return { status: "invalid", error: (error as Error).message };
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

export interface UndoDeps {
  paths: AppPaths;
  store: CapabilityStore;
  logger: Logger;
  now?: () => Date;
}

export type UndoOutcome = "none" | "undone" | "committed" | "left";

/**
 * Undoes the sync a journal describes if the manifest does not record it (see the header); returns
 * what it found. Runs before the work folders are emptied: the old folders wait in `.trash`.
 */
export async function undoInterruptedSync(deps: UndoDeps): Promise<UndoOutcome> {
  const { paths, store, logger } = deps;
  const file = syncJournalFile(paths);
  const read = await readSyncJournal(file);
  if (read.status === "none") return "none";
  if (read.status === "invalid") {
    // Written atomically, so only a hand edit gets here: nothing can be undone with it.
    logger.warn("ignored an unreadable sync journal", { file, error: read.error });
    await fs.rm(file, { force: true });
    return "left";
  }
  const journal = read.journal;
  const manifest = await loadManifest(paths.capabilityManifest);
  if (!manifest.ok) {
    logger.warn("kept the sync journal: the manifest cannot be read", { error: manifest.error });
    return "left";
  }
  if (manifest.manifest.revision !== journal.revision) {
    await fs.rm(file, { force: true });
    return "committed";
  }
  // Old folders back in place; the new content goes to `.trash`, which start-up empties.
  await fs.mkdir(store.trashDir, { recursive: true, mode: 0o755 });
  for (const swap of [...journal.swaps].reverse()) {
    if (!isInside(swap.path, store.root) || !isInside(swap.previous, store.trashDir)) {
      logger.warn("ignored a sync journal entry outside the store", { ...swap });
      continue;
    }
    if (!(await exists(swap.previous))) continue; // never moved, or already back
    if (await exists(swap.path))
      await fs.rename(swap.path, path.join(store.trashDir, randomBytes(8).toString("hex")));
    await fs.rename(swap.previous, swap.path);
  }
  const patch = new ClaudeRegistryPatch();
  for (const entry of journal.plugins) patch.restorePlugin(entry.key, entry.previous);
  for (const entry of journal.enabledPlugins) patch.restoreEnabled(entry.key, entry.previous);
  if (!patch.isEmpty) {
    const written = await writeClaudeFiles(
      claudeFilePaths(paths.claudeHome),
      patch,
      (deps.now ?? (() => new Date()))(),
    );
    if (!written.ok) logger.warn("could not put the Claude plugin registry back", { error: written.error });
  }
  await fs.rm(file, { force: true });
  logger.info("undid a capability sync that was interrupted", {
    revision: journal.revision,
    folders: journal.swaps.length,
    keys: journal.plugins.length,
  });
  return "undone";
}
