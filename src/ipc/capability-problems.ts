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

/** The button that re-applies the last sync the backend sent (the device protocol has no way to ask for one). */
export const APPLY_AGAIN = "Apply the last sync again";

/** HTTP statuses a download can fail with, in words and what to do (msg.httpStatus). */
function httpAdvice(name: string, status: number): string {
  const what = `The download of ${name}'s package failed: the backend answered HTTP ${status}`;
  if (status >= 500)
    return `${what}, an error on the backend's side. Nothing of ${name} was changed here. Use "${APPLY_AGAIN}" in a while to download it again; if it keeps failing, the package or the backend needs fixing in Wegent.`;
  if (status === 401 || status === 403)
    return `${what}: it refused this device (the download link may have expired). Nothing of ${name} was changed here. Sync this device again from the Wegent web page, which sends fresh links.`;
  if (status === 404)
    return `${what}: the package is not there. Nothing of ${name} was changed here. Check ${name} in Wegent (it may have been removed), then sync this device again from the Wegent web page.`;
  return `${what}. Nothing of ${name} was changed here. Use "${APPLY_AGAIN}" to try again; if it keeps failing, check ${name} in Wegent.`;
}

/**
 * For a failed item: what happened in plain words — which item, which step, the HTTP status — and
 * what to do. The reason itself stays in the contract's wording (it is what the backend's ack says).
 */
export function failureAdvice(name: string, reason: string): string {
  const http = /download failed with HTTP (\d{3})/.exec(reason);
  if (http) return httpAdvice(name, Number(http[1]));
  const download = /download failed: (.+)$/.exec(reason);
  if (download)
    return `The download of ${name}'s package failed (${download[1]}). Nothing of ${name} was changed here. Check that the backend can be reached, then use "${APPLY_AGAIN}".`;
  if (/checksum mismatch/.test(reason))
    return `The package downloaded for ${name} is not the one the backend described (its checksum differs), so it was not installed. Sync this device again from the Wegent web page; if it happens again, the package on the backend is damaged.`;
  return `${name} was not installed: ${reason}. Use "${APPLY_AGAIN}" to try again once the cause is fixed; if it fails the same way, check ${name} in Wegent.`;
}

/** For a conflict: Gatehouse never touches the user's item; what to do to use either one. */
export function conflictAdvice(name: string, usersItemThere: boolean): string {
  const keep = `Gatehouse never overwrites or deletes your item. To use the Wegent one, move or rename yours, then use "${APPLY_AGAIN}". To keep yours, remove ${name} for this device in Wegent.`;
  return usersItemThere
    ? keep
    : `${keep} Your item is not there any more: use "${APPLY_AGAIN}" to install ${name}.`;
}

function problemOf(
  name: string,
  reason: string,
  conflict: boolean,
  theirs: ProblemPath[],
  ours: ProblemPath[],
): ItemProblem {
  return {
    kind: conflict ? "conflict" : "failed",
    reason,
    whatToDo: conflict ? conflictAdvice(name, theirs.length > 0) : failureAdvice(name, reason),
    paths: [...theirs, ...ours],
  };
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
  return problemOf(name, reason, conflict, theirs, await ours(storePath));
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
  return problemOf(name, reason, conflict, theirs, await ours(storePath));
}

/** An MCP server has no paths to show; its conflict is with a server of the same name the user has. */
export function mcpProblem(name: string, reason: string, conflict: boolean): ItemProblem {
  return {
    kind: conflict ? "conflict" : "failed",
    reason,
    whatToDo: conflict ? conflictAdvice(name, true) : failureAdvice(name, reason),
    paths: [],
  };
}
