// workdir.md §7: the texts a person reads. Messages go to the backend, so they show only what the
// request named, the managed folder and the repository key: never where a link leads or which
// roots are allowed.
import { foldName, type Platform } from "./platform-path.js";
import type { FallbackCode } from "./types.js";

const PROBLEMS: Record<
  Exclude<FallbackCode, "unknown-policy" | "invalid-repo" | "repo-binding-missing">,
  string
> = {
  "invalid-path": "it is not a valid path on this device",
  "outside-allowed-roots": "it is not inside an allowed folder",
  "symlink-escape": "it leads through a link to a place outside the allowed folders",
  "sensitive-directory": "it is a protected folder",
  "missing-directory": "it does not exist on this device",
  "not-a-directory": "it is not a folder",
  unreadable: "Gatehouse is not allowed to open it",
  "repo-remote-mismatch": "its git remotes do not include <repo key>",
  "changed-before-start": "it changed just before the agent started and is no longer allowed",
};

const HINTS: Partial<Record<FallbackCode, string>> = {
  "outside-allowed-roots": "Add it under Workdirs in Gatehouse to allow it.",
};

const MAX_SHOWN = 300;

/** Control characters escaped and very long text cut, so a hostile request cannot garble the stream. */
export function sanitiseForMessage(text: string): string {
  const escaped = text.replace(/\p{Cc}/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > MAX_SHOWN ? `${escaped.slice(0, MAX_SHOWN)}…` : escaped;
}

/**
 * An absolute path inside the home folder with the home part written as `~` (the text after the
 * home part is kept as it was). Anything else is returned unchanged.
 */
export function tildify(p: string, home: string, platform: Platform): string {
  const sep = platform === "win32" ? "\\" : "/";
  const homeText = home.replace(/[\\/]+$/, "");
  if (homeText === "" || /^[A-Za-z]:$/.test(homeText)) return p; // a home at a root: nothing to shorten
  const probe = platform === "win32" ? p.replace(/\//g, "\\") : p;
  const fold = platform === "win32" || platform === "darwin" ? foldName : (s: string) => s;
  const head = probe.slice(0, homeText.length);
  if (fold(head) !== fold(homeText)) return p;
  const rest = p.slice(homeText.length);
  if (rest === "") return "~";
  if (rest.startsWith(sep) || (platform === "win32" && rest.startsWith("/"))) return `~${rest}`;
  return p;
}

export interface MessageParts {
  /** The requested path as received (tildified by `shownPath`). */
  shown: string;
  /** The managed folder, tildified. */
  managed: string;
  repoKey?: string;
  policy?: string;
  /** The git URL with credentials removed. */
  url?: string;
  branch?: string;
}

export function shownPath(requested: string, home: string, platform: Platform): string {
  return sanitiseForMessage(tildify(requested, home, platform));
}

export function fallbackMessage(code: FallbackCode, parts: MessageParts): string {
  const managed = `Using the managed folder "${parts.managed}" instead.`;
  switch (code) {
    case "unknown-policy":
      return `Working folder policy "${sanitiseForMessage(parts.policy ?? "")}" is not supported. ${managed}`;
    case "invalid-repo":
      return `Git URL "${sanitiseForMessage(parts.url ?? "")}" is not understood. ${managed}`;
    case "repo-binding-missing":
      return (
        `No folder on this device is linked to ${parts.repoKey ?? ""} (${sanitiseForMessage(parts.branch ?? "*")}). ` +
        `${managed} Link one under Workdirs → Repositories in Gatehouse.`
      );
    default: {
      const problem = PROBLEMS[code].replace("<repo key>", parts.repoKey ?? "");
      const hint = HINTS[code];
      return `Working folder "${parts.shown}" can't be used: ${problem}. ${managed}${hint ? ` ${hint}` : ""}`;
    }
  }
}

/** The problem sentence alone (the check box and `gatehouse workdir check` without a task). */
export function problemText(code: FallbackCode): string {
  return code in PROBLEMS ? PROBLEMS[code as keyof typeof PROBLEMS] : code;
}

export function branchNotice(repoKey: string, headBranch: string, requestedBranch: string): string {
  return (
    `The folder linked to ${repoKey} is on branch ${sanitiseForMessage(headBranch)}, ` +
    `not ${sanitiseForMessage(requestedBranch)}; Gatehouse does not switch branches.`
  );
}

export function changedNotice(from: string, to: string): string {
  return `Working folder changed from "${from}" to "${to}"; starting a new agent session.`;
}

export function fatalMessage(code: string): string {
  return `Working folder error: ${code}.`;
}
