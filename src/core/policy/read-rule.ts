// The one read rule (docs/decisions.md "One read rule"): where a file a command opens lies decides whether
// a person must see it first. The placement is the file gate's (src/executor/file-access.ts): the
// protected folders of workdir.md §3 (core/workdir/io/protected-folders.ts), Gatehouse's own folder E with
// the workspace inside it open. For reading, three kinds of place hold secrets:
//
// - E (its approvals file holds the socket token): always a person, whatever the allowlist or security;
// - credentials and agent configuration folders (~/.ssh, ~/.aws, ~/.claude…, the agents' homes): a person,
//   like a command the allowlist does not cover;
// - another process's environment, memory or open files under /proc (Gatehouse's own process holds the
//   backend token in its environment).
//
// Other system folders (/etc, /usr…) and the home folder itself are protected as places to *work in*, not
// to read: `cat /etc/os-release` is ordinary, and the secrets in /etc are readable by root only.
import path from "node:path";
import {
  protectionOf,
  type ProtectedFolders,
  type ProtectionLabel,
} from "../workdir/io/protected-folders.js";
import { isWithinComponents, pathComponents } from "../workdir/platform-path.js";

export type ReadConcern = { kind: "own"; where: string } | { kind: "protected"; where: string };

const SECRET_LABELS: ReadonlySet<ProtectionLabel> = new Set([
  "a credentials folder",
  "an agent configuration folder",
]);
const FOLD = { caseInsensitive: true, nfc: true };
const OWN = "Gatehouse's own folder, which holds its policy and secrets";
const PROCESS = "another process's environment, memory or open files";

/** A path under /proc that belongs to one process (its environ, mem, fd/…), not the system's tables. */
function processFile(comps: readonly string[]): boolean {
  return (
    comps[0] === "/" &&
    comps[1] === "proc" &&
    comps.length > 2 &&
    /^(\d+|self|thread-self)$/.test(comps[2] as string)
  );
}

/**
 * The folded (NFC, lower case) text of every place the rule keeps, per set of protected folders: a path
 * that starts with none of them is in none of them, and most paths are (the precise, component-wise test
 * runs only for the others).
 */
const keptPrefixes = new WeakMap<ProtectedFolders, string[]>();

function prefixesOf(folders: ProtectedFolders): string[] {
  let prefixes = keptPrefixes.get(folders);
  if (!prefixes) {
    const kept = folders.entries.filter((e) => e.match === "subtree" && SECRET_LABELS.has(e.label));
    prefixes = [...kept.map((e) => e.path), ...folders.executorHome].map(fold);
    if (folders.platform !== "win32") prefixes.push("/proc/");
    keptPrefixes.set(folders, prefixes);
  }
  return prefixes;
}

function fold(p: string): string {
  return p.normalize("NFC").toLowerCase();
}

/** Why reading `p` needs a person, or null. `p` is absolute (its text form or its real path). */
export function readConcern(p: string, folders: ProtectedFolders): ReadConcern | null {
  const folded = fold(p);
  if (!prefixesOf(folders).some((prefix) => folded.startsWith(prefix))) return null;
  const label = protectionOf(p, folders);
  if (label === "Gatehouse's own data") return { kind: "own", where: OWN };
  if (label && SECRET_LABELS.has(label)) return { kind: "protected", where: `in ${label}` };
  if (folders.platform !== "win32" && processFile(pathComponents(p, folders.platform)))
    return { kind: "protected", where: PROCESS };
  return null;
}

/**
 * Why reading the whole tree under `p` needs a person, or null: it lies in such a place, or such a
 * place lies inside it (`grep -r token ~`, `tar c /home`).
 */
export function treeConcern(p: string, folders: ProtectedFolders): ReadConcern | null {
  const own = readConcern(p, folders);
  if (own) return own;
  const folded = fold(p);
  if (!prefixesOf(folders).some((prefix) => prefix.startsWith(folded))) return null;
  const { platform } = folders;
  const comps = pathComponents(p, platform);
  const inside = (q: string) => isWithinComponents(pathComponents(q, platform), comps, FOLD);
  // E holds secrets outside the open workspace whenever it is an ancestor of anything
  if (folders.executorHome.some(inside)) return { kind: "own", where: `a folder that holds ${OWN}` };
  for (const entry of folders.entries) {
    if (entry.match === "subtree" && SECRET_LABELS.has(entry.label) && inside(entry.path))
      return { kind: "protected", where: `a folder that holds ${entry.label} (${entry.path})` };
  }
  return null;
}

/** The text form of a path as the kernel is given it: absolute, `.` and `..` collapsed as text. */
export function lexicalPath(p: string, cwd: string, platform: NodeJS.Platform): string {
  const api = platform === "win32" ? path.win32 : path.posix;
  return api.resolve(cwd, p);
}
