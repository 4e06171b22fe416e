// The file system as the read rule needs it (file-reads.ts): where a path really leads (links followed,
// as the kernel follows them), what a glob matches from a folder, and where the links inside a folder
// tree lead. Synchronous on purpose, like executable resolution (resolve-executable.ts): a few calls per
// command, remembered for the life of one explanation. Everything is bounded: a glob or a tree too big
// to look at is reported as such, and the rule then asks a person.
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../../paths.js";
import { buildProtectedFolders, type ProtectedFolders } from "../../workdir/io/protected-folders.js";
import type { OwnFiles } from "../own-files.js";
import type { WordChar } from "../path-word.js";

/** More names than this from one glob and it is not worked out. */
export const MAX_GLOB_NAMES = 256;
/** More folder entries than this looked at for one glob, and it is not worked out. */
export const MAX_ENTRIES_SEEN = 4096;
/** More entries than this in a tree a reader walks (links followed), and it is not worked out. */
export const MAX_TREE_ENTRIES = 20_000;

export type Globbed = { ok: true; words: string[] } | { ok: false; why: string };
/**
 * What lies in a folder tree: where its links lead (real paths), and the first name in it that a shell or
 * xargs would not pass as one word (blanks, quotes, backslashes, a leading `-` at its top); or why the
 * tree was not looked at.
 */
export type TreeFacts = { ok: true; links: string[]; oddName?: string } | { ok: false; why: string };

export interface FileLookup {
  /** The real path of an absolute path: links followed; a missing tail appended as written. */
  real(p: string): string;
  /** The words a glob becomes, run from `cwd` (null: not known before it runs), as bash writes them. */
  glob(chars: readonly WordChar[], cwd: string | null): Globbed;
  /** What lies in the tree under a real folder (links followed, as the readers that follow them do), bounded. */
  tree(folder: string): TreeFacts;
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * One path component of a glob as a regular expression that matches at least every name bash would
 * match: dot files and any letter case too (dotglob, nocaseglob), any one character for a bracket.
 */
function componentPattern(chars: readonly WordChar[]): RegExp {
  let re = "";
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as WordChar;
    if (!ch.glob) {
      re += escapeRegExp(ch.c);
      continue;
    }
    if (ch.c === "*") re += "[^/]*";
    else if (ch.c === "?") re += "[^/]";
    else {
      // `[…]`: up to the first `]` that is not its first member; without one bash reads a plain `[`
      let j = i + 1;
      const at = (k: number) => chars[k];
      if (at(j) && !at(j)?.quoted && (at(j)?.c === "!" || at(j)?.c === "^")) j++;
      if (at(j)?.c === "]") j++;
      while (j < chars.length && !(at(j)?.c === "]" && !at(j)?.quoted)) j++;
      re += "[^/]";
      if (j < chars.length) i = j;
    }
  }
  return new RegExp(`^${re}$`, "isu");
}

export class DiskLookup implements FileLookup {
  private readonly reals = new Map<string, string>();
  /** Paths (as written, `..`-free) found missing: nothing below them needs a look. */
  private readonly missing = new Set<string>();
  private readonly listings = new Map<string, string[] | null>();
  private readonly trees = new Map<string, TreeFacts>();

  real(p: string): string {
    let hit = this.reals.get(p);
    if (hit === undefined) {
      hit = this.underKnownFolder(p) ?? realOf(p);
      this.reals.set(p, hit);
    }
    return hit;
  }

  /**
   * The real path of `p` worked out from a folder whose real path is already known (the command's folder,
   * after its first file): one lstat per name below it instead of a walk from `/`, as the kernel walks —
   * a link hands the rest to realOf. Null when no such folder is known or the path is not plain.
   */
  private underKnownFolder(p: string): string | null {
    if (path.normalize(p) !== p || p.endsWith(path.sep)) return null; // `..`, `.`, `//`: realOf's order
    // the nearest folder above `p` whose real path is known
    let names: string[] = [];
    let folder = p;
    let real: string | undefined;
    for (;;) {
      const parent = path.dirname(folder);
      if (parent === folder) break;
      names.unshift(path.basename(folder));
      folder = parent;
      real = this.reals.get(folder);
      if (real !== undefined) break;
    }
    if (real === undefined) {
      // none: know the file's folder, so the next files in or below it start from there
      folder = path.dirname(p);
      real = realOf(folder, 0, () => this.missing.add(folder));
      this.reals.set(folder, real);
      names = [path.basename(p)];
    }
    let missing = this.missing.has(folder);
    for (const [i, name] of names.entries()) {
      const next = path.join(real, name);
      folder = path.join(folder, name);
      if (!missing) {
        let stats: fs.Stats | undefined;
        try {
          stats = fs.lstatSync(next, { throwIfNoEntry: false });
        } catch {
          return null; // no access: realOf decides as before
        }
        if (stats?.isSymbolicLink()) return realOf(path.join(next, ...names.slice(i + 1)));
        missing = stats === undefined;
      }
      real = next; // below a missing name: appended as written
      this.reals.set(folder, real);
      if (missing) this.missing.add(folder);
    }
    return real;
  }

  private list(folder: string): string[] | null {
    let names = this.listings.get(folder);
    if (names === undefined) {
      try {
        names = fs.readdirSync(folder);
      } catch {
        names = null;
      }
      this.listings.set(folder, names);
    }
    return names;
  }

  glob(chars: readonly WordChar[], cwd: string | null): Globbed {
    const components: WordChar[][] = [[]];
    for (const ch of chars) {
      if (ch.c === "/") components.push([]);
      else (components.at(-1) as WordChar[]).push(ch);
    }
    const absolute = chars[0]?.c === "/";
    if (absolute) components.shift();
    if (!absolute && cwd === null)
      return {
        ok: false,
        why: "a pattern is matched in a folder a cd before it makes known only when it runs",
      };
    // each candidate: the word as bash writes it, and the folder it names on disk
    let found: Array<{ word: string; disk: string }> = [{ word: "", disk: absolute ? "/" : (cwd as string) }];
    let seen = 0;
    components.forEach((component, index) => {
      const last = index === components.length - 1;
      const join = (word: string, name: string) => (word === "" && !absolute ? name : `${word}/${name}`);
      if (!component.some((ch) => ch.glob)) {
        const name = component.map((ch) => ch.c).join("");
        found = found.map((f) => ({ word: join(f.word, name), disk: path.join(f.disk, name) }));
        return;
      }
      const globstar = component.length === 2 && component.every((ch) => ch.glob && ch.c === "*");
      const pattern = componentPattern(component);
      const next: typeof found = [];
      const walk = (f: { word: string; disk: string }, depth: number) => {
        const names = this.list(f.disk);
        if (names === null) return;
        seen += names.length;
        if (seen > MAX_ENTRIES_SEEN) return;
        for (const name of [".", "..", ...names]) {
          if ((name === "." || name === "..") && (globstar || !pattern.test(name))) continue;
          const child = { word: join(f.word, name), disk: path.join(f.disk, name) };
          if (globstar) {
            next.push(child);
            if (depth < 32 && isFolder(child.disk)) walk(child, depth + 1);
          } else if (pattern.test(name) && (last || isFolder(child.disk))) next.push(child);
        }
      };
      for (const f of found) {
        if (globstar) next.push(f);
        walk(f, 0);
      }
      found = next;
    });
    if (seen > MAX_ENTRIES_SEEN || found.length > MAX_GLOB_NAMES)
      return { ok: false, why: `a pattern matches more names than Gatehouse looks at (${MAX_GLOB_NAMES})` };
    if (found.length === 0) {
      // no match: bash passes the word as written (quotes removed)
      return { ok: true, words: [chars.map((ch) => ch.c).join("")] };
    }
    return { ok: true, words: found.map((f) => (f.word === "" ? "/" : f.word)) };
  }

  tree(folder: string): TreeFacts {
    let hit = this.trees.get(folder);
    if (hit === undefined) {
      hit = treeOf(folder, (p) => this.real(p));
      this.trees.set(folder, hit);
    }
    return hit;
  }
}

/** Names xargs (quotes, backslashes, blanks) or the shell's word splitting would not pass whole. */
const ODD_NAME = /[\s'"\\]/;

function treeOf(folder: string, real: (p: string) => string): TreeFacts {
  const links: string[] = [];
  let oddName: string | undefined;
  const visited = new Set<string>();
  let seen = 0;
  const queue = [folder];
  while (queue.length > 0) {
    const dir = queue.pop() as string;
    if (visited.has(dir)) continue;
    visited.add(dir);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > MAX_TREE_ENTRIES)
      return {
        ok: false,
        why: `it holds more than ${MAX_TREE_ENTRIES} entries, more than Gatehouse looks at`,
      };
    for (const entry of entries) {
      if (
        oddName === undefined &&
        (ODD_NAME.test(entry.name) || (dir === folder && entry.name.startsWith("-")))
      )
        oddName = entry.name;
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const target = real(full);
        links.push(target);
        if (isFolder(target)) queue.push(target); // followed: its own tree is read too
      } else if (entry.isDirectory()) queue.push(full);
    }
  }
  return oddName === undefined ? { ok: true, links } : { ok: true, links, oddName };
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What lstat says, or nothing where the name cannot be looked at: missing, a name too long, a file where a
 * folder is named, no access. The kernel fails to open such a path too, so it is judged as written.
 */
function lstatOrNothing(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The real path of `p` as the kernel resolves it (`..` after links); a missing tail is appended as written. */
function realOf(p: string, depth = 0, missing?: () => void): string {
  // the longest leading part that exists (found without throwing: most missing files are one level down),
  // its real path, then the rest as written
  const tail: string[] = [];
  let head = p;
  while (lstatOrNothing(head) === undefined) {
    const parent = path.dirname(head);
    if (parent === head) return path.resolve(p);
    tail.unshift(path.basename(head));
    head = parent;
  }
  try {
    const real = fs.realpathSync.native(head);
    if (tail.length === 0) return real;
    missing?.();
    return path.join(real, ...tail);
  } catch {
    // a dangling link: where it points (writing through it creates that file); a loop or no access:
    // the kernel fails too, judged as written
    try {
      if (depth < 8) {
        const next = path.resolve(path.dirname(head), fs.readlinkSync(head));
        return realOf(tail.length === 0 ? next : path.join(next, ...tail), depth + 1);
      }
    } catch {
      // not a link
    }
    return path.resolve(p);
  }
}

const foldersFor = new WeakMap<OwnFiles, Promise<ProtectedFolders>>();

/** The protected folders of workdir.md §3 for Gatehouse's own files, built once per OwnFiles object. */
export function protectedFoldersFor(
  own: OwnFiles,
  env: Env,
  platform: NodeJS.Platform,
): Promise<ProtectedFolders> {
  let folders = foldersFor.get(own);
  if (!folders) {
    folders = buildProtectedFolders(
      {
        home: own.home,
        executorHome: own.folder,
        claudeHome: own.claudeHome ?? path.join(own.home, ".claude"),
        codexHome: own.codexHome ?? path.join(own.home, ".codex"),
        env,
        platform,
        workspace: own.open,
      },
      (p) => Promise.resolve().then(() => fs.realpathSync.native(p)),
    );
    foldersFor.set(own, folders);
  }
  return folders;
}
