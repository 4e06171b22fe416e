// workdir.md §10 remote check: read a folder's git remotes and current branch from the repository
// files themselves. Never runs `git`: running git inside an untrusted repository can execute
// commands configured there.
import fs from "node:fs/promises";
import path from "node:path";

export interface GitRemote {
  name: string;
  url: string;
}

export type GitInfo =
  | { hasGit: false }
  | {
      hasGit: true;
      /** Folder holding HEAD (the worktree's own git dir). */
      gitDir: string;
      /** Folder holding `config` (differs from gitDir in linked worktrees). */
      commonDir: string;
      remotes: GitRemote[];
      /** `refs/heads/<b>` of HEAD; null when detached or unreadable. */
      branch: string | null;
      /** Why the repository could not be read completely (the check then fails closed). */
      error: string | null;
    };

const MAX_GIT_FILE = 1024 * 1024;

async function readSmallFile(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(MAX_GIT_FILE);
    const { bytesRead } = await handle.read(buffer, 0, MAX_GIT_FILE, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** Reads `dir/.git` (a folder, or a file holding `gitdir: <path>`), `commondir`, `config` and `HEAD`. */
export async function readGitInfo(dir: string): Promise<GitInfo> {
  const dotGit = path.join(dir, ".git");
  let stat;
  try {
    stat = await fs.stat(dotGit);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { hasGit: false };
    return {
      hasGit: true,
      gitDir: dotGit,
      commonDir: dotGit,
      remotes: [],
      branch: null,
      error: String(code),
    };
  }
  let gitDir = dotGit;
  let error: string | null = null;
  if (stat.isFile()) {
    try {
      const line = (await readSmallFile(dotGit)).split(/\r?\n/)[0] ?? "";
      const match = /^gitdir:\s*(.+?)\s*$/.exec(line);
      if (!match) throw new Error("no gitdir line");
      gitDir = path.resolve(dir, match[1] as string);
    } catch (e) {
      return {
        hasGit: true,
        gitDir,
        commonDir: gitDir,
        remotes: [],
        branch: null,
        error: `.git file: ${(e as Error).message}`,
      };
    }
  }
  let commonDir = gitDir;
  try {
    const common = (await readSmallFile(path.join(gitDir, "commondir"))).trim();
    if (common) commonDir = path.resolve(gitDir, common);
  } catch {
    // no commondir: an ordinary repository
  }
  let remotes: GitRemote[] = [];
  try {
    remotes = parseGitConfigRemotes(await readSmallFile(path.join(commonDir, "config")));
  } catch (e) {
    error = `config: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  const branch = await readSmallFile(path.join(gitDir, "HEAD")).then(parseHeadBranch, () => null);
  return { hasGit: true, gitDir, commonDir, remotes, branch, error };
}

export function parseHeadBranch(text: string): string | null {
  const match = /^ref:\s*refs\/heads\/(.+?)\s*$/m.exec(text);
  return match ? (match[1] as string) : null;
}

/** Every `[remote "<name>"] url` in a git config file (quotes, escapes, comments, continuations). */
export function parseGitConfigRemotes(text: string): GitRemote[] {
  const remotes: GitRemote[] = [];
  let section: string | null = null;
  const lines = joinContinuations(text.split(/\r?\n/));
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      section = parseSectionHeader(line);
      continue;
    }
    if (!section?.startsWith("remote\u0000")) continue;
    const eq = line.indexOf("=");
    const key = (eq === -1 ? line : line.slice(0, eq)).trim().toLowerCase();
    if (key !== "url" || eq === -1) continue;
    const value = parseConfigValue(line.slice(eq + 1));
    if (value) remotes.push({ name: section.slice("remote\u0000".length), url: value });
  }
  return remotes;
}

function joinContinuations(lines: string[]): string[] {
  const out: string[] = [];
  let pending = "";
  for (const line of lines) {
    if (/(^|[^\\])(\\\\)*\\$/.test(line)) {
      pending += line.slice(0, -1);
      continue;
    }
    out.push(pending + line);
    pending = "";
  }
  if (pending) out.push(pending);
  return out;
}

/** `[remote "origin"]` → `remote\0origin`; `[remote.origin]` (old form) likewise; others by name. */
function parseSectionHeader(line: string): string | null {
  const quoted = /^\[\s*([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"\s*\]/.exec(line);
  if (quoted) {
    const sub = (quoted[2] as string).replace(/\\(.)/g, "$1");
    return `${(quoted[1] as string).toLowerCase()}\u0000${sub}`;
  }
  const plain = /^\[\s*([A-Za-z0-9-]+)(?:\.([A-Za-z0-9.-]+))?\s*\]/.exec(line);
  if (!plain) return null;
  const name = (plain[1] as string).toLowerCase();
  return plain[2] ? `${name}\u0000${(plain[2] as string).toLowerCase()}` : name;
}

function parseConfigValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i += 1) {
    const ch = raw.charAt(i);
    if (ch === "\\") {
      const next = raw.charAt(i + 1);
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "" : next;
      i += 1;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && (ch === "#" || ch === ";")) {
      break;
    } else {
      out += ch;
    }
  }
  return out.trim();
}
