// Which file a command word runs (exec-policy.md "Resolving executables"): a word with a path separator
// is taken relative to the cwd (or as is, `~` expanded); otherwise the command's PATH is searched
// (Windows: with PATHEXT). It must be an existing executable regular file; its identity is its real path.
// Synchronous stats on purpose: a handful per command, and far cheaper than promise round trips.
import fs from "node:fs";
import path from "node:path";
import type { FoundVia } from "../types.js";
import { mayExecute } from "./exec-permission.js";
import { lastView, viewFolder, type FolderView } from "./path-folders.js";

export interface Resolution {
  resolvedPath: string | null;
  foundVia: FoundVia | null;
  /** The path where it was found, before symlinks were resolved (bare-name patterns look at its name). */
  foundPath?: string;
  error?: string;
}

export interface ResolveOptions {
  cwd: string;
  /** The PATH to search (the command's, or a wrapper's override). */
  pathEnv: string | undefined;
  pathExt: string | undefined;
  home: string;
  platform: NodeJS.Platform;
  /** Real paths of folders already resolved (an ExecutableResolver shares one across its lookups). */
  realDirs?: Map<string, string>;
  /**
   * PATH folders where a name was missing (null), and what they hold once a second name is looked up
   * in them (an ExecutableResolver shares one across its lookups).
   */
  folders?: Map<string, FolderView | null>;
  /**
   * The explanation looks up more than one name: a PATH folder whose last view was a trusted listing
   * is viewed before its first name is looked up (one `stat` answers for all of its names).
   */
  manyNames?: boolean;
}

type Check = { ok: true; real: string } | { ok: false; error: string };

/**
 * Resolves command words, remembering answers (and what each PATH folder holds) for the life of one
 * explanation, or of the requests that arrived together (docs/decisions.md "Resolving programs on PATH").
 */
export class ExecutableResolver {
  /** Answers by lookup context (cwd, PATH, platform), then by word. */
  private readonly memo = new Map<string, Map<string, Resolution>>();
  /** The context of the last call: an explanation resolves all its words in one (no key to build). */
  private last: {
    cwd: string;
    pathEnv: string | undefined;
    platform: string;
    words: Map<string, Resolution>;
  } | null = null;
  private readonly realDirs = new Map<string, string>();
  private readonly folders = new Map<string, FolderView | null>();

  resolve(word: string, options: ResolveOptions): Resolution {
    const words = this.wordsFor(options);
    let hit = words.get(word);
    if (!hit) {
      options.realDirs ??= this.realDirs;
      options.folders ??= this.folders;
      hit = resolveExecutable(word, options);
      words.set(word, hit);
    }
    return hit;
  }

  private wordsFor(options: ResolveOptions): Map<string, Resolution> {
    const last = this.last;
    if (
      last !== null &&
      last.cwd === options.cwd &&
      last.pathEnv === options.pathEnv &&
      last.platform === options.platform
    ) {
      return last.words;
    }
    const key = `${options.cwd}\0${options.pathEnv ?? ""}\0${options.platform}`;
    let words = this.memo.get(key);
    if (!words) {
      words = new Map();
      this.memo.set(key, words);
    }
    this.last = { cwd: options.cwd, pathEnv: options.pathEnv, platform: options.platform, words };
    return words;
  }
}

export function resolveExecutable(word: string, options: ResolveOptions): Resolution {
  const win = options.platform === "win32";
  const p = win ? path.win32 : path.posix;
  if (word.length === 0) return { resolvedPath: null, foundVia: null, error: "the command name is empty" };
  if (word.includes("\0"))
    return { resolvedPath: null, foundVia: null, error: "the command name contains a NUL byte" };
  const hasSeparator = win ? /[\\/]/.test(word) : word.includes("/");
  if (word === "~" || word.startsWith("~/") || (win && word.startsWith("~\\"))) {
    const full = p.join(options.home, word.slice(2));
    return finish(checkCandidates(candidatesFor(full, options), options), "home", full);
  }
  if (word.startsWith("~")) {
    return {
      resolvedPath: null,
      foundVia: null,
      error: `${word} names another user's home folder, which is not resolved`,
    };
  }
  if (hasSeparator) {
    const absolute = p.isAbsolute(word);
    const full = absolute ? word : p.resolve(options.cwd, word);
    return finish(
      checkCandidates(candidatesFor(full, options), options),
      absolute ? "absolute" : "relative",
      full,
    );
  }
  let lastError: string | null = null;
  for (const base of searchFolders(options.pathEnv ?? "", options.cwd, win)) {
    // A folder that already lacked a name: one stat of it (and its listing while unchanged) rules out
    // a name it cannot hold. The first miss is a plain lstat, cheaper than a stat of the folder.
    const firstLook = !win && options.folders !== undefined && !options.folders.has(base);
    if (!win && !mayHold(base, word, options)) {
      if (firstLook) noteFirstLook(base, true);
      continue;
    }
    const full = base.endsWith(p.sep) ? base + word : base + p.sep + word;
    const checked = win
      ? checkCandidates(candidatesFor(full, options), options)
      : checkCandidates([full], options, base, word);
    if (firstLook) noteFirstLook(base, !checked.found);
    if (checked.found) return { resolvedPath: checked.real, foundVia: "path", foundPath: checked.at };
    if (checked.error !== "does not exist") lastError = `${full} ${checked.error}`;
    else if (!win && options.folders && !options.folders.has(base)) options.folders.set(base, null);
  }
  return {
    resolvedPath: null,
    foundVia: null,
    error: lastError ? `${word}: ${lastError}` : `${word} was not found on PATH`,
  };
}

/** The folders a PATH value names, in order, each once; the last answer is kept (one PATH per explanation). */
let lastSearch: { pathEnv: string; cwd: string; win: boolean; folders: readonly string[] } | null = null;

function searchFolders(pathEnv: string, cwd: string, win: boolean): readonly string[] {
  const last = lastSearch;
  if (last !== null && last.pathEnv === pathEnv && last.cwd === cwd && last.win === win) return last.folders;
  const p = win ? path.win32 : path.posix;
  const folders: string[] = [];
  for (const dir of pathEnv.split(win ? ";" : ":")) {
    // An empty PATH element means the current folder, as in every POSIX shell.
    const base = dir === "" ? cwd : p.isAbsolute(dir) ? dir : p.resolve(cwd, dir);
    // A folder listed twice (common: shell profiles prepend the same folder again) answers the same.
    if (!folders.includes(base)) folders.push(base);
  }
  lastSearch = { pathEnv, cwd, win, folders };
  return folders;
}

/**
 * Per folder: whether the first name an explanation looked up there was not in it, the last time.
 * A hint like `lastView`: a listed folder is viewed first only where names are usually missing, so a
 * folder that holds most programs (`/usr/bin`) keeps one `lstat` per name and no `stat`.
 */
const firstLooks = new Map<string, boolean>();
const MAX_FIRST_LOOKS = 256;

function noteFirstLook(dir: string, missed: boolean): void {
  if (firstLooks.get(dir) === missed) return;
  if (firstLooks.size >= MAX_FIRST_LOOKS && !firstLooks.has(dir))
    firstLooks.delete(firstLooks.keys().next().value!);
  firstLooks.set(dir, missed);
}

/** Whether the last explanation's first name looked up in `dir` was missing there (tests). */
export function firstLookMissed(dir: string): boolean | undefined {
  return firstLooks.get(dir);
}

function mayHold(dir: string, name: string, options: ResolveOptions): boolean {
  const folders = options.folders;
  if (!folders) return true;
  let view = folders.get(dir);
  if (view === undefined) {
    // Not looked at yet in this explanation. A folder that was absent last time, or listed and lacking
    // the first name last time when more than one name is coming, is viewed now (one call for every
    // name); otherwise the name is looked up. Either way what answers is observed now: the hint only
    // picks the call.
    const last = lastView(dir);
    if (last !== "absent" && !(last === "listed" && options.manyNames && firstLooks.get(dir) === true))
      return true;
  }
  if (!view) {
    view = viewFolder(dir);
    folders.set(dir, view);
  }
  return view.mayHold(name);
}

function finish(
  checked: { found: true; real: string; at: string } | { found: false; error: string },
  via: FoundVia,
  full: string,
): Resolution {
  if (checked.found) return { resolvedPath: checked.real, foundVia: via, foundPath: checked.at };
  return { resolvedPath: null, foundVia: null, error: `${full} ${checked.error}` };
}

/** On Windows a name without a PATHEXT extension is tried with each extension. */
function candidatesFor(full: string, options: ResolveOptions): string[] {
  if (options.platform !== "win32") return [full];
  const exts = (options.pathExt || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  const lower = full.toLowerCase();
  if (exts.some((e) => lower.endsWith(e.toLowerCase()))) return [full];
  return exts.map((e) => full + e);
}

/** `dir` and `name`: the one candidate's folder and name when the caller has them (a PATH lookup). */
function checkCandidates(
  candidates: string[],
  options: ResolveOptions,
  dir?: string,
  name?: string,
): { found: true; real: string; at: string } | { found: false; error: string } {
  let error = "does not exist";
  for (const candidate of candidates) {
    const checked = checkFile(candidate, options, dir, name);
    if (checked.ok) return { found: true, real: checked.real, at: candidate };
    if (checked.error !== "does not exist") error = checked.error;
  }
  return { found: false, error };
}

function checkFile(file: string, options: ResolveOptions, dir?: string, name?: string): Check {
  let link: fs.Stats | undefined;
  let stat: fs.Stats | undefined;
  try {
    link = fs.lstatSync(file, { throwIfNoEntry: false });
    stat = link?.isSymbolicLink() ? fs.statSync(file, { throwIfNoEntry: false }) : link;
  } catch (error) {
    return { ok: false, error: `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (!stat) return { ok: false, error: link ? "is a broken symbolic link" : "does not exist" };
  if (!stat.isFile()) return { ok: false, error: "is not a regular file" };
  if (options.platform !== "win32" && process.platform !== "win32" && !mayExecute(file, stat)) {
    return { ok: false, error: "is not executable" };
  }
  try {
    // Not a link itself: its real path is its folder's real path plus its name (one lookup per folder).
    if (!link?.isSymbolicLink() && process.platform !== "win32") {
      const folder = dir ?? path.dirname(file);
      let realDir = options.realDirs?.get(folder);
      if (realDir === undefined) {
        realDir = fs.realpathSync.native(folder);
        options.realDirs?.set(folder, realDir);
      }
      if (name === undefined) return { ok: true, real: path.join(realDir, path.basename(file)) };
      // a bare name (no separator) in a real, normalised folder: joined as it is
      return { ok: true, real: realDir.endsWith("/") ? realDir + name : `${realDir}/${name}` };
    }
    return { ok: true, real: fs.realpathSync.native(file) };
  } catch (error) {
    return { ok: false, error: `cannot be resolved (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
}
