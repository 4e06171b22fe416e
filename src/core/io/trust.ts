// Local trust: the one rule for which files and folders Gatehouse reads its policy, token and state
// from. Another local user must not be able to write what decides what runs here, so E, the approvals
// file and the socket folder must belong to the user and be writable by nobody else, and every folder
// above them must belong to the user or root and be writable by nobody else (a sticky folder such as
// /tmp is fine above E: others cannot rename or remove what is ours inside it). Used by every CLI
// command, the hook, the server, the tray app and the socket client (docs/decisions.md "Local trust").
import fs from "node:fs";
import path from "node:path";

export interface TrustOptions {
  /** The user whose files are trusted (default: this process's effective uid). */
  uid?: number;
  platform?: NodeJS.Platform;
}

export interface TrustProblem {
  /** The file or folder that cannot be trusted. */
  path: string;
  /** Why, in words a person can act on (with the command that fixes it where there is one). */
  message: string;
}

/** Thrown where a caller cannot return a problem as a value. */
export class UntrustedPathError extends Error {
  constructor(readonly problem: TrustProblem) {
    super(problem.message);
    this.name = "UntrustedPathError";
  }
}

const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;

function currentUid(options: TrustOptions): number | null {
  const platform = options.platform ?? process.platform;
  // Windows has no uid and no POSIX modes: its per-user profile ACLs are the protection there.
  if (platform === "win32") return null;
  return options.uid ?? process.geteuid?.() ?? null;
}

function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

type Role = "own" | "ancestor";

/**
 * One path's problem. `own`: E, the file itself, the socket folder: the user's, writable by nobody
 * else. `ancestor`: a folder above: the user's or root's, writable by nobody else unless sticky.
 */
function statProblem(p: string, stat: fs.Stats, uid: number, role: Role): TrustProblem | null {
  if (stat.isSymbolicLink()) return null; // a link's own mode means nothing; its folder and target are checked
  const what = stat.isDirectory() ? "folder" : "file";
  const ownerOk = stat.uid === uid || (role === "ancestor" && stat.uid === 0);
  if (!ownerOk) {
    return {
      path: p,
      message:
        `The ${what} ${p} belongs to another user (uid ${stat.uid}), so Gatehouse does not trust it. ` +
        `Remove it (or have it owned by you: chown ${uid} ${p}) and check what it holds.`,
    };
  }
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0 && !(role === "ancestor" && (stat.mode & STICKY) !== 0)) {
    return {
      path: p,
      message:
        `The ${what} ${p} can be written by other users (mode ${modeText(stat.mode)}), so Gatehouse does ` +
        `not trust it. Run "chmod go-w ${p}" and check what it holds.`,
    };
  }
  return null;
}

/** `/a/b/c` → [`/`, `/a`, `/a/b`, `/a/b/c`]. */
function chain(p: string): string[] {
  const out: string[] = [];
  let current = path.resolve(p);
  for (;;) {
    out.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) return out;
    current = parent;
  }
}

/** The first problem along `chain(p)`: the last element has role `own`, the others `ancestor`. */
function chainProblem(p: string, uid: number): TrustProblem | null {
  const parts = chain(p);
  for (const [i, part] of parts.entries()) {
    const stat = lstatOrNull(part);
    if (!stat) return null; // what does not exist yet will be created by the user, 0700
    const problem = statProblem(part, stat, uid, i === parts.length - 1 ? "own" : "ancestor");
    if (problem) return problem;
  }
  return null;
}

/**
 * Checks a folder Gatehouse keeps its own files in (E, the socket folder) and every folder above it,
 * both as written and with links resolved. A missing folder is fine when the folders above it are.
 */
export function checkTrustedFolder(dir: string, options: TrustOptions = {}): TrustProblem | null {
  const uid = currentUid(options);
  if (uid === null) return null;
  const lexical = chainProblem(dir, uid);
  if (lexical) return lexical;
  let real: string;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    return null; // missing: the lexical chain above was checked
  }
  return real === path.resolve(dir) ? null : chainProblem(real, uid);
}

/** Checks a file Gatehouse reads (when it exists) and the folders it lives in. */
export function checkTrustedFile(file: string, options: TrustOptions = {}): TrustProblem | null {
  const uid = currentUid(options);
  if (uid === null) return null;
  return checkTrustedFolder(path.dirname(file), options) ?? entryProblem(file, uid, options);
}

/** One entry of a trusted folder: itself, or where it leads when it is a link. */
function entryProblem(p: string, uid: number, options: TrustOptions): TrustProblem | null {
  const stat = lstatOrNull(p);
  if (!stat) return null;
  if (!stat.isSymbolicLink()) return statProblem(p, stat, uid, "own");
  let real: string;
  try {
    real = fs.realpathSync.native(p);
  } catch {
    return null; // a dangling link reads as missing
  }
  return checkTrustedFolder(path.dirname(real), options) ?? statProblemOf(real, uid);
}

function statProblemOf(p: string, uid: number): TrustProblem | null {
  const stat = lstatOrNull(p);
  return stat ? statProblem(p, stat, uid, "own") : null;
}

/**
 * The whole home E: the folder chain, and every entry directly inside E (the approvals file, device
 * config, settings, status, secrets fallback, the socket, capabilities/, runtime/, workspace/ …).
 * Folders below those are the app's own (created 0700) or the user's work and are not walked.
 */
export function checkTrustedHome(executorHome: string, options: TrustOptions = {}): TrustProblem | null {
  const uid = currentUid(options);
  if (uid === null) return null;
  const folder = checkTrustedFolder(executorHome, options);
  if (folder) return folder;
  let names: string[];
  try {
    names = fs.readdirSync(executorHome);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    return { path: executorHome, message: `Cannot read ${executorHome}: ${(error as Error).message}` };
  }
  for (const name of names.sort()) {
    const problem = entryProblem(path.join(executorHome, name), uid, options);
    if (problem) return problem;
  }
  return null;
}

/**
 * The server side of the approval socket as a client must find it before sending anything: a socket
 * (not a link, not a file) that belongs to the user, in a folder only the user can write (so nobody
 * can swap it between this check and the connect). Only the user's own process can have bound it.
 */
export function checkTrustedSocket(socketPath: string, options: TrustOptions = {}): TrustProblem | null {
  const uid = currentUid(options);
  if (uid === null) return null;
  const folder = checkTrustedFolder(path.dirname(socketPath), options);
  if (folder) {
    return {
      path: folder.path,
      message: `${folder.message} Nothing was sent to the approval socket ${socketPath}; choose a private folder of your own for "socket.path".`,
    };
  }
  const stat = lstatOrNull(socketPath);
  if (!stat) return null; // nobody listens: the caller reports "not running""
  if (!stat.isSocket()) {
    return {
      path: socketPath,
      message: `${socketPath} is not a socket (it is ${stat.isSymbolicLink() ? "a symbolic link" : stat.isDirectory() ? "a folder" : "a file"}), so Gatehouse does not talk to it.`,
    };
  }
  if (stat.uid !== uid) {
    return {
      path: socketPath,
      message:
        `The approval socket ${socketPath} belongs to another user (uid ${stat.uid}): it is not your ` +
        `Gatehouse, so nothing was sent to it. Remove it and start Gatehouse again.`,
    };
  }
  return statProblem(socketPath, stat, uid, "own");
}
