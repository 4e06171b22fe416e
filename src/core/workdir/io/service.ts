// The workdir service the rest of the app holds: roots (W, env, settings), the bindings file, and
// the resolution of every turn and command (workdir.md). One instance per app home.
import fs from "node:fs/promises";
import type { Logger } from "../../log.js";
import type { AppPaths, Env } from "../../paths.js";
import { emptySettings, SettingsFileSchema } from "../../settings.js";
import { InvalidFileError, readJsonFile, updateJsonFile } from "../../store/index.js";
import {
  BindingsStore,
  findTaskBinding,
  upsertRepoBinding,
  upsertTaskBinding,
  type RepoBinding,
  type TaskBinding,
} from "./bindings.js";
import { deviceIdFrom, readDeviceConfigFields } from "../device-config-fields.js";
import { readGitInfo } from "./git-remote.js";
import { changedNotice, fallbackMessage, problemText, shownPath, tildify } from "../messages.js";
import { expandRequestedPath, isAbsolutePath, lexicalForm, splitAllowedRoots } from "../normalise.js";
import { checkRequestedPath, containingRoot, recheckResolvedCwd, type PathContext } from "./path-check.js";
import { rootRule, samePath, type Platform } from "../platform-path.js";
import { buildProtectedFolders, type ProtectedFolders } from "./protected-folders.js";
import { redactGitUrl, repoKeyFromInput, repoKeyFromUrl } from "./repo-key.js";
import {
  checkPath,
  ensureManagedFolder,
  recheckBeforeSpawn,
  requestFields,
  resolveTurn,
  validTaskId,
  type CheckPathResult,
  type RecheckResult,
  type RequestFields,
  type ResolverContext,
} from "./resolver.js";
import {
  checkRoot,
  loadRootSet,
  resolveWorkspaceRoot,
  type RootInfo,
  type RootSet,
  type WorkspaceRoot,
} from "./roots.js";
import { WorkdirFatal, type PathCode, type WorkdirResolution } from "../types.js";

export interface WorkdirServiceOptions {
  paths: AppPaths;
  env: Env;
  platform?: Platform;
  /** Milliseconds since the epoch. */
  now?: () => number;
  logger: Logger;
  /** This device's id; default `DEVICE_ID`, else `device_id` in E/device-config.json, else `local`. */
  deviceId?: string;
}

export type WorkdirChange = "roots" | "bindings" | "repos" | "warnings";

export interface TaskWorkdirRequest {
  taskId: string | number;
  deviceId?: string;
  workdir?: string | null;
  projectWorkspacePath?: string | null;
  policy?: string | null;
  gitUrl?: string | null;
  branch?: string | null;
}

export interface TaskWorkdir {
  resolution: WorkdirResolution;
  /**
   * The cwd moved away from the previous binding's cwd: the executor closes the old agent session
   * (and forgets its resume id) before it starts the new one. The notice is in `resolution.notices`.
   */
  changed: { from: string; to: string } | null;
  binding: TaskBinding;
}

export type RootChangeResult = { ok: true; roots: RootInfo[] } | { ok: false; reason: string };
export type RepoBindingResult = { ok: true; binding: RepoBinding } | { ok: false; reason: string };
export type RepoProposal =
  { ok: true; repo: string; branch: string; dir: string } | { ok: false; reason: string };

interface LiveState {
  protect: ProtectedFolders;
  rootSet: RootSet;
  settingsWarning: string | null;
}

export class WorkdirService {
  private readonly paths: AppPaths;
  private readonly env: Env;
  private readonly platform: Platform;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly store: BindingsStore;
  /** `LOCAL_WORKDIR_ALLOWED_ROOTS`, read once: env roots are fixed for the life of the process. */
  private readonly envRoots: string[];
  private readonly listeners = new Set<(change: WorkdirChange) => void>();
  private readonly bindingWarnings: string[] = [];
  private device: string | null;
  private workspace: WorkspaceRoot | null = null;
  private live: LiveState | null = null;

  constructor(options: WorkdirServiceOptions) {
    this.paths = options.paths;
    this.env = options.env;
    this.platform = options.platform ?? process.platform;
    this.now = options.now ?? Date.now;
    this.logger = options.logger.child("workdir");
    this.device = options.deviceId ?? null;
    this.envRoots = splitAllowedRoots(options.env.LOCAL_WORKDIR_ALLOWED_ROOTS, this.platform);
    this.store = new BindingsStore(this.paths.workdirBindings, {
      now: this.now,
      logger: this.logger,
      onWarning: (warning) => {
        this.bindingWarnings.push(warning);
        this.emit("warnings");
      },
    });
  }

  /** Creates W (0700), loads the roots, drops bindings unused for 90 days and a killed writer's temp files. */
  async init(): Promise<void> {
    const config = await readDeviceConfigFields(this.paths.deviceConfig);
    this.device ??= deviceIdFrom(this.env, config);
    this.workspace = await resolveWorkspaceRoot({
      env: this.env,
      home: this.paths.home,
      platform: this.platform,
      defaultRoot: this.paths.defaultWorkspaceRoot,
      configuredRoot: config.localWorkspaceRoot,
      protectFor: (forms) => this.protectFor(forms),
    });
    if (this.workspace.warning) this.logger.warn(this.workspace.warning);
    await this.reload();
    for (const info of this.live!.rootSet.infos) {
      if (info.source === "env" && info.status === "refused") {
        this.logger.warn(`LOCAL_WORKDIR_ALLOWED_ROOTS item "${info.given}" refused: ${info.reason}`);
      }
    }
    // Housekeeping must not stop the app from starting (a lock left by a killed process, say).
    try {
      await this.store.removeLeftoverTemps();
      const dropped = await this.store.dropStale();
      if (dropped) this.logger.info("dropped task bindings unused for 90 days", { count: dropped });
    } catch (error) {
      this.logger.warn("workdir bindings housekeeping skipped", { error });
    }
  }

  get deviceId(): string {
    return this.device ?? "local";
  }

  /** W's real path. */
  get workspaceRoot(): string {
    return this.requireWorkspace().root.realpath;
  }

  onChange(listener: (change: WorkdirChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Things the Workdirs screen shows as warnings: a refused W, refused env roots, a set-aside bindings file. */
  warnings(): string[] {
    const out: string[] = [];
    if (this.workspace?.warning) out.push(this.workspace.warning);
    for (const info of this.live?.rootSet.infos ?? []) {
      if (info.status === "refused")
        out.push(`${labelOfSource(info.source)} "${info.given}" refused: ${info.reason}`);
    }
    if (this.live?.settingsWarning) out.push(this.live.settingsWarning);
    return [...out, ...this.bindingWarnings];
  }

  /** Re-reads the settings roots and re-checks every root and protected folder. */
  async reload(): Promise<void> {
    const workspace = this.requireWorkspace();
    const protect = await this.protectFor(workspace.forms);
    const settings = await readJsonFile(this.paths.settings, SettingsFileSchema);
    let settingsRoots: string[] = [];
    let settingsWarning: string | null = null;
    if (settings.status === "ok") settingsRoots = settings.value.workdir?.roots ?? [];
    if (settings.status === "invalid") {
      settingsWarning = `${this.paths.settings} is invalid (${settings.error}); its workdir roots are not used.`;
    }
    const rootSet = await loadRootSet({
      home: this.paths.home,
      platform: this.platform,
      protect,
      workspace,
      envRoots: this.envRoots,
      settingsRoots,
    });
    const before = JSON.stringify(this.live?.rootSet.infos ?? null);
    this.live = { protect, rootSet, settingsWarning };
    if (before !== "null" && before !== JSON.stringify(rootSet.infos)) this.emit("roots");
  }

  async roots(): Promise<RootInfo[]> {
    await this.reload();
    return this.live!.rootSet.infos;
  }

  /** Adds a settings root after checks 1–5 of workdir.md §2; a refused root is not saved. */
  async addRoot(given: string): Promise<RootChangeResult> {
    await this.reload();
    const live = this.live!;
    const text = given.trim();
    const check = await checkRoot(text, {
      home: this.paths.home,
      platform: this.platform,
      protect: live.protect,
      activeRoots: live.rootSet.active,
    });
    if (!check.ok) return { ok: false, reason: check.reason };
    try {
      await updateJsonFile(this.paths.settings, SettingsFileSchema, emptySettings, (current) => {
        const roots = current.workdir?.roots ?? [];
        if (roots.includes(text)) return undefined;
        return {
          value: { ...current, workdir: { ...current.workdir, roots: [...roots, text] } },
          result: true,
        };
      });
    } catch (error) {
      if (error instanceof InvalidFileError) return { ok: false, reason: error.message };
      throw error;
    }
    await this.reload(); // emits "roots"
    return { ok: true, roots: this.live!.rootSet.infos };
  }

  /** Removes a settings root, named as given or by its path. W and env roots cannot be removed here. */
  async removeRoot(given: string): Promise<RootChangeResult> {
    await this.reload();
    const infos = this.live!.rootSet.infos;
    const matches = await this.rootMatcher(given);
    const hit = infos.filter(matches);
    const settingsHit = hit.filter((info) => info.source === "settings");
    if (settingsHit.length === 0) {
      if (hit.some((info) => info.source === "workspace"))
        return { ok: false, reason: "the workspace root cannot be removed" };
      if (hit.some((info) => info.source === "env")) {
        return {
          ok: false,
          reason: "it comes from LOCAL_WORKDIR_ALLOWED_ROOTS; change that environment variable",
        };
      }
      return { ok: false, reason: `not an allowed root: ${given.trim()}` };
    }
    const remove = new Set(settingsHit.map((info) => info.given));
    try {
      await updateJsonFile(this.paths.settings, SettingsFileSchema, emptySettings, (current) => {
        const roots = current.workdir?.roots ?? [];
        const kept = roots.filter((root) => !remove.has(root));
        if (kept.length === roots.length) return undefined;
        return { value: { ...current, workdir: { ...current.workdir, roots: kept } }, result: true };
      });
    } catch (error) {
      if (error instanceof InvalidFileError) return { ok: false, reason: error.message };
      throw error;
    }
    await this.reload(); // emits "roots"
    return { ok: true, roots: this.live!.rootSet.infos };
  }

  /**
   * One turn of a task (workdir.md §9 "Reuse on each turn"): resolves, writes the binding before
   * the spawn, and reports a cwd change against the previous binding.
   */
  async resolveForTask(request: TaskWorkdirRequest): Promise<TaskWorkdir> {
    const taskId = validTaskId(request.taskId);
    if (!taskId) throw new WorkdirFatal("invalid-task-id");
    const deviceId = request.deviceId ?? this.deviceId;
    const ctx = await this.context();
    const fields = requestFields(request, this.logger);
    const file = await this.store.read();
    const previous = findTaskBinding(file, taskId, deviceId);
    const effective = effectiveRequest(fields, previous);
    const same =
      previous !== undefined &&
      previous.requested === effective.requested &&
      previous.policy === effective.policy &&
      previous.git_url === (effective.gitUrl ? redactGitUrl(effective.gitUrl) : null) &&
      previous.branch === effective.branch;
    const outcome = await resolveTurn(taskId, effective, { ...ctx, repoBindings: file.repos });
    const resolution = outcome.resolution;
    let changed: TaskWorkdir["changed"] = null;
    if (previous && !this.sameCwd(previous.cwd, resolution.cwd, ctx)) {
      changed = { from: previous.cwd, to: resolution.cwd };
      resolution.notices.push(
        changedNotice(
          tildify(previous.cwd, this.paths.home, this.platform),
          tildify(resolution.cwd, this.paths.home, this.platform),
        ),
      );
    }
    const now = this.now();
    const binding: TaskBinding = {
      task_id: taskId,
      device_id: deviceId,
      policy: effective.policy ?? "managed",
      requested: effective.requested,
      git_url: effective.gitUrl ? redactGitUrl(effective.gitUrl) : null,
      branch: effective.branch,
      cwd: resolution.cwd,
      policy_applied: resolution.policyApplied,
      fallback: resolution.fallback,
      created_at: same && previous ? previous.created_at : now,
      used_at: now,
    };
    const learned = outcome.learned ? { ...outcome.learned, created_at: now } : null;
    await this.store.update((current) => {
      const repos =
        learned && !current.repos.some((r) => r.repo === learned.repo && r.branch === learned.branch)
          ? upsertRepoBinding(current.repos, learned)
          : current.repos;
      return {
        value: { ...current, tasks: upsertTaskBinding(current.tasks, binding), repos },
        result: undefined,
      };
    });
    this.emit("bindings");
    if (learned) this.emit("repos");
    return { resolution, changed, binding };
  }

  /**
   * The cwd of a command (device:execute_command, socket exec.run). A given cwd is a requested
   * workdir under `existing` (never created); an empty one means the bound workdir of a `task:<id>`
   * session, else W. A refused cwd falls back to W with the fallback message; a missing folder gets
   * `missing-directory` (the caller refuses: "Working directory does not exist: <cwd>").
   */
  async resolveForSession(
    sessionKey: string,
    requestedCwd?: string | null,
    options: { deviceId?: string } = {},
  ): Promise<WorkdirResolution> {
    const ctx = await this.context();
    const { home } = this.paths;
    const requested = requestedCwd?.trim() || null;
    const w = ctx.workspace.realpath;
    const base: WorkdirResolution = {
      cwd: w,
      policyRequested: requested ? "existing" : "managed",
      policyApplied: "managed",
      requested,
      root: w,
      created: false,
      fallback: null,
      notices: [],
      taskId: null,
    };
    const fallbackToW = async (code: Parameters<typeof fallbackMessage>[0], shown: string) => {
      const managed = await ensureManagedFolder(null, ctx);
      if (!managed.ok) throw new WorkdirFatal("managed-unavailable", managed.detail);
      const message = fallbackMessage(code, { shown, managed: tildify(w, home, this.platform) });
      this.logger.info("command workdir fallback", { session: sessionKey, code });
      return { ...base, cwd: managed.cwd, fallback: { code, message } };
    };
    if (requested) {
      const check = await checkRequestedPath(requested, ctx, { create: false });
      const shown = shownPath(requested, home, this.platform);
      if (!check.ok) return fallbackToW(check.code, shown);
      if (check.wouldCreate) return fallbackToW("missing-directory", shown);
      return { ...base, cwd: check.cwd, policyApplied: "existing", root: check.root.realpath };
    }
    const taskId = sessionKey.startsWith("task:") ? validTaskId(sessionKey.slice(5)) : null;
    if (taskId) {
      const binding = findTaskBinding(await this.store.read(), taskId, options.deviceId ?? this.deviceId);
      if (binding) {
        const again = await recheckResolvedCwd(binding.cwd, ctx);
        if (!again.ok) return fallbackToW("changed-before-start", tildify(binding.cwd, home, this.platform));
        return {
          ...base,
          cwd: binding.cwd,
          policyApplied: binding.policy_applied,
          root: again.root.realpath,
        };
      }
    }
    const managed = await ensureManagedFolder(null, ctx);
    if (!managed.ok) throw new WorkdirFatal("managed-unavailable", managed.detail);
    return { ...base, cwd: managed.cwd };
  }

  /**
   * workdir.md §8, just before a spawn. On `changed-before-start` spawn in `fallback.cwd` (the task
   * binding is updated to it); on `managed-unavailable` spawn nothing.
   */
  async recheckBeforeSpawn(
    resolution: WorkdirResolution,
    options: { deviceId?: string } = {},
  ): Promise<RecheckResult> {
    const ctx = await this.context();
    const result = await recheckBeforeSpawn(resolution, { ...ctx, repoBindings: [] });
    if (!result.ok && result.code === "changed-before-start" && resolution.taskId) {
      const deviceId = options.deviceId ?? this.deviceId;
      const fallback = result.fallback;
      const updated = await this.store.update((current) => {
        const binding = findTaskBinding(current, resolution.taskId!, deviceId);
        if (!binding || binding.cwd !== resolution.cwd) return undefined;
        const next: TaskBinding = {
          ...binding,
          cwd: fallback.cwd,
          policy_applied: fallback.policyApplied,
          fallback: fallback.fallback,
          used_at: this.now(),
        };
        return { value: { ...current, tasks: upsertTaskBinding(current.tasks, next) }, result: true };
      });
      if (updated) this.emit("bindings");
    }
    return result;
  }

  /**
   * The re-check as a spawn wants it (executor `recheckCwd`): the folder to spawn in — the managed
   * folder after `changed-before-start`, with its message as `notice` — or why nothing may run.
   */
  async recheckForSpawn(
    resolution: WorkdirResolution,
  ): Promise<{ ok: true; cwd: string; notice: string | null } | { ok: false; message: string }> {
    const again = await this.recheckBeforeSpawn(resolution);
    if (again.ok) return { ok: true, cwd: again.cwd, notice: null };
    if (again.code === "changed-before-start")
      return { ok: true, cwd: again.fallback.cwd, notice: again.message };
    return { ok: false, message: again.message };
  }

  /**
   * Whether two cwds are the same folder under the containing root's case rule: the executor
   * compares a live agent session's cwd with a new turn's (a removed binding reports no `changed`).
   */
  isSameCwd(a: string, b: string): boolean {
    const live = this.live;
    if (!live) throw new Error("WorkdirService.init() has not run");
    return this.sameCwd(a, b, {
      platform: this.platform,
      home: this.paths.home,
      workspace: live.rootSet.workspace,
      roots: live.rootSet.active,
      protect: live.protect,
    });
  }

  /** The check box and `gatehouse workdir check`: section 4 without creating anything. */
  async checkPath(path: string, options: { taskId?: string | null } = {}): Promise<CheckPathResult> {
    return checkPath(path, await this.context(), options);
  }

  /**
   * A folder the backend names for something other than a task turn (a terminal, the workspace file
   * browser), checked like a requested workdir (section 4): blank means W itself; with `create`, a
   * missing folder inside W is created. Refused is refused: there is no fallback to another folder.
   */
  async checkFolder(
    requested: string,
    options: { create: boolean },
  ): Promise<{ ok: true; cwd: string; root: string } | { ok: false; code: PathCode; message: string }> {
    const ctx = await this.context();
    const text = requested.trim();
    if (text === "") {
      const w = ctx.workspace.realpath;
      if (options.create) await fs.mkdir(w, { recursive: true, mode: 0o700 });
      return { ok: true, cwd: w, root: w };
    }
    const check = await checkRequestedPath(text, ctx, { create: options.create });
    const shown = shownPath(text, this.paths.home, this.platform);
    if (!check.ok) {
      const hint =
        check.code === "outside-allowed-roots" ? " Add it under Workdirs in Gatehouse to allow it." : "";
      return {
        ok: false,
        code: check.code,
        message: `Folder "${shown}" can't be used: ${problemText(check.code)}.${hint}`,
      };
    }
    if (check.wouldCreate)
      return {
        ok: false,
        code: "missing-directory",
        message: `Folder "${shown}" can't be used: ${problemText("missing-directory")}.`,
      };
    return { ok: true, cwd: check.cwd, root: check.root.realpath };
  }

  async bindings(): Promise<TaskBinding[]> {
    return [...(await this.store.read()).tasks].sort((a, b) => b.used_at - a.used_at);
  }

  /** The next turn of the task goes back to its request, or to the managed folder. */
  async removeBinding(taskId: string, deviceId: string = this.deviceId): Promise<boolean> {
    const removed = await this.store.update((current) => {
      const tasks = current.tasks.filter((t) => !(t.task_id === taskId && t.device_id === deviceId));
      return tasks.length === current.tasks.length
        ? undefined
        : { value: { ...current, tasks }, result: true };
    });
    if (removed) this.emit("bindings");
    return removed === true;
  }

  async repoBindings(): Promise<RepoBinding[]> {
    return (await this.store.read()).repos;
  }

  /** Reads a folder's remotes (origin first) and HEAD and proposes a key and branch for it. */
  async proposeRepoBinding(dir: string): Promise<RepoProposal> {
    const ctx = await this.context();
    const check = await checkRequestedPath(dir, ctx, { create: false });
    if (!check.ok) return { ok: false, reason: problemText(check.code) };
    if (check.wouldCreate) return { ok: false, reason: problemText("missing-directory") };
    const git = await readGitInfo(check.cwd);
    if (!git.hasGit) return { ok: false, reason: "it is not a git repository; give the repository URL" };
    const ordered = [...git.remotes].sort(
      (a, b) => Number(b.name === "origin") - Number(a.name === "origin"),
    );
    for (const remote of ordered) {
      const key = repoKeyFromUrl(remote.url, {
        platform: this.platform,
        home: this.paths.home,
        baseDir: check.cwd,
      });
      if (key.ok) return { ok: true, repo: key.key, branch: git.branch ?? "*", dir: check.cwd };
    }
    return { ok: false, reason: "it has no git remote Gatehouse understands; give the repository URL" };
  }

  /** Links (repository, branch) to a folder (Workdirs → Repositories). Replaces the same pair. */
  async addRepoBinding(input: {
    repo?: string | null;
    branch?: string | null;
    dir: string;
  }): Promise<RepoBindingResult> {
    const ctx = await this.context();
    const check = await checkRequestedPath(input.dir, ctx, { create: false });
    if (!check.ok) return { ok: false, reason: problemText(check.code) };
    if (check.wouldCreate) return { ok: false, reason: problemText("missing-directory") };
    let repo: string;
    let branch = input.branch?.trim() || null;
    const git = await readGitInfo(check.cwd);
    if (input.repo?.trim()) {
      const key = repoKeyFromInput(input.repo, { platform: this.platform, home: this.paths.home });
      if (!key.ok)
        return { ok: false, reason: `Git URL "${redactGitUrl(input.repo.trim())}" is not understood` };
      repo = key.key;
      if (git.hasGit) {
        const keys = git.remotes.map((r) =>
          repoKeyFromUrl(r.url, { platform: this.platform, home: this.paths.home, baseDir: check.cwd }),
        );
        if (!keys.some((k) => k.ok && k.key === repo))
          return { ok: false, reason: `its git remotes do not include ${repo}` };
      }
    } else {
      const proposal = await this.proposeRepoBinding(input.dir);
      if (!proposal.ok) return proposal;
      repo = proposal.repo;
      branch ??= proposal.branch;
    }
    if (!branch && git.hasGit) branch = git.branch;
    const binding: RepoBinding = {
      repo,
      branch: branch ?? "*",
      dir: check.cwd,
      origin: "settings",
      created_at: this.now(),
    };
    await this.store.update((current) => ({
      value: { ...current, repos: upsertRepoBinding(current.repos, binding) },
      result: undefined,
    }));
    this.emit("repos");
    return { ok: true, binding };
  }

  async removeRepoBinding(repo: string, branch: string): Promise<boolean> {
    const key = repoKeyFromInput(repo, { platform: this.platform, home: this.paths.home });
    const wanted = new Set([repo.trim(), ...(key.ok ? [key.key] : [])]);
    const removed = await this.store.update((current) => {
      const repos = current.repos.filter((r) => !(wanted.has(r.repo) && r.branch === branch.trim()));
      return repos.length === current.repos.length
        ? undefined
        : { value: { ...current, repos }, result: true };
    });
    if (removed) this.emit("repos");
    return removed === true;
  }

  // ---- internals ----

  private requireWorkspace(): WorkspaceRoot {
    if (!this.workspace) throw new Error("WorkdirService.init() has not run");
    return this.workspace;
  }

  private protectFor(workspace: readonly string[]): Promise<ProtectedFolders> {
    return buildProtectedFolders({
      home: this.paths.home,
      executorHome: this.paths.executorHome,
      claudeHome: this.paths.claudeHome,
      codexHome: this.paths.codexHome,
      env: this.env,
      platform: this.platform,
      workspace,
    });
  }

  /** Every turn and command runs against the current roots and protected folders. */
  private async context(): Promise<Omit<ResolverContext, "repoBindings"> & PathContext> {
    await this.reload();
    const live = this.live!;
    return {
      platform: this.platform,
      home: this.paths.home,
      workspace: live.rootSet.workspace,
      roots: live.rootSet.active,
      protect: live.protect,
      logger: this.logger,
    };
  }

  private sameCwd(a: string, b: string, ctx: PathContext): boolean {
    const root = containingRoot(b, ctx) ?? containingRoot(a, ctx);
    return samePath(a, b, this.platform, rootRule(root?.caseInsensitive ?? false, this.platform));
  }

  private async rootMatcher(given: string): Promise<(info: RootInfo) => boolean> {
    const text = given.trim();
    const expanded = expandRequestedPath(text, this.paths.home, this.platform);
    const lexical = isAbsolutePath(expanded, this.platform) ? lexicalForm(expanded, this.platform) : null;
    const real = lexical ? await fs.realpath(lexical).catch(() => null) : null;
    const rule = rootRule(false, this.platform);
    return (info) => {
      if (info.given.trim() === text) return true;
      const infoExpanded = expandRequestedPath(info.given.trim(), this.paths.home, this.platform);
      if (lexical && isAbsolutePath(infoExpanded, this.platform)) {
        if (samePath(lexicalForm(infoExpanded, this.platform), lexical, this.platform, rule)) return true;
      }
      return Boolean(real && info.realpath && samePath(info.realpath, real, this.platform, rule));
    };
  }

  private emit(change: WorkdirChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn("workdir change listener failed", { error });
      }
    }
  }
}

function labelOfSource(source: RootInfo["source"]): string {
  return source === "env"
    ? "LOCAL_WORKDIR_ALLOWED_ROOTS item"
    : source === "settings"
      ? "Settings root"
      : "Workspace root";
}

/**
 * workdir.md §9: a turn that names any of workdir, policy or git fields is its own request (a
 * missing policy defaults from the workdir, then the stored binding); a turn that names none
 * reuses the stored binding's request; with no binding it is `managed`.
 */
export function effectiveRequest(fields: RequestFields, previous: TaskBinding | undefined): RequestFields {
  const present = fields.requested || fields.policy || fields.gitUrl || fields.branch;
  if (present) {
    return {
      ...fields,
      policy: fields.policy ?? (fields.requested ? "existing" : (previous?.policy ?? "managed")),
    };
  }
  if (previous) {
    return {
      requested: previous.requested,
      policy: previous.policy,
      gitUrl: previous.git_url,
      branch: previous.branch,
    };
  }
  return { requested: null, policy: "managed", gitUrl: null, branch: null };
}
