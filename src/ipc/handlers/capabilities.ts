// The capability browser's state: the skill catalogue for the picked workspace, plugins, MCP servers,
// and the sync state (manifest revision and digest, last sync per item, progress of a running sync).
import fs from "node:fs/promises";
import path from "node:path";
import { buildCapabilityReport, loadManifest, readLastSync } from "../../core/capabilities/index.js";
import { emptyManifest } from "../../core/capabilities/io/manifest.js";
import { expandHome } from "../../core/paths.js";
import { readPluginRegistry } from "../../core/skills/io/plugin-registry.js";
import type { Catalogue } from "../../core/skills/index.js";
import { mcpRows, pluginRows, skillRows, type ViewInputs } from "../capability-view.js";
import type { HandlerContext, Handlers } from "./types.js";

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

export function capabilitiesHandlers(ctx: HandlerContext): Pick<Handlers, "capabilities.get"> {
  const { paths } = ctx.services;
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
      };
      return {
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
        },
      };
    },
  };
}
