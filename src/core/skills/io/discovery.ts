// Finding skill folders in one root (skills.md §2): folders 1 to 3 levels below the root that hold a
// `SKILL.md` or `manifest.toml`, visited in code-point order, links followed with a visited set.
import fs from "node:fs/promises";
import type { Dirent } from "node:fs";
import path from "node:path";
import { listDir, realPath, statFile } from "./fs-calls.js";

export const SKILL_FOLDER_LIMIT = 5000;
const MAX_DEPTH = 3;

export interface FoundFolder {
  /** The folder as found through the root (links not resolved). */
  path: string;
  /** The folder with every link resolved (equal to `path` for a broken link). */
  realpath: string;
  /** Which of SKILL.md / manifest.toml the folder has, and what kind of entry each is. */
  hasSkillMd: boolean;
  hasManifest: boolean;
  skillMdKind?: FileKind;
  manifestKind?: FileKind;
  /** Set when the folder cannot be used at all (`broken link: …`, `unreadable: …`). */
  error: string | null;
}

/** A regular file, a link (to be followed), or a folder or special file (never a skill file). */
export type FileKind = "file" | "link" | "dir" | "other";

function kindOf(dirent: Dirent | undefined): FileKind | undefined {
  if (!dirent) return undefined;
  if (dirent.isFile()) return "file";
  if (dirent.isSymbolicLink()) return "link";
  return dirent.isDirectory() ? "dir" : "other";
}

export interface RootScan {
  exists: boolean;
  realpath: string | null;
  error: string | null;
  folders: FoundFolder[];
}

export function compareCodePoints(a: string, b: string): number {
  // JS string comparison is by UTF-16 code unit; compare by code point so astral characters sort right.
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

function skipName(name: string, depth: number, allowSystem: boolean): boolean {
  if (name === "node_modules") return true;
  if (name.startsWith(".")) return !(allowSystem && depth === 1 && name === ".system");
  return false;
}

async function readDir(dir: string): Promise<{ entries: Dirent[] } | { error: string }> {
  try {
    const entries = await listDir(dir);
    entries.sort((a, b) => compareCodePoints(a.name, b.name));
    return { entries };
  } catch (error) {
    return { error: errorCode(error) };
  }
}

/**
 * Scans one root. `allowSystem` lets a `.system` folder directly under the root through (the Codex
 * root, where Codex keeps its bundled skills).
 */
export async function scanRoot(
  root: string,
  options: { allowSystem?: boolean; limit?: number } = {},
): Promise<RootScan> {
  const limit = options.limit ?? SKILL_FOLDER_LIMIT;
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      // A dangling link as root, or nothing there: both "does not exist".
      return { exists: false, realpath: null, error: null, folders: [] };
    }
    return { exists: true, realpath: null, error: `unreadable: ${root} (${code})`, folders: [] };
  }
  const top = await readDir(root);
  if ("error" in top) {
    const message = top.error === "ENOTDIR" ? "not a folder" : `unreadable: ${root} (${top.error})`;
    return { exists: true, realpath: realRoot, error: message, folders: [] };
  }
  const folders: FoundFolder[] = [];
  const visited = new Set<string>([realRoot]);
  let overLimit = false;

  const walk = async (dir: string, realDir: string, entries: Dirent[], depth: number): Promise<void> => {
    // Resolve every child of this folder in parallel, then handle them in order: deterministic and fast.
    const children = await Promise.all(
      entries.map(async (dirent) => {
        if (skipName(dirent.name, depth, options.allowSystem === true)) return null;
        const full = path.join(dir, dirent.name);
        if (dirent.isSymbolicLink()) {
          let stat;
          try {
            stat = await statFile(full);
          } catch (error) {
            const code = errorCode(error);
            if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR") {
              const target = await fs.readlink(full).catch(() => "?");
              return { full, real: full, broken: `broken link: ${target}` } as const;
            }
            return { full, real: full, broken: `unreadable: ${dirent.name} (${code})` } as const;
          }
          if (!stat.isDirectory()) return null;
          const real = await realPath(full).catch(() => full);
          return { full, real, broken: null } as const;
        }
        if (!dirent.isDirectory()) return null;
        return { full, real: path.join(realDir, dirent.name), broken: null } as const;
      }),
    );
    const listings = await Promise.all(
      children.map((child) =>
        child && child.broken === null && !visited.has(child.real) ? readDir(child.full) : null,
      ),
    );
    for (let i = 0; i < children.length; i++) {
      if (overLimit) return;
      const child = children[i];
      if (!child) continue;
      if (child.broken !== null) {
        if (
          !push({
            path: child.full,
            realpath: child.real,
            hasSkillMd: false,
            hasManifest: false,
            error: child.broken,
          })
        )
          return;
        continue;
      }
      if (visited.has(child.real)) continue;
      visited.add(child.real);
      const listing = listings[i];
      if (!listing) continue;
      if ("error" in listing) {
        const base = path.basename(child.full);
        if (
          !push({
            path: child.full,
            realpath: child.real,
            hasSkillMd: false,
            hasManifest: false,
            error: `unreadable: ${base} (${listing.error})`,
          })
        )
          return;
        continue;
      }
      const skillMdKind = kindOf(listing.entries.find((e) => e.name === "SKILL.md"));
      const manifestKind = kindOf(listing.entries.find((e) => e.name === "manifest.toml"));
      const hasSkillMd = skillMdKind !== undefined;
      const hasManifest = manifestKind !== undefined;
      if (hasSkillMd || hasManifest) {
        const folder = {
          path: child.full,
          realpath: child.real,
          hasSkillMd,
          hasManifest,
          skillMdKind,
          manifestKind,
        };
        if (!push({ ...folder, error: null })) return;
      } else if (depth < MAX_DEPTH) {
        await walk(child.full, child.real, listing.entries, depth + 1);
      }
    }
  };

  const push = (folder: FoundFolder): boolean => {
    if (folders.length >= limit) {
      overLimit = true;
      return false;
    }
    folders.push(folder);
    return true;
  };

  await walk(root, realRoot, top.entries, 1);
  return {
    exists: true,
    realpath: realRoot,
    error: overLimit ? `too many skill folders (limit ${limit})` : null,
    folders,
  };
}
