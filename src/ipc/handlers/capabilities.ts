// The capability browser's state: the skill catalogue for the picked workspace, plugins, MCP servers,
// and the sync state (manifest revision and digest, last sync per item, progress of a running sync);
// and its actions: apply the last sync again (it asks the backend nothing), cancel the running sync, open a folder the screen was shown.
import fs from "node:fs/promises";
import path from "node:path";
import { buildCapabilityReport, loadManifest, readLastSync } from "../../core/capabilities/index.js";
import { emptyManifest } from "../../core/capabilities/io/manifest.js";
import { expandHome } from "../../core/paths.js";
import { readPluginRegistry } from "../../core/skills/io/plugin-registry.js";
import type { Catalogue } from "../../core/skills/index.js";
import { mcpRows, pluginRows, skillRows, type ViewInputs } from "../capability-view.js";
import type { CapabilitiesState } from "../contract.js";
import type { HandlerContext, Handlers } from "./types.js";

type CapabilityChannels =
  "capabilities.get" | "capabilities.requestSync" | "capabilities.cancelSync" | "capabilities.openFolder";

/** Paths kept for "Open folder" at most; past this the oldest half is forgotten. */
const MAX_REPORTED = 20_000;

/** Every path a capabilities answer showed: the only ones "Open folder" will open. */
function pathsOf(state: CapabilitiesState): string[] {
  const out: string[] = state.roots.map((r) => r.path);
  for (const row of [...state.skills, ...state.plugins, ...state.mcps]) {
    if ("path" in row && row.path) out.push(row.path);
    if ("realpath" in row && row.realpath) out.push(row.realpath);
    if ("installPath" in row && row.installPath) out.push(row.installPath);
    if ("storePath" in row && row.storePath) out.push(row.storePath);
    if ("links" in row) for (const l of row.links) out.push(l.path, ...(l.target ? [l.target] : []));
    for (const p of row.problem?.paths ?? []) out.push(p.path);
  }
  return out;
}

/** A folder that opens in the file manager: no extension, so no macOS package (`Foo.app`) is launched. */
function plainFolderName(p: string): boolean {
  return !/\.[A-Za-z0-9]+$/.test(path.basename(p));
}

async function pluginDescription(root: string | null): Promise<string | null> {
  if (!root) return null;
  for (const dir of [".claude-plugin", ".codex-plugin"]) {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(path.join(root, dir, "plugin.json"), "utf8"));
      if (
        parsed &&
        typeof parsed === "object" &&
        typeof (parsed as { description?: unknown }).description === "string"
      ) {
        return (parsed as { description: string }).description;
      }
    } catch {
      // no manifest, or not JSON: no description
    }
  }
  return null;
}

export function capabilitiesHandlers(ctx: HandlerContext): Pick<Handlers, CapabilityChannels> {
  const { paths } = ctx.services;
  const reported = new Set<string>();
  const remember = (state: CapabilitiesState) => {
    if (reported.size > MAX_REPORTED)
      for (const p of [...reported].slice(0, MAX_REPORTED / 2)) reported.delete(p);
    for (const p of pathsOf(state)) {
      reported.delete(p); // re-inserted: the newest stay when the oldest are forgotten
      reported.add(p);
    }
  };
  return {
    "capabilities.get": async ({ workspace }) => {
      const ws = workspace?.trim() ? path.resolve(expandHome(workspace.trim(), paths.home)) : null;
      let catalogue: Catalogue | null = null;
      let catalogueError: string | null = null;
      if (ctx.services.skills) {
        try {
          catalogue = await ctx.services.skills.buildCatalogue({ workspace: ws });
        } catch (error) {
          catalogueError = (error as Error).message;
        }
      } else {
        catalogueError = "The skill catalogue is not running in this app.";
      }
      const [loaded, lastSync, report, registry] = await Promise.all([
        loadManifest(paths.capabilityManifest),
        readLastSync(paths.capabilitiesDir),
        buildCapabilityReport(paths),
        readPluginRegistry({
          claudeHome: paths.claudeHome,
          codexHome: paths.codexHome,
          home: paths.home,
          workspace: ws,
        }),
      ]);
      const manifest = loaded.ok ? loaded.manifest : emptyManifest();
      const descriptions = new Map<string, string>();
      for (const plugin of registry.plugins) {
        const text = await pluginDescription(plugin.installPaths[0] ?? null);
        if (text) descriptions.set(plugin.key, text);
      }
      for (const [key, entry] of Object.entries(manifest.plugins)) {
        if (descriptions.has(key) || !entry.store_path) continue;
        const text = await pluginDescription(expandHome(entry.store_path, paths.home));
        if (text) descriptions.set(key, text);
      }
      const inputs: ViewInputs = {
        home: paths.home,
        store: paths.capabilityStore,
        catalogue,
        manifest,
        lastSync,
        reportPlugins: report.plugins,
        installedPlugins: registry.plugins,
        pluginDescriptions: descriptions,
        problems: {
          home: paths.home,
          store: paths.capabilityStore,
          claudeHome: paths.claudeHome,
          codexHome: paths.codexHome,
          manifest,
          payload: ctx.services.capabilities?.lastPayload() ?? null,
          installedPlugins: registry.plugins,
        },
      };
      const state: CapabilitiesState = {
        workspace: ws,
        catalogueVersion: catalogue?.version ?? 0,
        catalogueError,
        skills: await skillRows(inputs),
        plugins: await pluginRows(inputs),
        mcps: mcpRows(inputs),
        roots: (catalogue?.roots ?? []).map((r) => ({
          rank: r.rank,
          kind: r.kind,
          source: r.source,
          path: r.path,
          exists: r.exists,
          error: r.error,
          count: r.count,
        })),
        index: catalogue?.index ?? { count: 0, cost_chars: 0, cost_tokens: 0 },
        sync: {
          revision: manifest.revision,
          digest: report.digest,
          lastSyncAt: typeof manifest.last_sync_at === "string" ? manifest.last_sync_at : null,
          manifestPath: paths.capabilityManifest,
          manifestError: loaded.ok ? null : loaded.error,
          last: lastSync
            ? {
                finished_at: lastSync.finished_at,
                mode: lastSync.mode,
                revision: lastSync.revision,
                success: lastSync.success,
                skills: lastSync.skills,
                plugins: lastSync.plugins,
                mcps: lastSync.mcps,
              }
            : null,
          progress: ctx.events.currentProgress(),
          connection: ctx.services.device?.state().state ?? null,
          canRequest: (ctx.services.capabilities?.lastPayload() ?? null) !== null,
        },
      };
      remember(state);
      return state;
    },

    "capabilities.requestSync": async () => {
      const sync = ctx.services.capabilities;
      if (!sync) return { ok: false, reason: "Capability sync is not running in this app." };
      // One at a time from the window: repeated presses do not pile syncs up behind each other.
      if (ctx.events.currentProgress() !== null)
        return { ok: false, reason: "A sync is running now. Request it again once it has finished." };
      const run = sync.rerunLast();
      if (!run) {
        const connected = ctx.services.device?.state().state === "registered";
        return {
          ok: false,
          reason: connected
            ? "The backend has not sent a sync since Gatehouse connected. Sync this device from the Wegent web page."
            : "Gatehouse is not connected to a backend. Connect in Settings: the backend sends a sync when the device registers.",
        };
      }
      void run.then((ack) =>
        ctx.logger.info("capability sync requested from the window finished", { success: ack.success }),
      );
      return {
        ok: true,
        how: "rerun-last-payload",
        message:
          "Applying the last sync the backend sent again: items in place stay, the others are tried again. This asks the backend nothing (the device protocol has no such request): for a new sync, sync this device from the Wegent web page.",
      };
    },

    "capabilities.cancelSync": async () => {
      const outcome = ctx.services.capabilities?.cancelRunning() ?? "idle";
      if (outcome === "cancelled") return { ok: true, message: "Sync cancelled: nothing was changed." };
      if (outcome === "applying")
        return {
          ok: false,
          reason:
            "Too late to cancel: the sync is already applying its changes, which takes a moment. It finishes on its own.",
        };
      return { ok: false, reason: "No sync is running." };
    },

    "capabilities.openFolder": async ({ path: target }) => {
      if (!reported.has(target))
        return {
          ok: false,
          reason: "Gatehouse only opens folders this screen showed, and it did not show this one.",
        };
      let real: string;
      let isFolder: boolean;
      try {
        real = await fs.realpath(target);
        isFolder = (await fs.stat(real)).isDirectory();
      } catch {
        return { ok: false, reason: `${target} does not exist any more.` };
      }
      // A plain folder opens; anything else (a file, a package such as Foo.app) is only shown in its
      // folder, so nothing is ever run.
      if (isFolder && plainFolderName(target) && plainFolderName(real)) {
        const problem = await ctx.host.openPath(target);
        return problem ? { ok: false, reason: problem } : { ok: true };
      }
      await ctx.host.revealPath(target);
      return { ok: true };
    },
  };
}
