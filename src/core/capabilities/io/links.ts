// Runtime links (device-protocol.md §7.6, §11). Gatehouse owns a runtime path only when it is a link
// whose target, read without following it, lies inside the store. Anything else there belongs to the
// user and is never modified, moved or deleted. Links are replaced atomically (temp name + rename)
// on POSIX and removed with `unlink` only, never a recursive delete that could follow them.
import { randomBytes } from "node:crypto";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * A folder copied where links are impossible (or where Codex reads real folders only); this marker
 * inside names the store folder it copies on its first line, and, on a second line when there is one,
 * the package it copied (its checksum): a package replaced in the same store folder is copied again.
 */
export const COPY_MARKER = ".gatehouse-copy";

export function copyMarkerText(target: string, packageId?: string): string {
  return `${path.resolve(target)}\n${packageId ? `${packageId}\n` : ""}`;
}

/** The store folder a marker names (its first line) and the package it records, if any. */
export function parseCopyMarker(text: string): { target: string; packageId: string | null } {
  const [first, second] = text.split("\n");
  return { target: (first ?? "").trim(), packageId: second?.trim() || null };
}

/**
 * Where a link (or copy) is built before it is renamed over `linkPath`: a fixed-length name, so a
 * runtime name the file system can hold always leaves room for its temporary name too.
 */
export function linkTempPath(linkPath: string): string {
  return path.join(path.dirname(linkPath), `.gatehouse-link-${randomBytes(6).toString("hex")}`);
}

export type RuntimePathState =
  { kind: "absent" } | { kind: "owned"; target: string; copy: boolean } | { kind: "user" };

export interface LinkOptions {
  /** The store folder (`E/capabilities/store`). */
  store: string;
  platform?: NodeJS.Platform;
  /** `resolveStoreRoots(store)`, computed once per sync; resolved on each call when absent. */
  storeRoots?: string[];
  /** Runtime paths the manifest records as copies (where links were impossible). */
  copies?: ReadonlySet<string>;
  /** Injected in tests to simulate a file system without links. */
  symlink?: (target: string, linkPath: string, type?: "dir" | "junction") => Promise<void>;
}

function stripWin32Prefix(target: string): string {
  return target.startsWith("\\\\?\\") ? target.slice(4) : target;
}

export function isInside(
  child: string,
  parent: string,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const norm = (p: string) => (platform === "win32" ? path.resolve(p).toLowerCase() : path.resolve(p));
  const rel = path.relative(norm(parent), norm(child));
  return rel !== "" && !rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel);
}

/** The store as configured and as resolved (a temp folder under a linked /tmp, for example). */
export async function resolveStoreRoots(store: string): Promise<string[]> {
  const configured = path.resolve(store);
  const real = await fs.realpath(configured).catch(() => null);
  return real && real !== configured ? [configured, real] : [configured];
}

/** resolveStoreRoots without a thread-pool round trip (the idle runner's heartbeat report). */
export function resolveStoreRootsSync(store: string): string[] {
  const configured = path.resolve(store);
  let real: string | null;
  try {
    real = fsSync.realpathSync(configured);
  } catch {
    real = null;
  }
  return real && real !== configured ? [configured, real] : [configured];
}

/** Who owns `p` (§7.6). Never follows a link at `p` itself. */
export async function inspectRuntimePath(p: string, options: LinkOptions): Promise<RuntimePathState> {
  const platform = options.platform ?? process.platform;
  let stat;
  try {
    stat = await fs.lstat(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent" };
    if (code === "ENOTDIR") return { kind: "user" }; // a user file sits where a parent folder should be
    throw error;
  }
  const roots = options.storeRoots ?? (await resolveStoreRoots(options.store));
  if (stat.isSymbolicLink()) {
    const raw = stripWin32Prefix(await fs.readlink(p));
    const target = path.resolve(path.dirname(p), raw);
    return roots.some((root) => isInside(target, root, platform))
      ? { kind: "owned", target, copy: false }
      : { kind: "user" };
  }
  if (stat.isDirectory() && options.copies?.has(p)) {
    const marker = await fs.readFile(path.join(p, COPY_MARKER), "utf8").catch(() => null);
    const target = marker === null ? null : parseCopyMarker(marker).target;
    if (target && roots.some((root) => isInside(target, root, platform)))
      return { kind: "owned", target, copy: true };
  }
  return { kind: "user" };
}

const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EINVAL"]);

export type PlaceResult = "unchanged" | "linked" | "copied";

/**
 * Makes `linkPath` point at `target` (a store folder). The caller has checked that `linkPath` is
 * absent or owned. POSIX: a link under a temporary name, renamed over the destination. Windows:
 * the owned junction is unlinked, then the new one created. A copy only where links are impossible.
 */
export async function placeLink(
  linkPath: string,
  target: string,
  options: LinkOptions,
): Promise<PlaceResult> {
  const platform = options.platform ?? process.platform;
  const symlink = options.symlink ?? ((t, p, type) => fs.symlink(t, p, type));
  const current = await inspectRuntimePath(linkPath, options);
  if (current.kind === "user") throw new Error(`Refusing to replace ${linkPath}: it is not a Gatehouse link`);
  if (current.kind === "owned" && !current.copy && current.target === path.resolve(target))
    return "unchanged";
  const dir = path.dirname(linkPath);
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  try {
    if (platform === "win32") {
      if (current.kind === "owned") await removeOwned(linkPath, current);
      await symlink(path.resolve(target), linkPath, "junction");
    } else {
      const temp = linkTempPath(linkPath);
      await symlink(path.resolve(target), temp, "dir");
      try {
        if (current.kind === "owned" && current.copy) await removeOwned(linkPath, current);
        await fs.rename(temp, linkPath);
      } catch (error) {
        await fs.unlink(temp).catch(() => undefined);
        throw error;
      }
    }
    return "linked";
  } catch (error) {
    if (!NO_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
  await placeCopy(linkPath, target, options);
  return "copied";
}

async function placeCopy(linkPath: string, target: string, options: LinkOptions): Promise<void> {
  const temp = linkTempPath(linkPath);
  await fs.cp(target, temp, { recursive: true, verbatimSymlinks: true });
  await fs.writeFile(path.join(temp, COPY_MARKER), copyMarkerText(target), { mode: 0o644 });
  const current = await inspectRuntimePath(linkPath, {
    ...options,
    copies: new Set([...(options.copies ?? []), linkPath]),
  });
  if (current.kind === "user") {
    await fs.rm(temp, { recursive: true, force: true });
    throw new Error(`Refusing to replace ${linkPath}: it is not a Gatehouse link`);
  }
  if (current.kind === "owned") await removeOwned(linkPath, current);
  await fs.rename(temp, linkPath);
}

async function removeOwned(p: string, state: { copy: boolean }): Promise<void> {
  if (!state.copy) return fs.unlink(p);
  // Out of the way first: a copy deleted where it is loses its marker part way through and would then
  // look like the user's folder for good (start-up removes the temp name: leftovers.ts).
  const temp = linkTempPath(p);
  await fs.rename(p, temp);
  await fs.rm(temp, { recursive: true, force: true });
}

/** Removes `p` only when Gatehouse owns it; user content is left alone. */
export async function removeOwnedPath(
  p: string,
  options: LinkOptions,
): Promise<"removed" | "absent" | "not-owned"> {
  const state = await inspectRuntimePath(p, options);
  if (state.kind === "absent") return "absent";
  if (state.kind === "user") return "not-owned";
  await removeOwned(p, state);
  return "removed";
}

/** First path from `from` down to `to` (exclusive of `from`) that is a link, else null. */
export async function firstLinkBetween(from: string, to: string): Promise<string | null> {
  const rel = path.relative(from, to);
  let current = from;
  for (const segment of rel.split(path.sep).filter(Boolean)) {
    current = path.join(current, segment);
    try {
      if ((await fs.lstat(current)).isSymbolicLink()) return current;
    } catch {
      return null;
    }
  }
  return null;
}

/** Removes `dir` and then its parents up to (not including) `stop` while they are empty real folders. */
export async function removeEmptyFolders(dir: string, stop: string): Promise<void> {
  let current = dir;
  while (isInside(current, stop)) {
    try {
      const stat = await fs.lstat(current);
      if (stat.isSymbolicLink() || !stat.isDirectory()) return;
      await fs.rmdir(current);
    } catch {
      return; // not empty, gone, or not ours to remove
    }
    current = path.dirname(current);
  }
}
