// The real Codex applying a patch, standalone: the native binary's arg0 dispatch runs apply_patch for
// `codex --codex-run-as-apply-patch '<patch>'` (the way Codex itself runs patches). Always as the other
// user (uid 65534) in a temp folder that user owns, with HOME there: a patch is an attack until proven
// otherwise. What it touched is read by listing the folder tree before and after.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./cli.js";
import { OTHER_UID } from "./other-user.js";

/** The pinned Codex's native binary (not the node wrapper: a patch run costs one process); null when absent. */
export function codexNativeBinary(): string | null {
  const scope = path.join(REPO_ROOT, "node_modules", "@openai");
  if (process.env.CODEX_APPLY_PATCH_BIN) return process.env.CODEX_APPLY_PATCH_BIN;
  if (!existsSync(scope)) return null;
  for (const pkg of readdirSync(scope).filter((name) => name.startsWith(`codex-${process.platform}-`))) {
    const vendor = path.join(scope, pkg, "vendor");
    for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
      const binary = path.join(vendor, triple, "bin", "codex");
      if (existsSync(binary)) return binary;
    }
  }
  return null;
}

/** A file's content, `dir` for a folder, or a link's target, by path relative to the sandbox. */
export type Tree = Map<string, string>;

export async function treeOf(root: string): Promise<Tree> {
  const tree: Tree = new Map();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const key = path.relative(root, file);
      if (entry.isSymbolicLink()) tree.set(key, `link:${await fs.readlink(file)}`);
      else if (entry.isDirectory()) {
        tree.set(key, "dir");
        await walk(file);
      } else tree.set(key, `file:${await fs.readFile(file, "utf8")}`);
    }
  };
  await walk(root);
  return tree;
}

/** Files and folders (relative to the sandbox) that appeared, disappeared or changed. */
export function changedPaths(before: Tree, after: Tree): { files: string[]; folders: string[] } {
  const keys = [...new Set([...before.keys(), ...after.keys()])].filter(
    (key) => before.get(key) !== after.get(key),
  );
  const folder = (key: string) => before.get(key) === "dir" || after.get(key) === "dir";
  return { files: keys.filter((key) => !folder(key)).sort(), folders: keys.filter(folder).sort() };
}

export interface PatchSandbox {
  /** The sandbox, owned by the other user; HOME for the run. */
  root: string;
  /** Codex's working folder inside it (`root/work`). */
  work: string;
}

/**
 * A fresh sandbox holding `files` (paths relative to `work`; `../x` lands in the sandbox itself) and
 * symbolic `links` (name → target, relative to `work`).
 */
export async function patchSandbox(
  files: Record<string, string>,
  links: Record<string, string> = {},
): Promise<PatchSandbox> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-apply-patch-")));
  const work = path.join(root, "work");
  await fs.mkdir(work);
  for (const [name, content] of Object.entries(files)) {
    const file = path.resolve(work, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
  for (const [name, target] of Object.entries(links)) await fs.symlink(target, path.join(work, name));
  const chown = spawnSync("chown", ["-hR", `${OTHER_UID}:${OTHER_UID}`, root]);
  if (chown.status !== 0) throw new Error(`chown failed: ${chown.stderr.toString()}`);
  return { root, work };
}

export interface PatchRun {
  status: number | null;
  output: string;
  /** Files that appeared, disappeared or changed, relative to the sandbox (`work/a.txt`, `outside.txt`). */
  changedFiles: string[];
  /** Folders that appeared or disappeared. */
  changedFolders: string[];
}

/** Codex applies `patch` in `sandbox.work` as the other user. */
export async function applyAsOtherUser(
  binary: string,
  sandbox: PatchSandbox,
  patch: string,
): Promise<PatchRun> {
  const before = await treeOf(sandbox.root);
  const run = spawnSync(
    "setpriv",
    [
      `--reuid=${OTHER_UID}`,
      `--regid=${OTHER_UID}`,
      "--clear-groups",
      "--",
      binary,
      "--codex-run-as-apply-patch",
      patch,
    ],
    { cwd: sandbox.work, env: { HOME: sandbox.root, PATH: "/usr/bin:/bin" }, encoding: "utf8" },
  );
  const after = await treeOf(sandbox.root);
  const changed = changedPaths(before, after);
  return {
    status: run.status,
    output: `${run.stdout}${run.stderr}`,
    changedFiles: changed.files,
    changedFolders: changed.folders,
  };
}
