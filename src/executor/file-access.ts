// The gate for an agent's own file tools (Claude Code's Write/Edit/Read…, Codex's apply_patch and
// view_image): each path is resolved on disk the way workdir.md §4 resolves a folder (text form,
// then links followed, a missing tail appended; `..` after a missing folder is not guessed), placed
// against the task's folder and the protected folders, explained by core/policy/file-edit.ts, and
// then decided exactly like a command: a person, askFallback, the audit log.
import fs from "node:fs/promises";
import type { AppPaths, Env } from "../core/paths.js";
import { explainFileAccess, type FileAccessKind, type FileTarget } from "../core/policy/file-edit.js";
import {
  absoluteFrom,
  expandRequestedPath,
  lexicalForm,
  pathSyntaxProblem,
} from "../core/workdir/normalise.js";
import { resolveRealForm } from "../core/workdir/io/path-check.js";
import {
  isWithinComponents,
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
import { decideExplained, type GateDecision, type GateDeps, type GateRequest } from "./gate.js";

/** Folder names inside the task's folder whose files make later commands run code (git hooks and
 * config, agent settings and hooks): writing there is judged like writing outside. */
export const SENSITIVE_NAMES = [".git", ".claude", ".codex"];

export interface FileGateRequest extends Omit<GateRequest, "command" | "cwd" | "env"> {
  /** The agent's tool: `Write`, `Edit`, `apply_patch`, `Read`, … */
  tool: string;
  access: FileAccessKind;
  /** As the agent gave them; relative ones are taken from `workdir`. */
  paths: string[];
  /** The task's working folder (absolute). */
  workdir: string;
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

function compareRule(platform: Platform): CompareRule {
  // Real paths carry the on-disk case of what exists, so only Windows compares without case.
  return { caseInsensitive: platform === "win32", nfc: platform === "darwin" };
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

/** The task's folder as the paths are judged against it; null (nothing is inside) when it is protected or gone. */
async function usableWorkdir(workdir: string, folders: ProtectedFolders): Promise<string | null> {
  const real = await realFolder(workdir);
  if (real === null) return null;
  // A folder such as the home folder or `/` would make "inside" mean everything.
  if (protectionOf(real, folders) !== null || protectionOf(workdir, folders) !== null) return null;
  return real;
}

async function resolveTarget(
  given: string,
  access: FileAccessKind,
  workdir: string | null,
  base: string,
  folders: ProtectedFolders,
  places: FileGatePlaces,
): Promise<FileTarget> {
  const platform = places.platform ?? process.platform;
  const syntax = pathSyntaxProblem(given, platform);
  if (syntax) return { given, resolved: null, where: "unresolved", detail: syntax };
  const absolute = absoluteFrom(expandRequestedPath(given, places.home, platform), base, platform);
  const lexical = lexicalForm(absolute, platform);
  const real = await resolveRealForm(platform === "win32" ? lexical : absolute, platform);
  // Either form in a protected folder counts (a link into ~/.ssh, or `..` out of the folder).
  const label = protectionOf(lexical, folders) ?? protectionOf(real.resolved, folders);
  if (label === "Gatehouse's own data")
    return { given, resolved: real.resolved, where: "gatehouse-data", detail: label };
  if (real.problem) return { given, resolved: null, where: "unresolved", detail: real.problem.reason };
  // A link whose target does not exist yet is "missing" to realpath, yet writing through it creates
  // that target wherever it points.
  if (real.missing.length > 0 && (await isLink(pathApi(platform).join(real.existing, real.missing[0]!))))
    return { given, resolved: null, where: "unresolved", detail: "a link to a place that does not exist" };
  if (label) return { given, resolved: real.resolved, where: "protected", detail: label };
  const rule = compareRule(platform);
  const comps = pathComponents(real.resolved, platform);
  const folder = workdir ? pathComponents(workdir, platform) : null;
  if (!folder || !isWithinComponents(comps, folder, rule))
    return { given, resolved: real.resolved, where: "outside" };
  if (access === "write") {
    const sensitive = comps
      .slice(folder.length)
      .find((name) => SENSITIVE_NAMES.includes(name.normalize("NFC").toLowerCase()));
    if (sensitive) return { given, resolved: real.resolved, where: "sensitive-inside", detail: sensitive };
  }
  return { given, resolved: real.resolved, where: "inside" };
}

/** Every path of a request resolved and placed (inside, outside, protected, …). */
export async function resolveFileTargets(
  request: Pick<FileGateRequest, "paths" | "access" | "workdir">,
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
  const workdir = await usableWorkdir(request.workdir, folders);
  const base = workdir ?? lexicalForm(request.workdir, platform);
  return Promise.all(
    request.paths.map((p) => resolveTarget(p, request.access, workdir, base, folders, places)),
  );
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
  const { tool: _tool, access: _access, paths: _paths, workdir, ...common } = request;
  return decideExplained({ ...common, command: explanation.command, cwd: workdir }, explanation, deps);
}
