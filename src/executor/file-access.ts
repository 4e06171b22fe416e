// The gate for an agent's own file tools (Claude Code's Write/Edit/Read…, Codex's apply_patch and
// view_image). Each path is first turned into the path the runtime opens (core/workdir/runtime-path.ts:
// its trimming, `~`, base folder and textual `..`), then judged in two forms that must both pass: that
// text form and the form the kernel resolves (links followed, a missing tail appended). Both are placed
// against the protected folders (widest fold) and the task's folder (its volume's probed case rule),
// explained by core/policy/file-edit.ts, and decided exactly like a command: a person, askFallback, the
// audit log. A path with characters outside a conservative set needs a person.
import fs from "node:fs/promises";
import type { AppPaths, Env } from "../core/paths.js";
import { explainFileAccess, type FileAccessKind, type FileTarget } from "../core/policy/file-edit.js";
import { lexicalForm } from "../core/workdir/normalise.js";
import { resolveRealForm } from "../core/workdir/io/path-check.js";
import { folderRule } from "../core/workdir/io/case-rule.js";
import {
  isWithinComponents,
  looksLikeShortName,
  pathApi,
  pathComponents,
  type CompareRule,
  type Platform,
} from "../core/workdir/platform-path.js";
import {
  buildProtectedFolders,
  protectionOf,
  type ProtectedFolders,
} from "../core/workdir/io/protected-folders.js";
import { oddPathCharacter, runtimeOpenedPath, type AgentRuntime } from "../core/workdir/runtime-path.js";
import { decideExplained, type GateDecision, type GateDeps, type GateRequest } from "./gate.js";

/** Folder names inside the task's folder whose files make later commands run code (git hooks and
 * config, agent settings and hooks): writing there is judged like writing outside. */
export const SENSITIVE_NAMES = [".git", ".claude", ".codex"];

export interface FileGateRequest extends Omit<GateRequest, "command" | "cwd" | "env"> {
  /** The agent's tool: `Write`, `Edit`, `apply_patch`, `Read`, … */
  tool: string;
  access: FileAccessKind;
  /** As the agent gave them (or as the runtime handed them to its hook). */
  paths: string[];
  /** The task's working folder (absolute). */
  workdir: string;
  /** Whose tool it is: how a path argument becomes the path opened. */
  runtime: AgentRuntime;
  /** The folder relative paths are taken from (the session's cwd, a call's workdir); default `workdir`. */
  base?: string;
}

/** Where Gatehouse and the agents keep their files: the protected folders are built from these. */
export interface FileGatePlaces {
  home: string;
  executorHome: string;
  claudeHome: string;
  codexHome: string;
  /** The effective workspace root W (exempt from the rule for E when it lies inside E). */
  workspaceRoot: string;
  env: Env;
  platform?: Platform;
}

/** The places of an app's paths (`workspaceRoot`: the effective W, by default `E/workspace`). */
export function fileGatePlaces(paths: AppPaths, env: Env, workspaceRoot: string): FileGatePlaces {
  return {
    home: paths.home,
    executorHome: paths.executorHome,
    claudeHome: paths.claudeHome,
    codexHome: paths.codexHome,
    workspaceRoot,
    env,
  };
}

async function isLink(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isSymbolicLink();
  } catch {
    return false;
  }
}

async function realFolder(dir: string): Promise<string | null> {
  try {
    return await fs.realpath(dir);
  } catch {
    return null;
  }
}

/** The task's folder as paths are judged against it; null (nothing is inside) when it is protected or gone. */
interface TaskFolder {
  /** Its text form and its real path: a path's text form may name either. */
  forms: string[];
  real: string;
  /** Names under it are compared with its volume's case rule. */
  rule: CompareRule;
}

async function usableWorkdir(
  workdir: string,
  folders: ProtectedFolders,
  platform: Platform,
): Promise<TaskFolder | null> {
  const real = await realFolder(workdir);
  if (real === null) return null;
  // A folder such as the home folder or `/` would make "inside" mean everything.
  if (protectionOf(real, folders) !== null || protectionOf(workdir, folders) !== null) return null;
  const text = lexicalForm(workdir, platform);
  return { forms: [...new Set([real, text])], real, rule: await folderRule(real, platform) };
}

/** The first name under the task's folder that makes later commands run code, if any. */
function sensitiveName(comps: readonly string[], depth: number): string | undefined {
  return comps.slice(depth).find((name) => SENSITIVE_NAMES.includes(name.normalize("NFC").toLowerCase()));
}

interface JudgeContext {
  access: FileAccessKind;
  runtime: AgentRuntime;
  folder: TaskFolder | null;
  base: string;
  folders: ProtectedFolders;
  places: FileGatePlaces;
}

async function resolveTarget(given: string, ctx: JudgeContext): Promise<FileTarget> {
  const platform = ctx.places.platform ?? process.platform;
  const odd = oddPathCharacter(given);
  const opened = runtimeOpenedPath(ctx.runtime, given, { platform, home: ctx.places.home, base: ctx.base });
  if (!opened.ok) return { given, resolved: null, where: "unresolved", detail: opened.reason };
  // The text form T (what the runtime names) and the kernel's form R (links followed on T).
  const text = opened.dotsCollapsed ? opened.path : lexicalForm(opened.path, platform);
  const real = await resolveRealForm(opened.path, platform);
  // Either form in a protected folder counts (a link into ~/.ssh, or `..` out of the folder).
  const label = protectionOf(text, ctx.folders) ?? protectionOf(real.resolved, ctx.folders);
  if (label === "Gatehouse's own data")
    return { given, resolved: real.resolved, where: "gatehouse-data", detail: label };
  // Judged as the runtime opens it, yet an odd character in what the model wrote needs a person anyway.
  if (odd)
    return {
      given,
      resolved: real.resolved,
      where: "unresolved",
      detail: `it holds ${odd}, a character paths do not need`,
    };
  if (real.problem) return { given, resolved: null, where: "unresolved", detail: real.problem.reason };
  const api = pathApi(platform);
  // A link whose target does not exist yet is "missing" to realpath, yet writing through it creates
  // that target wherever it points.
  if (real.missing.length > 0 && (await isLink(api.join(real.existing, real.missing[0]!))))
    return { given, resolved: null, where: "unresolved", detail: "a link to a place that does not exist" };
  if (platform === "win32" && real.missing.some(looksLikeShortName))
    return {
      given,
      resolved: null,
      where: "unresolved",
      detail: "a short (8.3) name Windows has not expanded",
    };
  if (label) return { given, resolved: real.resolved, where: "protected", detail: label };
  const folder = ctx.folder;
  const realComps = pathComponents(real.resolved, platform);
  const textComps = pathComponents(text, platform);
  const textDepth = folder?.forms
    .map((f) => pathComponents(f, platform))
    .find((fc) => isWithinComponents(textComps, fc, folder.rule))?.length;
  const realDepth = folder ? pathComponents(folder.real, platform).length : 0;
  if (
    !folder ||
    textDepth === undefined ||
    !isWithinComponents(realComps, pathComponents(folder.real, platform), folder.rule)
  )
    return { given, resolved: real.resolved, where: "outside" };
  if (ctx.access === "write") {
    const sensitive = sensitiveName(textComps, textDepth) ?? sensitiveName(realComps, realDepth);
    if (sensitive) return { given, resolved: real.resolved, where: "sensitive-inside", detail: sensitive };
  }
  return { given, resolved: real.resolved, where: "inside" };
}

/** Every path of a request resolved and placed (inside, outside, protected, …). */
export async function resolveFileTargets(
  request: Pick<FileGateRequest, "paths" | "access" | "workdir" | "runtime" | "base">,
  places: FileGatePlaces,
): Promise<FileTarget[]> {
  const platform = places.platform ?? process.platform;
  const folders = await buildProtectedFolders({
    home: places.home,
    executorHome: places.executorHome,
    claudeHome: places.claudeHome,
    codexHome: places.codexHome,
    env: places.env,
    platform,
    workspace: [places.workspaceRoot],
  });
  const folder = await usableWorkdir(request.workdir, folders, platform);
  const workdirBase = folder?.real ?? lexicalForm(request.workdir, platform);
  // A base given relative (it should not be) is taken from the task's folder by the runtime's own rule.
  const base = request.base
    ? runtimeOpenedPath(request.runtime, request.base, { platform, home: places.home, base: workdirBase })
    : ({ ok: true, path: workdirBase, dotsCollapsed: true } as const);
  if (!base.ok)
    return request.paths.map((given) => ({
      given,
      resolved: null,
      where: "unresolved" as const,
      detail: `the folder it is taken from: ${base.reason}`,
    }));
  const ctx: JudgeContext = {
    access: request.access,
    runtime: request.runtime,
    folder,
    base: base.path,
    folders,
    places,
  };
  return Promise.all(request.paths.map((p) => resolveTarget(p, ctx)));
}

/** Decides a file access: explained, then a person or askFallback, audited with who decided. */
export async function decideFileAccess(
  request: FileGateRequest,
  places: FileGatePlaces,
  deps: GateDeps,
): Promise<GateDecision> {
  const targets = await resolveFileTargets(request, places);
  const explanation = explainFileAccess(
    {
      tool: request.tool,
      access: request.access,
      workdir: request.workdir,
      targets,
      agentId: request.agentId,
    },
    {
      approvals: await deps.approvals.load(),
      now: deps.now(),
      ...(request.requested ? { requested: request.requested } : {}),
      ...(request.identity ? { identity: request.identity } : {}),
    },
  );
  const {
    tool: _tool,
    access: _access,
    paths: _paths,
    runtime: _runtime,
    base: _base,
    workdir,
    ...common
  } = request;
  return decideExplained({ ...common, command: explanation.command, cwd: workdir }, explanation, deps);
}
