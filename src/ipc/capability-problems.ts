// Why a capability is not synced, with the paths involved (issue 16): for a conflict, the user's own
// item where Gatehouse wanted its link ("theirs", in ~/.claude or ~/.codex) and Gatehouse's copy in its
// store ("ours", or where it would go when the sync stopped before downloading it); for a failure, the
// reason and Gatehouse's copy if an older one is installed. Looked up on disk now, never changed.
import fs from "node:fs/promises";
import path from "node:path";
import type { SyncPayload } from "../core/capabilities/index.js";
import { inspectRuntimePath } from "../core/capabilities/io/links.js";
import { manifestPath } from "../core/capabilities/io/manifest.js";
import {
  CLAUDE_MARKETPLACE,
  codexPluginLinkName,
  pluginStoreName,
  skillStoreName,
} from "../core/capabilities/naming.js";
import type { CapabilityManifest } from "../core/capabilities/index.js";
import type { InstalledPlugin } from "../core/skills/io/plugin-registry.js";
import type { ItemProblem, ProblemPath } from "../shared/schemas/capabilities.js";

export interface ProblemInputs {
  home: string;
  store: string;
  claudeHome: string;
  codexHome: string;
  manifest: CapabilityManifest;
  /** The last payload received in this run of the app (where an item would be installed), or null. */
  payload: SyncPayload | null;
  installedPlugins: InstalledPlugin[];
}

async function exists(p: string): Promise<boolean> {
  return (await fs.lstat(p).catch(() => null)) !== null;
}

/** Runtime paths that hold the user's own item now (never Gatehouse's links or recorded copies). */
async function usersItems(
  candidates: Array<{ path: string; runtime: "claude" | "codex" }>,
  inputs: ProblemInputs,
): Promise<ProblemPath[]> {
  const out: ProblemPath[] = [];
  for (const c of candidates) {
    const state = await inspectRuntimePath(c.path, { store: inputs.store }).catch(() => ({
      kind: "user" as const,
    }));
    if (state.kind === "user") out.push({ path: c.path, role: "theirs", runtime: c.runtime, exists: true });
  }
  return out;
}

async function ours(p: string | null): Promise<ProblemPath[]> {
  return p ? [{ path: p, role: "ours", runtime: null, exists: await exists(p) }] : [];
}

export async function skillProblem(
  name: string,
  reason: string,
  conflict: boolean,
  inputs: ProblemInputs,
): Promise<ItemProblem> {
  const recorded = inputs.manifest.skills[name]?.store_path;
  const item = inputs.payload?.skills.find((s) => s.name === name);
  const storePath = recorded
    ? manifestPath(recorded, inputs.home)
    : item
      ? path.join(inputs.store, "skills", skillStoreName(item.skillId, item.namespace, item.name))
      : null;
  const theirs = conflict
    ? await usersItems(
        [
          { path: path.join(inputs.claudeHome, "skills", name), runtime: "claude" },
          { path: path.join(inputs.codexHome, "skills", name), runtime: "codex" },
        ],
        inputs,
      )
    : [];
  return { kind: conflict ? "conflict" : "failed", reason, paths: [...theirs, ...(await ours(storePath))] };
}

export async function pluginProblem(
  name: string,
  reason: string,
  conflict: boolean,
  inputs: ProblemInputs,
): Promise<ItemProblem> {
  // Sync results name plugins by their name alone: the payload or the manifest gives the key.
  const item = inputs.payload?.plugins.find((p) => p.name === name);
  const recordedKey = Object.keys(inputs.manifest.plugins).find(
    (k) => k.slice(0, k.lastIndexOf("@")) === name,
  );
  const key = item?.key ?? recordedKey ?? null;
  const recorded = key ? inputs.manifest.plugins[key]?.store_path : undefined;
  const storePath = recorded
    ? manifestPath(recorded, inputs.home)
    : item?.installedPluginId !== undefined
      ? path.join(
          inputs.store,
          "plugins",
          pluginStoreName(item.installedPluginId, item.marketplace, item.name, item.version),
        )
      : null;
  const theirs: ProblemPath[] = [];
  if (conflict && key) {
    // The key the message names: the backend's, or the `<name>@gatehouse` Claude Code would list it as.
    const named = /^Plugin (.+) is already registered in Claude Code by the user/.exec(reason)?.[1] ?? key;
    const registered = inputs.installedPlugins.find((p) => p.key === named)?.installPaths[0];
    if (/already registered in Claude Code by the user/.test(reason) && registered) {
      theirs.push({ path: registered, role: "theirs", runtime: "claude", exists: await exists(registered) });
    }
    const symlink = /Refusing to traverse managed path symlink: (.+)$/.exec(reason)?.[1];
    if (symlink)
      theirs.push({ path: symlink, role: "theirs", runtime: "claude", exists: await exists(symlink) });
    if (item && /path is occupied/.test(reason)) {
      theirs.push(
        ...(await usersItems(
          [
            {
              path: path.join(
                inputs.claudeHome,
                "plugins",
                "cache",
                CLAUDE_MARKETPLACE,
                item.name,
                item.version,
              ),
              runtime: "claude",
            },
            {
              path: path.join(inputs.codexHome, "plugins", codexPluginLinkName(item.name, item.marketplace)),
              runtime: "codex",
            },
          ],
          inputs,
        )),
      );
    }
  }
  return { kind: conflict ? "conflict" : "failed", reason, paths: [...theirs, ...(await ours(storePath))] };
}

export function mcpProblem(reason: string, conflict: boolean): ItemProblem {
  return { kind: conflict ? "conflict" : "failed", reason, paths: [] };
}
