// workdir.md §3: folders that can never be a cwd or a root. Entries are built from the home folder,
// E, the agent homes and the environment; each entry's real path is added when it exists. Matching
// is component by component under the widest fold (case, NFKC): over-matching can only refuse more.
// The exemption of W from the rule for E is the opposite: it allows, so it follows W's volume (probed).
import fs from "node:fs/promises";
import type { Env } from "../../paths.js";
import { stripVerbatimPrefix, upperCaseDrive } from "../normalise.js";
import {
  isWithinComponents,
  pathApi,
  pathComponents,
  PROTECTION_RULE,
  type CompareRule,
  type Platform,
} from "../platform-path.js";
import { folderRule, type IdentityFn } from "./case-rule.js";

export type ProtectionLabel =
  | "the file system root"
  | "a system folder"
  | "your home folder"
  | "the folder that holds all home folders"
  | "a credentials folder"
  | "an agent configuration folder"
  | "an application data folder"
  | "Gatehouse's own data";

export interface ProtectedEntry {
  path: string;
  match: "exact" | "subtree";
  label: ProtectionLabel;
}

export interface ProtectedFoldersInput {
  home: string;
  executorHome: string;
  claudeHome: string;
  codexHome: string;
  env: Env;
  platform: Platform;
}

export interface ProtectedFolders {
  platform: Platform;
  entries: ProtectedEntry[];
  /** E in text and real form: protected except W and everything inside W. */
  executorHome: string[];
  /** W in text and real form; empty when W is not strictly inside E (then E is protected whole). */
  workspaceException: string[];
  /** How a path is compared with W for the exemption: W's own volume's case rule (probed). */
  workspaceRule: CompareRule;
}

const CREDENTIAL_FOLDERS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker",
  ".password-store",
  "Library/Keychains",
];
const POSIX_SYSTEM_FOLDERS = [
  "/etc",
  "/System",
  "/Library",
  "/usr",
  "/bin",
  "/sbin",
  "/private/etc",
  "/proc",
  "/sys",
  "/dev",
  "/boot",
];

/** Environment lookup that ignores the case of the name, as Windows does. */
function envValue(env: Env, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined) return direct.trim() || undefined;
  const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? env[key]?.trim() || undefined : undefined;
}

function underHome(home: string, relative: string, platform: Platform): string {
  const api = pathApi(platform);
  return api.join(home, ...relative.split("/"));
}

/** The text form of every entry (pure). Windows drive roots and admin shares are rules, not entries. */
export function protectedFolderEntries(input: ProtectedFoldersInput): ProtectedEntry[] {
  const { home, platform, env } = input;
  const api = pathApi(platform);
  const entries: ProtectedEntry[] = [];
  const add = (p: string | undefined, match: ProtectedEntry["match"], label: ProtectionLabel) => {
    if (p) entries.push({ path: platform === "win32" ? upperCaseDrive(p) : p, match, label });
  };
  if (platform !== "win32") add("/", "exact", "the file system root");
  add(home, "exact", "your home folder");
  add(api.dirname(home), "exact", "the folder that holds all home folders");
  for (const folder of CREDENTIAL_FOLDERS)
    add(underHome(home, folder, platform), "subtree", "a credentials folder");
  for (const folder of [
    underHome(home, ".claude", platform),
    underHome(home, ".codex", platform),
    input.claudeHome,
    input.codexHome,
  ]) {
    add(folder, "subtree", "an agent configuration folder");
  }
  if (platform === "win32") {
    const windowsDefaults: Array<[string, string]> = [
      ["SystemRoot", "C:\\Windows"],
      ["ProgramFiles", "C:\\Program Files"],
      ["ProgramFiles(x86)", "C:\\Program Files (x86)"],
      ["ProgramData", "C:\\ProgramData"],
    ];
    for (const [name, fallback] of windowsDefaults) {
      add(envValue(env, name) ?? fallback, "subtree", "a system folder");
      add(fallback, "subtree", "a system folder");
    }
    add(underHome(home, "AppData", platform), "subtree", "an application data folder");
  } else {
    for (const folder of POSIX_SYSTEM_FOLDERS) add(folder, "subtree", "a system folder");
  }
  return entries;
}

export type RealpathFn = (p: string) => Promise<string>;

async function realOrNull(p: string, realpath: RealpathFn, platform: Platform): Promise<string | null> {
  try {
    const real = await realpath(p);
    return platform === "win32" ? upperCaseDrive(stripVerbatimPrefix(real)) : real;
  } catch {
    return null;
  }
}

/**
 * Every entry plus its real path where it exists (macOS: `/etc` also yields `/private/etc`).
 * `workspace` holds W's forms (text, real): when W lies strictly inside E, W and everything inside it are exempt from the
 * rule for E; otherwise E is protected whole (W = E would hand agents the approvals file).
 */
export async function buildProtectedFolders(
  input: ProtectedFoldersInput & { workspace: readonly string[] },
  realpath: RealpathFn = (p) => fs.realpath(p),
  identity?: IdentityFn,
): Promise<ProtectedFolders> {
  const { platform } = input;
  const base = protectedFolderEntries(input);
  const entries = [...base];
  const reals = await Promise.all(base.map((entry) => realOrNull(entry.path, realpath, platform)));
  base.forEach((entry, i) => {
    const real = reals[i];
    if (real && real !== entry.path) entries.push({ ...entry, path: real });
  });
  const eReal = await realOrNull(input.executorHome, realpath, platform);
  const executorHome = unique([input.executorHome, eReal]);
  let workspaceException: string[] = [];
  // Exact until a probe says W's volume ignores case: a missing W exempts only its exact spelling.
  let workspaceRule: CompareRule = { caseInsensitive: platform === "win32", nfc: platform === "darwin" };
  if (input.workspace.length > 0) {
    const wReals = await Promise.all(input.workspace.map((w) => realOrNull(w, realpath, platform)));
    const wForms = unique([...input.workspace, ...wReals]);
    const strictlyInside = wForms.some((w) =>
      executorHome.some((e) => {
        const wc = pathComponents(w, platform);
        const ec = pathComponents(e, platform);
        return wc.length > ec.length && isWithinComponents(wc, ec, PROTECTION_RULE);
      }),
    );
    if (strictlyInside) workspaceException = wForms;
    const wReal = wReals.find((w): w is string => Boolean(w));
    if (wReal) workspaceRule = await folderRule(wReal, platform, identity);
  }
  return { platform, entries, executorHome, workspaceException, workspaceRule };
}

function unique(items: Array<string | null>): string[] {
  return [...new Set(items.filter((x): x is string => Boolean(x)))];
}

/** The label of the protected folder `p` is (or lies in), else null. The most specific entry wins. */
export function protectionOf(p: string, folders: ProtectedFolders): ProtectionLabel | null {
  const { platform } = folders;
  const comps = pathComponents(p, platform);
  if (comps.length === 0) return null;
  const rule = windowsRule(comps, platform);
  if (rule) return rule;
  let best: { label: ProtectionLabel; depth: number } | null = null;
  const consider = (label: ProtectionLabel, depth: number) => {
    if (!best || depth > best.depth) best = { label, depth };
  };
  for (const entry of folders.entries) {
    const ec = pathComponents(entry.path, platform);
    const hit =
      entry.match === "exact"
        ? ec.length === comps.length && isWithinComponents(comps, ec, PROTECTION_RULE)
        : isWithinComponents(comps, ec, PROTECTION_RULE);
    if (hit) consider(entry.label, ec.length);
  }
  for (const e of folders.executorHome) {
    const ec = pathComponents(e, platform);
    if (!isWithinComponents(comps, ec, PROTECTION_RULE)) continue;
    // Exempt only what is W on its own volume: `E/WORKSPACE` is another folder where case matters.
    const exempt = folders.workspaceException.some((w) =>
      isWithinComponents(comps, pathComponents(w, platform), folders.workspaceRule),
    );
    if (!exempt) consider("Gatehouse's own data", ec.length);
  }
  return (best as { label: ProtectionLabel } | null)?.label ?? null;
}

/** Windows rules that no entry list can spell out: every drive root and every administrative share. */
function windowsRule(comps: string[], platform: Platform): ProtectionLabel | null {
  if (platform !== "win32") return null;
  const root = comps[0] as string;
  if (/^[A-Za-z]:$/.test(root) && comps.length === 1) return "the file system root";
  const share = /^\\\\[^\\]+\\([^\\]+)$/.exec(root);
  if (share && /^([A-Za-z]\$|admin\$)$/i.test(share[1] as string)) return "a system folder";
  return null;
}
