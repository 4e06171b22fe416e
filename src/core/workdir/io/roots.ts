// workdir.md §2: the allowed roots. W (always allowed, created 0700), `LOCAL_WORKDIR_ALLOWED_ROOTS`
// and the user's `workdir.roots` in E/settings.json, each checked in the design's order with its
// exact refusal text, probed for case-insensitivity and merged by real path.
import { constants } from "node:fs";
import fs from "node:fs/promises";
import type { Env } from "../../paths.js";
import { tildify } from "../messages.js";
import {
  expandRequestedPath,
  isAbsolutePath,
  lexicalForm,
  pathSyntaxProblem,
  stripVerbatimPrefix,
  upperCaseDrive,
} from "../normalise.js";
import { protectionOf, type ProtectedFolders } from "./protected-folders.js";
import type { ActiveRoot } from "./path-check.js";
import { isWithinComponents, pathComponents, rootRule, samePath, type Platform } from "../platform-path.js";
import { probeCaseInsensitive } from "./case-rule.js";

export type RootSource = ActiveRoot["source"];
export type RootStatus = "active" | "refused" | "merged";

/** One configured root as the Workdirs screen and `gatehouse workdir roots` show it. */
export interface RootInfo {
  source: RootSource;
  /** The path as given. */
  given: string;
  realpath: string | null;
  case_insensitive: boolean;
  status: RootStatus;
  /** Why it is refused (the §2 text) or merged; null when active. */
  reason: string | null;
}

export type RootCheck =
  | { ok: true; path: string; realpath: string; caseInsensitive: boolean }
  | { ok: false; reason: string; path: string | null; realpath: string | null };

export interface RootCheckContext {
  home: string;
  platform: Platform;
  protect: ProtectedFolders;
  /** Settings only (check 5): roots a new one must not already lie inside. */
  activeRoots?: readonly ActiveRoot[];
}

/** `~name`, `C:foo` and `\\foo` are not absolute; control characters and device paths are not valid at all. */
function syntaxRefusal(text: string, platform: Platform): string | null {
  if (!pathSyntaxProblem(text, platform)) return null;
  if (/\p{Cc}/u.test(text)) return "not a valid path";
  if (text.startsWith("~")) return "not an absolute path";
  if (platform === "win32" && (/^[A-Za-z]:(?![\\/])/.test(text) || /^[\\/](?![\\/])/.test(text))) {
    return "not an absolute path";
  }
  return "not a valid path";
}

/** Checks 1–5 of §2, in order; the first failure refuses the root with its text. */
export async function checkRoot(given: string, ctx: RootCheckContext): Promise<RootCheck> {
  const { platform, home } = ctx;
  const text = given.trim();
  const syntax = syntaxRefusal(text, platform);
  if (syntax) return { ok: false, reason: syntax, path: null, realpath: null };
  const expanded = expandRequestedPath(text, home, platform);
  if (!isAbsolutePath(expanded, platform)) {
    return { ok: false, reason: "not an absolute path", path: null, realpath: null };
  }
  const lexical = lexicalForm(expanded, platform);
  const textLabel = protectionOf(lexical, ctx.protect);
  if (textLabel)
    return { ok: false, reason: `protected folder: ${textLabel}`, path: lexical, realpath: null };
  let stat;
  try {
    stat = await fs.stat(lexical);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : "Gatehouse is not allowed to open it";
    return { ok: false, reason, path: lexical, realpath: null };
  }
  if (!stat.isDirectory()) return { ok: false, reason: "not a folder", path: lexical, realpath: null };
  let real: string;
  try {
    real = await fs.realpath(lexical);
    if (platform === "win32") real = upperCaseDrive(stripVerbatimPrefix(real));
  } catch {
    return { ok: false, reason: "Gatehouse is not allowed to open it", path: lexical, realpath: null };
  }
  const realLabel = protectionOf(real, ctx.protect);
  if (realLabel)
    return { ok: false, reason: `protected folder: ${realLabel}`, path: lexical, realpath: real };
  for (const root of ctx.activeRoots ?? []) {
    const rule = rootRule(root.caseInsensitive, platform);
    if (isWithinComponents(pathComponents(real, platform), pathComponents(root.realpath, platform), rule)) {
      return {
        ok: false,
        reason: `already allowed: inside ${tildify(root.realpath, home, platform)}`,
        path: lexical,
        realpath: real,
      };
    }
  }
  try {
    await fs.access(real, constants.R_OK | constants.X_OK);
  } catch {
    return { ok: false, reason: "Gatehouse is not allowed to open it", path: lexical, realpath: real };
  }
  return {
    ok: true,
    path: lexical,
    realpath: real,
    caseInsensitive: await probeCaseInsensitive(real, platform),
  };
}

export interface WorkspaceRoot {
  root: ActiveRoot;
  /** W as text (expanded, `..` collapsed) and as real path: the forms exempt from the rule for E. */
  forms: string[];
  info: RootInfo;
  /** `LOCAL_WORKSPACE_ROOT refused: <reason>` when the configured W could not be used. */
  warning: string | null;
}

export interface WorkspaceRootInput {
  env: Env;
  home: string;
  platform: Platform;
  /** E/workspace. */
  defaultRoot: string;
  /** `local_workspace_root` from E/device-config.json (blank = unset). */
  configuredRoot: string | null;
  /** Builds the protected folders for a candidate W (the E exception depends on W). */
  protectFor: (workspace: readonly string[]) => Promise<ProtectedFolders>;
}

/**
 * W = `LOCAL_WORKSPACE_ROOT`, else `local_workspace_root`, else E/workspace. Created with mode 0700
 * when missing. A W that is protected (apart from the rule for E), or cannot be created, is refused
 * and E/workspace is used instead.
 */
export async function resolveWorkspaceRoot(input: WorkspaceRootInput): Promise<WorkspaceRoot> {
  const fromEnv = input.env.LOCAL_WORKSPACE_ROOT?.trim();
  const fromConfig = input.configuredRoot?.trim();
  const candidate = fromEnv
    ? { given: fromEnv, name: "LOCAL_WORKSPACE_ROOT" }
    : fromConfig
      ? { given: fromConfig, name: "local_workspace_root" }
      : null;
  if (candidate) {
    const attempt = await prepareWorkspace(candidate.given, input);
    if (attempt.ok) return { root: attempt.root, forms: attempt.forms, info: attempt.info, warning: null };
    const fallback = await prepareWorkspace(input.defaultRoot, input);
    if (!fallback.ok)
      throw new Error(`The workspace folder ${input.defaultRoot} cannot be used: ${fallback.reason}`);
    const warning = `${candidate.name} refused: ${attempt.reason}`;
    return {
      root: fallback.root,
      forms: fallback.forms,
      info: { ...fallback.info, reason: warning },
      warning,
    };
  }
  const attempt = await prepareWorkspace(input.defaultRoot, input);
  if (!attempt.ok)
    throw new Error(`The workspace folder ${input.defaultRoot} cannot be used: ${attempt.reason}`);
  return { root: attempt.root, forms: attempt.forms, info: attempt.info, warning: null };
}

async function prepareWorkspace(
  given: string,
  input: WorkspaceRootInput,
): Promise<{ ok: true; root: ActiveRoot; forms: string[]; info: RootInfo } | { ok: false; reason: string }> {
  const { platform, home } = input;
  const syntax = syntaxRefusal(given, platform);
  if (syntax) return { ok: false, reason: syntax };
  const expanded = expandRequestedPath(given, home, platform);
  if (!isAbsolutePath(expanded, platform)) return { ok: false, reason: "not an absolute path" };
  const lexical = lexicalForm(expanded, platform);
  const protect = await input.protectFor([lexical]);
  const textLabel = protectionOf(lexical, protect);
  if (textLabel) return { ok: false, reason: `protected folder: ${textLabel}` };
  try {
    await fs.mkdir(lexical, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === "EEXIST" ? "not a folder" : `cannot be created (${code ?? "error"})`,
    };
  }
  const stat = await fs.stat(lexical).catch(() => null);
  if (!stat?.isDirectory()) return { ok: false, reason: "not a folder" };
  let real: string;
  try {
    real = await fs.realpath(lexical);
    if (platform === "win32") real = upperCaseDrive(stripVerbatimPrefix(real));
  } catch {
    return { ok: false, reason: "Gatehouse is not allowed to open it" };
  }
  const realProtect = await input.protectFor([lexical, real]);
  const realLabel = protectionOf(real, realProtect);
  if (realLabel) return { ok: false, reason: `protected folder: ${realLabel}` };
  try {
    await fs.access(real, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    return { ok: false, reason: "Gatehouse is not allowed to open it" };
  }
  const caseInsensitive = await probeCaseInsensitive(real, platform);
  return {
    ok: true,
    root: { source: "workspace", given, realpath: real, caseInsensitive },
    forms: [...new Set([lexical, real])],
    info: {
      source: "workspace",
      given,
      realpath: real,
      case_insensitive: caseInsensitive,
      status: "active",
      reason: null,
    },
  };
}

export interface RootSetInput {
  home: string;
  platform: Platform;
  protect: ProtectedFolders;
  workspace: WorkspaceRoot;
  envRoots: readonly string[];
  settingsRoots: readonly string[];
}

export interface RootSet {
  workspace: ActiveRoot;
  /** Every configured root with its status, W first. */
  infos: RootInfo[];
  /** The roots requests are checked against (merged by real path). */
  active: ActiveRoot[];
}

/** Checks every `env` and `settings` root (checks 1–4) and merges roots that share a real path. */
export async function loadRootSet(input: RootSetInput): Promise<RootSet> {
  const active: ActiveRoot[] = [input.workspace.root];
  const infos: RootInfo[] = [input.workspace.info];
  const items: Array<{ source: "env" | "settings"; given: string }> = [
    ...input.envRoots.map((given) => ({ source: "env" as const, given })),
    ...input.settingsRoots.map((given) => ({ source: "settings" as const, given })),
  ];
  for (const item of items) {
    const check = await checkRoot(item.given, {
      home: input.home,
      platform: input.platform,
      protect: input.protect,
    });
    if (!check.ok) {
      infos.push({
        ...item,
        realpath: check.realpath,
        case_insensitive: false,
        status: "refused",
        reason: check.reason,
      });
      continue;
    }
    const twin = active.find((root) =>
      samePath(root.realpath, check.realpath, input.platform, rootRule(root.caseInsensitive, input.platform)),
    );
    if (twin) {
      infos.push({
        ...item,
        realpath: check.realpath,
        case_insensitive: check.caseInsensitive,
        status: "merged",
        reason: `same folder as ${tildify(twin.realpath, input.home, input.platform)}`,
      });
      continue;
    }
    active.push({ ...item, realpath: check.realpath, caseInsensitive: check.caseInsensitive });
    infos.push({
      ...item,
      realpath: check.realpath,
      case_insensitive: check.caseInsensitive,
      status: "active",
      reason: null,
    });
  }
  return { workspace: input.workspace.root, infos, active };
}
