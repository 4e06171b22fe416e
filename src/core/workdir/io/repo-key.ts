// workdir.md §10: a repository key is lower-case `host/path` with credentials, port, trailing `/`
// and `.git` removed; local repositories are `file:<real path>`. Pure apart from the injected
// realpath used for local paths.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { expandRequestedPath, lexicalForm } from "../normalise.js";
import { pathApi, type Platform } from "../platform-path.js";

export type RepoKeyResult = { ok: true; key: string } | { ok: false };

export interface RepoKeyOptions {
  platform?: Platform;
  home?: string;
  /** Folder that relative local paths (`./x`, `../x`) are resolved against; without it they are refused. */
  baseDir?: string;
  /** Real path of a local repository; null when it cannot be resolved (the lexical path is used). */
  realpath?: (p: string) => string | null;
}

const REMOTE_SCHEMES = new Set(["ssh", "git+ssh", "ssh+git", "https", "http", "git"]);

function defaultRealpath(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

/** `owner/repo.git/` → `owner/repo`; null when nothing usable is left. */
function cleanRepoPath(raw: string): string | null {
  let p = raw.toLowerCase().replace(/^\/+/, "").replace(/\/+$/, "");
  if (p.endsWith(".git")) p = p.slice(0, -4).replace(/\/+$/, "");
  const parts = p.split("/");
  if (p === "" || parts.some((part) => part === "" || part === "." || part === "..")) return null;
  return p;
}

function hostKey(host: string): string | null {
  const h = host.toLowerCase().replace(/\.$/, "");
  return /^[a-z0-9._~%-]+$|^\[[0-9a-f:.]+\]$/.test(h) ? h : null;
}

function keyOf(host: string, repoPath: string): RepoKeyResult {
  const h = hostKey(host);
  const p = cleanRepoPath(repoPath);
  return h && p ? { ok: true, key: `${h}/${p}` } : { ok: false };
}

function localKey(p: string, options: RepoKeyOptions): RepoKeyResult {
  const platform = options.platform ?? process.platform;
  const api = pathApi(platform);
  let absolute = expandRequestedPath(p, options.home ?? "", platform);
  if (absolute.startsWith("~") && !options.home) return { ok: false };
  if (!api.isAbsolute(absolute)) {
    if (!options.baseDir) return { ok: false };
    absolute = api.join(options.baseDir, absolute);
  }
  const lexical = lexicalForm(absolute, platform).replace(/[\\/]\.git$/i, "");
  const real = (options.realpath ?? defaultRealpath)(lexical);
  return { ok: true, key: `file:${real ?? lexical}` };
}

export function repoKeyFromUrl(url: string, options: RepoKeyOptions = {}): RepoKeyResult {
  const text = url.trim();
  if (text === "" || /[\s\p{Cc}]/u.test(text)) return { ok: false };
  const platform = options.platform ?? process.platform;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      return { ok: false };
    }
    if (scheme === "file") {
      try {
        return localKey(fileURLToPath(parsed), options);
      } catch {
        return { ok: false };
      }
    }
    if (!REMOTE_SCHEMES.has(scheme) || !parsed.hostname) return { ok: false };
    // URL parsing would collapse `..`; a key never depends on it.
    if (/(^|\/)(\.|%2e){2}(\/|$)/i.test(text.slice(scheme.length + 3))) return { ok: false };
    let repoPath: string;
    try {
      repoPath = decodeURIComponent(parsed.pathname);
    } catch {
      return { ok: false };
    }
    return keyOf(parsed.hostname, repoPath);
  }
  // Windows drive paths before scp style, so `C:\src\x` is not read as host `C`.
  if (platform === "win32" && /^[A-Za-z]:[\\/]/.test(text)) return localKey(text, options);
  const scp = /^(?:[^@/:]+@)?([^@/:]+):(.+)$/.exec(text);
  if (scp) return keyOf(scp[1] as string, scp[2] as string);
  if (text.startsWith("/") || text.startsWith("~/") || text.startsWith("./") || text.startsWith("../")) {
    return localKey(text, options);
  }
  if (platform === "win32" && /^(\\\\|~\\|\.\.?\\)/.test(text)) return localKey(text, options);
  return { ok: false };
}

/** A key typed by a person (`github.com/acme/widget`) or any accepted URL form. */
export function repoKeyFromInput(input: string, options: RepoKeyOptions = {}): RepoKeyResult {
  const text = input.trim();
  if (text.startsWith("file:") && !text.startsWith("file://")) return { ok: true, key: text };
  const bare = /^([a-z0-9.-]+\.[a-z]{2,}|localhost)(\/[^\s/]+)+\/?$/i.exec(text);
  if (bare && !text.includes("://")) {
    const [host, ...rest] = text.split("/");
    return keyOf(host as string, rest.join("/"));
  }
  return repoKeyFromUrl(text, options);
}

/** The URL with any user name and password removed (for messages and the bindings file). */
export function redactGitUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, "$1");
}
