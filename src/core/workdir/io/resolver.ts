// workdir.md §5–§8: from a turn's request to the cwd a spawn gets. Policies, fallbacks to the
// managed folder, the result object, the check box and the re-check just before a spawn.
import fs from "node:fs/promises";
import type { Logger } from "../../log.js";
import { findRepoBinding, type RepoBinding } from "./bindings.js";
import { explainWriteError, StoreWriteError } from "../../store/index.js";
import { readGitInfo } from "./git-remote.js";
import {
  branchNotice,
  fallbackMessage,
  problemText,
  shownPath,
  tildify,
  type MessageParts,
} from "../messages.js";
import { checkRequestedPath, recheckResolvedCwd, type ActiveRoot, type PathContext } from "./path-check.js";
import { joinComponents, pathComponents, rootRule, samePath } from "../platform-path.js";
import { redactGitUrl, repoKeyFromUrl } from "./repo-key.js";
import {
  isPolicy,
  WorkdirFatal,
  type FallbackCode,
  type PathCode,
  type Policy,
  type WorkdirResolution,
} from "../types.js";
import { stripVerbatimPrefix, upperCaseDrive } from "../normalise.js";

export interface ResolverContext extends PathContext {
  logger: Logger;
  repoBindings: readonly RepoBinding[];
}

/** A turn's workdir fields as they arrive (task:execute, the CLI). */
export interface WorkdirRequest {
  taskId: unknown;
  workdir?: string | null;
  projectWorkspacePath?: string | null;
  policy?: string | null;
  gitUrl?: string | null;
  branch?: string | null;
}

/** The request after trimming: blank means absent. `policy` is null when the turn named none. */
export interface RequestFields {
  requested: string | null;
  policy: string | null;
  gitUrl: string | null;
  branch: string | null;
}

export interface ResolveOutcome {
  resolution: WorkdirResolution;
  /** A repo binding learned from a successful `repo_bound` request that named a workdir. */
  learned: RepoBinding | null;
}

const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** §1: the task id as a string, or null when it is not acceptable. */
export function validTaskId(value: unknown): string | null {
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== "string" || !TASK_ID.test(text)) return null;
  if (/^-?0+$/.test(text) || /^-\d+$/.test(text)) return null;
  return text;
}

function blankToNull(value: string | null | undefined): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** §1: `workdir` wins over `project_workspace_path` (the other is logged and ignored). */
export function requestFields(request: Omit<WorkdirRequest, "taskId">, logger?: Logger): RequestFields {
  const workdir = blankToNull(request.workdir);
  const project = blankToNull(request.projectWorkspacePath);
  if (workdir && project && workdir !== project) {
    logger?.info("workdir and project_workspace_path differ; using workdir", { ignored: project });
  }
  return {
    requested: workdir ?? project,
    policy: blankToNull(request.policy),
    gitUrl: blankToNull(request.gitUrl),
    branch: blankToNull(request.branch),
  };
}

/** §1 default: a request that names a workdir is `existing`; otherwise `managed`. */
export function defaultPolicy(fields: RequestFields): string {
  return fields.policy ?? (fields.requested ? "existing" : "managed");
}

export function managedPath(taskId: string | null, ctx: Pick<PathContext, "workspace" | "platform">): string {
  const w = ctx.workspace.realpath;
  return taskId ? joinComponents([...pathComponents(w, ctx.platform), taskId], ctx.platform) : w;
}

/**
 * §5 managed: `W/<task_id>` (or W itself for sessions without a task), created 0700 when missing.
 * It must be a real folder, not a link, whose real path is `realpath(W)/<task_id>`.
 */
export async function ensureManagedFolder(
  taskId: string | null,
  ctx: Pick<PathContext, "workspace" | "platform">,
): Promise<{ ok: true; cwd: string; created: boolean } | { ok: false; detail: string }> {
  const w = ctx.workspace;
  const rule = rootRule(w.caseInsensitive, ctx.platform);
  const target = managedPath(taskId, ctx);
  let created = false;
  try {
    await fs.mkdir(w.realpath, { recursive: true, mode: 0o700 });
    const wReal = normaliseReal(await fs.realpath(w.realpath), ctx.platform);
    if (!samePath(wReal, w.realpath, ctx.platform, rule))
      return { ok: false, detail: "the workspace root moved" };
    let stat = await fs.lstat(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (!stat) {
      try {
        await fs.mkdir(target, { mode: 0o700 });
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      stat = await fs.lstat(target);
    }
    if (stat.isSymbolicLink()) return { ok: false, detail: `${target} is a link` };
    if (!stat.isDirectory()) return { ok: false, detail: `${target} is not a folder` };
    const real = normaliseReal(await fs.realpath(target), ctx.platform);
    if (!samePath(real, target, ctx.platform, rule))
      return { ok: false, detail: `${target} resolves elsewhere` };
    await fs.access(target, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
    return { ok: true, cwd: real, created };
  } catch (error) {
    // a full disk or a read-only E: said so, with what to do (core/store's wording for its own writes)
    const explained = explainWriteError(error, target, "create the folder");
    if (explained instanceof StoreWriteError) return { ok: false, detail: explained.message };
    return {
      ok: false,
      detail: `${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
}

function normaliseReal(p: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? upperCaseDrive(stripVerbatimPrefix(p)) : p;
}

interface Turn {
  taskId: string;
  fields: RequestFields;
  policyRequested: string;
}

class TurnResolver {
  constructor(
    private readonly turn: Turn,
    private readonly ctx: ResolverContext,
  ) {}

  private parts(extra: Partial<MessageParts> = {}): MessageParts {
    const { platform, home } = this.ctx;
    return {
      shown: this.turn.fields.requested ? shownPath(this.turn.fields.requested, home, platform) : "",
      managed: tildify(managedPath(this.turn.taskId, this.ctx), home, platform),
      ...extra,
    };
  }

  async managed(notices: string[] = []): Promise<WorkdirResolution> {
    const managed = await ensureManagedFolder(this.turn.taskId, this.ctx);
    if (!managed.ok) throw new WorkdirFatal("managed-unavailable", managed.detail);
    return {
      cwd: managed.cwd,
      policyRequested: this.turn.policyRequested,
      policyApplied: "managed",
      requested: this.turn.fields.requested,
      root: this.ctx.workspace.realpath,
      created: managed.created,
      fallback: null,
      notices,
      taskId: this.turn.taskId,
    };
  }

  async fallback(
    code: FallbackCode,
    parts: Partial<MessageParts> = {},
    reason = "",
  ): Promise<WorkdirResolution> {
    const message = fallbackMessage(code, this.parts(parts));
    this.ctx.logger.info("workdir fallback", { task: this.turn.taskId, code, reason });
    const resolution = await this.managed();
    return { ...resolution, fallback: { code, message } };
  }

  async resolve(): Promise<ResolveOutcome> {
    const policy = this.turn.policyRequested;
    if (!isPolicy(policy))
      return { resolution: await this.fallback("unknown-policy", { policy }), learned: null };
    if (policy === "managed") {
      if (this.turn.fields.requested) {
        this.ctx.logger.info("requested workdir ignored under the managed policy", {
          task: this.turn.taskId,
        });
      }
      return { resolution: await this.managed(), learned: null };
    }
    if (policy === "existing") return { resolution: await this.existing(), learned: null };
    return this.repoBound();
  }

  private async existing(): Promise<WorkdirResolution> {
    const requested = this.turn.fields.requested;
    if (!requested) return this.managed(); // `existing` with nothing requested behaves as managed, silently
    const check = await checkRequestedPath(requested, this.ctx, { create: true });
    if (!check.ok) return this.fallback(check.code, {}, check.reason);
    return this.success("existing", check.cwd, check.root, check.created, []);
  }

  private success(
    policyApplied: Policy,
    cwd: string,
    root: ActiveRoot,
    created: boolean,
    notices: string[],
  ): WorkdirResolution {
    return {
      cwd,
      policyRequested: this.turn.policyRequested,
      policyApplied,
      requested: this.turn.fields.requested,
      root: root.realpath,
      created,
      fallback: null,
      notices,
      taskId: this.turn.taskId,
    };
  }

  private async repoBound(): Promise<ResolveOutcome> {
    const { gitUrl, branch, requested } = this.turn.fields;
    const { platform, home } = this.ctx;
    const keyResult = gitUrl ? repoKeyFromUrl(gitUrl, { platform, home }) : ({ ok: false } as const);
    if (!keyResult.ok) {
      return {
        resolution: await this.fallback("invalid-repo", { url: redactGitUrl(gitUrl ?? "") }),
        learned: null,
      };
    }
    const key = keyResult.key;
    let dir: string;
    let shown: string;
    if (requested) {
      dir = requested;
      shown = shownPath(requested, home, platform);
    } else {
      const binding = findRepoBinding(this.ctx.repoBindings, key, branch);
      if (!binding) {
        return {
          resolution: await this.fallback("repo-binding-missing", { repoKey: key, branch: branch ?? "*" }),
          learned: null,
        };
      }
      dir = binding.dir;
      shown = shownPath(binding.dir, home, platform);
    }
    const check = await checkRequestedPath(dir, this.ctx, { create: true });
    if (!check.ok)
      return { resolution: await this.fallback(check.code, { shown }, check.reason), learned: null };
    const git = await readGitInfo(check.cwd);
    if (git.hasGit) {
      const keys = git.remotes.map((r) => repoKeyFromUrl(r.url, { platform, home, baseDir: check.cwd }));
      if (!keys.some((k) => k.ok && k.key === key)) {
        return {
          resolution: await this.fallback("repo-remote-mismatch", { shown, repoKey: key }, git.error ?? ""),
          learned: null,
        };
      }
    }
    const notices: string[] = [];
    if (git.hasGit && branch && branch !== "*" && git.branch && git.branch !== branch) {
      notices.push(branchNotice(key, git.branch, branch));
    }
    const learnedBranch = branch ?? "*";
    const learned: RepoBinding | null =
      requested && !this.ctx.repoBindings.some((r) => r.repo === key && r.branch === learnedBranch)
        ? { repo: key, branch: learnedBranch, dir: check.cwd, origin: "learned", created_at: 0 }
        : null;
    return { resolution: this.success("repo_bound", check.cwd, check.root, check.created, notices), learned };
  }
}

/**
 * Resolves one turn whose fields are complete (the service fills a missing policy from the stored
 * binding first). Throws `WorkdirFatal` for a bad task id or an unusable managed folder.
 */
export async function resolveTurn(
  taskIdValue: unknown,
  fields: RequestFields,
  ctx: ResolverContext,
): Promise<ResolveOutcome> {
  const taskId = validTaskId(taskIdValue);
  if (!taskId)
    throw new WorkdirFatal("invalid-task-id", `task id ${JSON.stringify(String(taskIdValue)).slice(0, 80)}`);
  return new TurnResolver({ taskId, fields, policyRequested: defaultPolicy(fields) }, ctx).resolve();
}

/** workdir.md §6 `resolveWorkdir(request)`: the resolution, or throws `WorkdirFatal`. */
export async function resolveWorkdir(
  request: WorkdirRequest,
  ctx: ResolverContext,
): Promise<WorkdirResolution> {
  return (await resolveTurn(request.taskId, requestFields(request, ctx.logger), ctx)).resolution;
}

export interface CheckPathResult {
  ok: boolean;
  code: PathCode | null;
  message: string;
  lexical: string | null;
  resolved: string | null;
  root: string | null;
  would_create: boolean;
}

/**
 * §6 `checkPath(path)`: section 4 without creating anything. The message names the managed folder
 * of `taskId` when one is given (as a task would stream it), else only the problem.
 */
export async function checkPath(
  raw: string,
  ctx: PathContext,
  options: { taskId?: string | null } = {},
): Promise<CheckPathResult> {
  const { platform, home } = ctx;
  const text = raw.trim();
  const shown = shownPath(text, home, platform);
  if (text === "") {
    return {
      ok: false,
      code: "invalid-path",
      message: "Type a folder to check.",
      lexical: null,
      resolved: null,
      root: null,
      would_create: false,
    };
  }
  const check = await checkRequestedPath(text, ctx, { create: false });
  if (check.ok) {
    const message = check.wouldCreate
      ? `Working folder "${shown}" would be created as ${check.resolved}.`
      : `Working folder "${shown}" can be used: ${check.resolved}.`;
    return {
      ok: true,
      code: null,
      message,
      lexical: check.lexical,
      resolved: check.resolved,
      root: check.root.realpath,
      would_create: check.wouldCreate,
    };
  }
  const taskId = options.taskId ? validTaskId(options.taskId) : null;
  const message = taskId
    ? fallbackMessage(check.code, { shown, managed: tildify(managedPath(taskId, ctx), home, platform) })
    : `Working folder "${shown}" can't be used: ${problemText(check.code)}.` +
      (check.code === "outside-allowed-roots" ? " Add it under Workdirs in Gatehouse to allow it." : "");
  return {
    ok: false,
    code: check.code,
    message,
    lexical: check.lexical,
    resolved: check.resolved,
    root: check.root?.realpath ?? null,
    would_create: false,
  };
}

export type RecheckResult =
  | { ok: true; cwd: string }
  | { ok: false; code: "changed-before-start"; message: string; fallback: WorkdirResolution }
  | { ok: false; code: "managed-unavailable"; message: string };

/**
 * §8: steps 5–8 again on the resolution's cwd just before a spawn. A cwd that no longer passes
 * falls back to the managed folder (`changed-before-start`, with the resolution to spawn in); a
 * managed folder that no longer passes is fatal.
 */
export async function recheckBeforeSpawn(
  resolution: WorkdirResolution,
  ctx: ResolverContext,
): Promise<RecheckResult> {
  const { platform, home } = ctx;
  const fatal = {
    ok: false,
    code: "managed-unavailable",
    message: new WorkdirFatal("managed-unavailable").message,
  } as const;
  const managedCwd = managedPath(resolution.taskId, ctx);
  const rule = rootRule(ctx.workspace.caseInsensitive, platform);
  if (samePath(resolution.cwd, managedCwd, platform, rule)) {
    const managed = await ensureManagedFolder(resolution.taskId, ctx);
    if (!managed.ok) {
      ctx.logger.warn("managed folder failed its re-check", { detail: managed.detail });
      return fatal;
    }
    return { ok: true, cwd: managed.cwd };
  }
  const again = await recheckResolvedCwd(resolution.cwd, ctx);
  if (again.ok) return { ok: true, cwd: resolution.cwd };
  ctx.logger.info("workdir changed before start", { task: resolution.taskId, code: again.code });
  const managed = await ensureManagedFolder(resolution.taskId, ctx);
  if (!managed.ok) return fatal;
  const shown = shownPath(resolution.requested ?? resolution.cwd, home, platform);
  const message = fallbackMessage("changed-before-start", {
    shown,
    managed: tildify(managedCwd, home, platform),
  });
  return {
    ok: false,
    code: "changed-before-start",
    message,
    fallback: {
      cwd: managed.cwd,
      policyRequested: resolution.policyRequested,
      policyApplied: "managed",
      requested: resolution.requested,
      root: ctx.workspace.realpath,
      created: managed.created,
      fallback: { code: "changed-before-start", message },
      notices: [],
      taskId: resolution.taskId,
    },
  };
}
