// The skill catalogue engine (skills.md §12): builds cached by (workspace, version), per-agent-session
// snapshots and active skills, the Skill tool, the environment overlay, and the watcher that moves the
// version. One instance per app home; every dependency comes in through the constructor.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../../log.js";
import type { AppPaths, Env } from "../../paths.js";
import { formatJson, InvalidFileError, readJsonFile, writeFileAtomic } from "../../store/index.js";
import {
  buildCatalogue as runBuild,
  resolveRoots,
  type BuildInputs,
  type BuildResult,
  type EnvMaterial,
} from "./build.js";
import { AsyncLock, applyEnvDuring, computeEnvOverlay } from "../env-overlay.js";
import { unsatisfiedPermissions } from "../permissions.js";
import { pluginRegistryFiles } from "./plugin-registry.js";
import {
  renderActive,
  renderIndex,
  renderIndexText,
  renderInstructions,
  tokenEstimate,
  type IndexItem,
} from "../prompt.js";
import { runtimeIndexEntries, type SkillRuntime } from "../runtime-subset.js";
import { nativePathOf, skillToolPhrase } from "../skill-tool.js";
import { plainSecretCandidates, replaceWithReference, type PlainSecret } from "../plain-secrets.js";
import { parseSkillsSettings, type SkillsSettings } from "../settings-schema.js";
import { readSkillFolder } from "../skill-reader.js";
import type { Catalogue, SkillCallResult, SkillEntry, SkillSecrets, SkillSnapshot } from "../types.js";
import { SkillWatcher, type WatchChange, type WatchPlan } from "./watcher.js";

export interface SkillCatalogueOptions {
  paths: AppPaths;
  /** The environment agent runs get: PATH for binaries, variables for `requires.env`. */
  env: Env;
  /** `darwin`, `linux` or `win32`; default the running platform. */
  platform?: string;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** The whole `E/settings.json` object; default reads `paths.settings` (missing file = `{}`). */
  loadSettings?: () => Promise<unknown>;
  secrets: SkillSecrets;
  logger: Logger;
  /** The skills shipped with the app (rank 9, lowest); default none. */
  bundledRoot?: string | null;
  /** What `withSkillEnv` changes; default `process.env` (the one place that is meant to change it). */
  processEnv?: Record<string, string | undefined>;
}

export interface BuildOptions {
  /** The folder ranks 1–3 are read from; none = ranks 1–3 left out. */
  workspace?: string | null;
  /**
   * A non-project task's own Claude folder (device-protocol.md §8.2): rank 5 becomes its `skills`, and
   * the global Codex skills and plugins are left out (skills.md §10).
   */
  taskClaudeHome?: string | null;
}

/** The file `gatehouse skills rescan` writes so that a running engine rescans. */
export function rescanRequestFile(paths: AppPaths): string {
  return path.join(paths.executorHome, "skills-rescan.json");
}

/** The running engine's answer to a rescan request (what `skills rescan` waits for). */
export function rescanAnswerFile(paths: AppPaths): string {
  return path.join(paths.executorHome, "skills-rescan-done.json");
}

const RescanRequestSchema = z.looseObject({ requested_at: z.number() });
export const RescanAnswerSchema = z.object({
  requested_at: z.number(),
  changed: z.boolean(),
  version: z.number(),
});
export type RescanAnswer = z.infer<typeof RescanAnswerSchema>;

interface ActiveSkill {
  name: string;
  path: string;
  block: string;
}

interface SessionState {
  snapshot: SkillSnapshot | null;
  options: BuildOptions;
  active: ActiveSkill[];
  lock: AsyncLock;
  /** The runtime of the session's current turn and its tool registry (§9.1), set by the task runner. */
  binding: SessionBinding | null;
}

/** Which runtime an agent session runs in and the tools it really has (what the Gatehouse Skill tool checks). */
export interface SessionBinding {
  runtime: SkillRuntime;
  tools: ReadonlySet<string>;
}

const SkillCallArgsSchema = z.looseObject({
  skill: z.string().min(1),
  action: z.unknown().optional(),
});

const ListCallSchema = z.looseObject({ action: z.literal("list") });

/** Workspaces whose builds are kept and whose roots are watched; older ones come back on their next build. */
const MAX_KNOWN_WORKSPACES = 16;

function buildKey(options: BuildOptions): string {
  return JSON.stringify([options.workspace ?? null, options.taskClaudeHome ?? null]);
}

function normaliseOptions(options: BuildOptions): BuildOptions {
  return {
    workspace: options.workspace ? path.resolve(options.workspace) : null,
    taskClaudeHome: options.taskClaudeHome ? path.resolve(options.taskClaudeHome) : null,
  };
}

/** What `list` answers: the skills this tool serves, one per line, and which are active. */
function listText(served: readonly SkillEntry[], state: SessionState): string {
  if (served.length === 0) return "No skills are available.";
  const active = new Set(state.active.map((a) => a.name));
  const lines = served.map((e) => `- ${e.name}${active.has(e.name) ? " (active)" : ""}: ${e.description}`);
  return `Skills (activate one with action "activate"):\n${lines.join("\n")}`;
}

function fingerprint(catalogue: Catalogue): string {
  return JSON.stringify({ roots: catalogue.roots, skills: catalogue.skills, index: catalogue.index });
}

function snapshotHash(indexText: string, offered: readonly SkillEntry[]): string {
  const facts = offered.map((e) => [e.name, e.path, e.realpath, e.description, e.triggers, e.permissions]);
  return createHash("sha256")
    .update(JSON.stringify([indexText, facts]))
    .digest("hex");
}

export class SkillCatalogue {
  private currentVersion: number;
  private readonly platform: string;
  private readonly now: () => number;
  private readonly loadSettingsFile: () => Promise<unknown>;
  private readonly processEnv: Record<string, string | undefined>;
  private readonly builds = new Map<string, { version: number; result: Promise<BuildResult> }>();
  /** Last build of each (workspace, task folder): what a rescan compares against, and what the watcher watches. */
  private readonly lastCatalogues = new Map<string, Catalogue>();
  private readonly knownOptions = new Map<string, BuildOptions>();
  private readonly sessions = new Map<string, SessionState>();
  private readonly envMaterial = new WeakMap<SkillSnapshot, EnvMaterial[]>();
  private readonly maxActive = new WeakMap<SkillSnapshot, number>();
  private readonly envLock = new AsyncLock();
  private readonly settingsLock = new AsyncLock();
  private readonly listeners = new Set<(version: number) => void>();
  private watcher: SkillWatcher | null = null;
  private watcherReady: Promise<void> = Promise.resolve();
  private debounceTimer: NodeJS.Timeout | null = null;
  private watchSettings: { skillsJson: string; debounceMs: number; watch: boolean } | null = null;

  constructor(private readonly options: SkillCatalogueOptions) {
    this.platform = options.platform ?? process.platform;
    this.now = options.now ?? Date.now;
    this.currentVersion = this.now();
    this.processEnv = options.processEnv ?? process.env;
    this.loadSettingsFile =
      options.loadSettings ??
      (async () => {
        const result = await readJsonFile(options.paths.settings, z.looseObject({}));
        if (result.status === "missing") return {};
        if (result.status === "invalid") throw new InvalidFileError(options.paths.settings, result.error);
        return result.value;
      });
  }

  /** The catalogue version: one number for the whole engine (§11). */
  get version(): number {
    return this.currentVersion;
  }

  // ---- building -------------------------------------------------------------------------------

  private async loadSettings(): Promise<{ file: unknown; skills: SkillsSettings }> {
    const file = await this.loadSettingsFile();
    const skills = parseSkillsSettings(file);
    if (!skills.ok) throw new InvalidFileError(this.options.paths.settings, skills.error);
    if (await this.movePlainSecrets(skills.value)) return this.loadSettings();
    return { file, skills: skills.value };
  }

  /**
   * A plain `apiKey`, or a plain `env` value whose name looks secret, in the settings (not a reference
   * the SecretStore resolves) is moved into the store under `skills/<key>/apiKey` or
   * `skills/<key>/env/<NAME>` and the settings file then holds that reference, with a notice that names
   * the place, never the value (plain-secrets.ts). True when the file was rewritten.
   */
  private async movePlainSecrets(skills: SkillsSettings): Promise<boolean> {
    const plain: PlainSecret[] = [];
    for (const candidate of plainSecretCandidates(skills)) {
      if ((await this.options.secrets.get(candidate.value).catch(() => null)) !== null) continue;
      this.options.logger.addSecret(candidate.value);
      plain.push(candidate);
    }
    if (plain.length === 0) return false;
    const { secrets, logger, paths } = this.options;
    if (!secrets.set || this.options.loadSettings) {
      for (const secret of plain) {
        logger.warn(
          `Skill ${secret.key}: ${secret.place} in settings.json is a plain value, not a secret-store reference; it is not used. Store it as ${secret.ref}.`,
        );
      }
      return false;
    }
    return this.settingsLock.run(async () => {
      const raw = await readJsonFile(paths.settings, z.looseObject({}));
      if (raw.status !== "ok") return false;
      const file = structuredClone(raw.value);
      const moved: PlainSecret[] = [];
      for (const secret of plain) {
        if (!replaceWithReference(file, secret)) continue;
        await secrets.set!(secret.ref, secret.value);
        moved.push(secret);
      }
      if (moved.length === 0) return false;
      await writeFileAtomic(paths.settings, formatJson(file), { keepMode: true, mode: 0o600 });
      for (const secret of moved) {
        const what = secret.env === null ? "the apiKey" : `the value of env ${secret.env}`;
        logger.info(
          `Skill ${secret.key}: ${what} in settings.json was moved into the secret store; the settings now hold the reference ${secret.ref}.`,
        );
      }
      return true;
    });
  }

  private async inputs(options: BuildOptions, version: number): Promise<BuildInputs> {
    const settings = await this.loadSettings();
    const { paths } = this.options;
    return {
      version,
      workspace: options.workspace ?? null,
      platform: this.platform,
      home: paths.home,
      claudeHome: options.taskClaudeHome ?? paths.claudeHome,
      codexHome: paths.codexHome,
      capabilityManifest: paths.capabilityManifest,
      includeGlobalRuntimes: !options.taskClaudeHome,
      env: this.options.env,
      settingsFile: settings.file,
      skills: settings.skills,
      secrets: this.options.secrets,
      logger: this.options.logger,
      bundledRoot: this.options.bundledRoot ?? null,
    };
  }

  private async freshBuild(options: BuildOptions, version: number): Promise<BuildResult> {
    const result = await runBuild(await this.inputs(options, version));
    this.lastCatalogues.set(buildKey(options), result.catalogue);
    return result;
  }

  /** The build for these options at the current version, shared by concurrent callers. */
  private build(raw: BuildOptions): Promise<BuildResult> {
    const options = normaliseOptions(raw);
    const key = buildKey(options);
    const isNew = !this.knownOptions.has(key);
    this.knownOptions.delete(key); // most recently used last
    this.knownOptions.set(key, options);
    for (const oldest of this.knownOptions.keys()) {
      if (this.knownOptions.size <= MAX_KNOWN_WORKSPACES) break;
      this.knownOptions.delete(oldest);
      this.builds.delete(oldest);
      this.lastCatalogues.delete(oldest);
    }
    if (isNew && this.watcher) void this.watcher.retarget();
    const version = this.currentVersion;
    const cached = this.builds.get(key);
    if (cached && cached.version === version) return cached.result;
    const result = this.freshBuild(options, version);
    this.builds.set(key, { version, result });
    result.catch(() => {
      if (this.builds.get(key)?.result === result) this.builds.delete(key);
    });
    return result;
  }

  /** The §7 object for a workspace (none = ranks 1–3 left out). */
  async buildCatalogue(options: BuildOptions = {}): Promise<Catalogue> {
    return (await this.build(options)).catalogue;
  }

  // ---- rendering ----------------------------------------------------------------------------------

  renderIndex(entries: readonly IndexItem[]): { text: string; costChars: number } {
    return renderIndex(entries);
  }

  renderActive(entry: { name: string; skill_file: string; path: string }, body: string): string {
    return renderActive(entry, body);
  }

  // ---- agent sessions -------------------------------------------------------------------------------

  private session(agentSessionId: string): SessionState {
    let state = this.sessions.get(agentSessionId);
    if (!state) {
      state = { snapshot: null, options: {}, active: [], lock: new AsyncLock(), binding: null };
      this.sessions.set(agentSessionId, state);
    }
    return state;
  }

  /**
   * The snapshot an agent session's next turn uses (§10). Reused while the version is unchanged; else
   * rebuilt, and active skills the new snapshot no longer offers are deactivated (listed in
   * `deactivated`). A turn that already started keeps the snapshot object it was given.
   */
  snapshot(
    agentSessionId: string,
    workspace: string,
    options: Omit<BuildOptions, "workspace"> = {},
  ): Promise<SkillSnapshot> {
    const state = this.session(agentSessionId);
    const wanted = normaliseOptions({ ...options, workspace });
    return state.lock.run(async () => {
      const current = state.snapshot;
      if (
        current &&
        current.version === this.currentVersion &&
        buildKey(state.options) === buildKey(wanted)
      ) {
        return current;
      }
      const build = await this.build(wanted);
      const { text, costChars } = renderIndex(build.offered);
      const next: SkillSnapshot = {
        agentSessionId,
        workspace: wanted.workspace ?? path.resolve(workspace),
        version: build.catalogue.version,
        entries: build.offered,
        winners: build.winners,
        index: { text, costChars, costTokens: tokenEstimate(costChars) },
        hash: snapshotHash(text, build.offered),
        deactivated: [],
      };
      for (const active of [...state.active]) {
        const reason = this.deactivationReason(active, build);
        if (reason === null) continue;
        state.active = state.active.filter((a) => a !== active);
        next.deactivated.push(`Skill '${active.name}' was deactivated: ${reason}.`);
      }
      this.envMaterial.set(next, build.envMaterial);
      this.maxActive.set(next, build.catalogue.max_active);
      state.snapshot = next;
      state.options = wanted;
      return next;
    });
  }

  private deactivationReason(active: ActiveSkill, build: BuildResult): string | null {
    const offered = build.offered.find((e) => e.name === active.name);
    if (offered && offered.path === active.path) return null;
    if (offered) return `shadowed by ${offered.path}`;
    const same = build.catalogue.skills.find((e) => e.path === active.path);
    if (!same) return "its folder is gone";
    if (!same.valid) return `SKILL.md is no longer valid (${same.errors[0] ?? "invalid"})`;
    if (same.name !== active.name) return `its name is now ${same.name}`;
    if (same.shadowed_by !== null) return `shadowed by ${same.shadowed_by}`;
    if (!same.eligible) return same.reasons.join("; ");
    return "it can only be started by the user";
  }

  /**
   * The instructions for the session's next turn: the index, then each active block (§8.3). With a
   * runtime, the index lists only what that runtime does not read itself (§10) and names the Skill tool
   * as that runtime's agent sees it.
   */
  sessionInstructions(agentSessionId: string, runtime?: SkillRuntime): string {
    const state = this.sessions.get(agentSessionId);
    if (!state?.snapshot) return "";
    const index = runtime
      ? renderIndexText(runtimeIndexEntries(state.snapshot.entries, runtime), {
          toolPhrase: skillToolPhrase(runtime),
        })
      : state.snapshot.index.text;
    return renderInstructions(
      index,
      state.active.map((a) => a.block),
    );
  }

  /** Sets the runtime and tool registry that Skill calls of this session are checked against. */
  bindSession(agentSessionId: string, binding: SessionBinding): void {
    this.session(agentSessionId).binding = { runtime: binding.runtime, tools: new Set(binding.tools) };
  }

  /**
   * A call of the Gatehouse Skill tool (the task's MCP server, through the approval socket): checked
   * against the session's bound runtime and tools. `list` names what this tool serves; a skill the
   * runtime loads natively is refused with where to find it, so no skill is offered twice.
   */
  handleToolCall(agentSessionId: string, args: unknown): Promise<SkillCallResult> {
    const state = this.session(agentSessionId);
    return state.lock.run(async () => {
      const binding = state.binding;
      if (!binding || !state.snapshot) {
        return { text: "No skills are available: this agent session has no Gatehouse task.", isError: true };
      }
      const served = runtimeIndexEntries(state.snapshot.entries, binding.runtime);
      if (ListCallSchema.safeParse(args).success) return { text: listText(served, state), isError: false };
      const name = SkillCallArgsSchema.safeParse(args).data?.skill;
      const native = name ? state.snapshot.entries.find((e) => e.name === name) : undefined;
      if (native && !served.includes(native)) {
        return {
          text: `Skill '${native.name}' is not served by this tool: ${nativePathOf(binding.runtime)} (${native.skill_file}).`,
          isError: true,
        };
      }
      return this.skillCall(state, args, binding.tools, served);
    });
  }

  /** Names of the session's active skills, in activation order. */
  activeSkills(agentSessionId: string): string[] {
    return (this.sessions.get(agentSessionId)?.active ?? []).map((a) => a.name);
  }

  /** Forgets an agent session (its snapshot and active set). */
  endSession(agentSessionId: string): void {
    this.sessions.delete(agentSessionId);
  }

  /** The Skill tool (§9.2): the first failing check gives the result; results are plain text. */
  handleSkillCall(
    agentSessionId: string,
    args: unknown,
    tools: ReadonlySet<string>,
  ): Promise<SkillCallResult> {
    const state = this.session(agentSessionId);
    return state.lock.run(() => this.skillCall(state, args, tools, state.snapshot?.entries ?? []));
  }

  private async skillCall(
    state: SessionState,
    args: unknown,
    tools: ReadonlySet<string>,
    offered: readonly SkillEntry[],
  ): Promise<SkillCallResult> {
    const ok = (text: string): SkillCallResult => ({ text, isError: false });
    const fail = (text: string): SkillCallResult => ({ text, isError: true });
    const parsed = SkillCallArgsSchema.safeParse(args);
    if (!parsed.success)
      return fail("Invalid Skill call: 'skill' must be the exact name of a skill from the index.");
    const name = parsed.data.skill;
    const action = parsed.data.action ?? "activate";
    if (action !== "activate" && action !== "deactivate") {
      return fail(`Unknown action '${String(action)}'. Use activate or deactivate.`);
    }
    const isActive = state.active.some((a) => a.name === name);
    if (action === "deactivate") {
      if (!isActive) return ok(`Skill '${name}' is not active.`);
      state.active = state.active.filter((a) => a.name !== name);
      return ok(`Skill '${name}' deactivated.`);
    }
    const snapshot = state.snapshot;
    const winner = snapshot?.winners.find((e) => e.name === name);
    if (!snapshot || !winner) {
      const names = offered.map((e) => e.name);
      const available =
        names.length > 0 ? `Available skills: ${names.join(", ")}.` : "No skills are available.";
      return fail(`Unknown skill '${name}'. ${available}`);
    }
    if (!winner.eligible) return fail(`Skill '${name}' is not available: ${winner.reasons.join("; ")}.`);
    if (winner.details.disable_model_invocation)
      return fail(`Skill '${name}' can only be started by the user.`);
    if (isActive) return ok(`Skill '${name}' is already active.`);
    const limit = this.maxActive.get(snapshot) ?? 5;
    if (state.active.length >= limit) {
      return fail(
        `Cannot activate '${name}': ${state.active.length} skills are already active (limit ${limit}). Deactivate one first.`,
      );
    }
    const present = await Promise.all(
      ["SKILL.md", "manifest.toml"].map((f) =>
        fs.access(path.join(winner.path, f)).then(
          () => true,
          () => false,
        ),
      ),
    );
    const reread = await readSkillFolder(winner.path, {
      hasSkillMd: present[0] === true,
      hasManifest: present[1] === true,
    });
    if (!reread.valid || !reread.fields) {
      return fail(
        `Cannot activate '${name}': SKILL.md is no longer valid (${reread.errors[0] ?? "invalid"}).`,
      );
    }
    if (reread.fields.name !== name) {
      return fail(
        `Cannot activate '${name}': SKILL.md is no longer valid (its name is now ${reread.fields.name}).`,
      );
    }
    const missing = unsatisfiedPermissions(reread.fields.permissions, tools);
    if (missing.length > 0) return fail(`Cannot activate '${name}': ${missing.join("; ")}.`);
    const block = renderActive(winner, reread.body);
    state.active.push({ name, path: winner.path, block });
    return ok(`Skill '${name}' activated.\n\n${block}`);
  }

  // ---- environment ----------------------------------------------------------------------------------

  /** Variables the skills' settings add for an agent process (§10); `{}` for an unknown snapshot. */
  envOverlay(
    snapshot: SkillSnapshot,
    baseEnv: Readonly<Record<string, string | undefined>>,
  ): Record<string, string> {
    return computeEnvOverlay(this.envMaterial.get(snapshot) ?? [], baseEnv, this.options.logger);
  }

  /** Runs `fn` with the overlay's missing variables set in the process environment, then removes exactly those. */
  withSkillEnv<T>(overlay: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    return this.envLock.run(() => applyEnvDuring(this.processEnv, overlay, fn));
  }

  // ---- version, watching, rescans -------------------------------------------------------------------

  private bump(): void {
    this.currentVersion = Math.max(this.now(), this.currentVersion + 1);
    for (const [key, build] of this.builds)
      if (build.version !== this.currentVersion) this.builds.delete(key);
    const version = this.currentVersion;
    for (const listener of [...this.listeners]) {
      try {
        listener(version);
      } catch (error) {
        this.options.logger.warn("Skill catalogue listener failed", { error: (error as Error).message });
      }
    }
  }

  /** Trailing debounce: one bump after each quiet period of `watch_debounce_ms`. */
  private scheduleBump(): void {
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    const delay = this.watchSettings?.debounceMs ?? 250;
    const quietSince = Date.now();
    const fire = () => {
      // Timers may fire a millisecond early; the quiet period is a promise to the user.
      const left = quietSince + delay - Date.now();
      if (left > 0) {
        this.debounceTimer = setTimeout(fire, left);
        return;
      }
      this.debounceTimer = null;
      this.bump();
    };
    this.debounceTimer = setTimeout(fire, delay);
  }

  /** A capability sync finished (or anything else outside the watcher changed skills): bump now. */
  notifyExternalChange(): void {
    this.bump();
    void this.watcher?.retarget();
  }

  /**
   * Rebuilds every known workspace from disk (PATH and environment included) and bumps the version
   * only if the result differs from what was last built.
   */
  async rescan(): Promise<{ changed: boolean; version: number }> {
    const targets = this.knownOptions.size > 0 ? [...this.knownOptions.values()] : [normaliseOptions({})];
    let changed = false;
    const version = this.currentVersion;
    for (const options of targets) {
      const key = buildKey(options);
      const before = this.lastCatalogues.get(key);
      const result = this.freshBuild(options, version);
      const catalogue = (await result).catalogue;
      if (before !== undefined && fingerprint(before) !== fingerprint(catalogue)) changed = true;
      if (this.currentVersion === version) this.builds.set(key, { version, result });
    }
    if (changed) this.bump();
    void this.watcher?.retarget();
    return { changed, version: this.currentVersion };
  }

  private async watchPlan(): Promise<WatchPlan> {
    const { paths } = this.options;
    const registry = pluginRegistryFiles(paths.claudeHome, paths.codexHome);
    const files: WatchPlan["files"] = [
      { path: paths.settings, kind: "settings" },
      { path: rescanRequestFile(paths), kind: "rescan" },
      { path: paths.capabilityManifest, kind: "registry" },
      { path: registry.claudeRegistry, kind: "registry" },
      { path: registry.claudeSettings, kind: "registry" },
      { path: registry.codexConfig, kind: "registry" },
    ];
    let settings: SkillsSettings;
    try {
      settings = (await this.loadSettings()).skills;
    } catch (error) {
      this.options.logger.warn("Skill settings are invalid; watching only the settings file", {
        error: (error as Error).message,
      });
      return { roots: [], files };
    }
    this.watchSettings = {
      skillsJson: JSON.stringify(settings),
      debounceMs: settings.watch_debounce_ms,
      watch: settings.watch,
    };
    if (!settings.watch) return { roots: [], files };
    const roots = new Set<string>();
    const targets = this.knownOptions.size > 0 ? [...this.knownOptions.values()] : [normaliseOptions({})];
    for (const options of targets) {
      const { specs } = await resolveRoots(await this.inputs(options, this.currentVersion));
      for (const spec of specs) if (!spec.error) roots.add(spec.path);
      if (options.taskClaudeHome)
        files.push({ path: path.join(options.taskClaudeHome, "settings.json"), kind: "registry" });
    }
    return { roots: [...roots], files };
  }

  private onWatchChange(change: WatchChange): void {
    switch (change.kind) {
      case "files":
      case "root":
      case "registry":
        this.scheduleBump();
        return;
      case "rescan":
        void this.answerRescanRequest().catch((error: unknown) =>
          this.options.logger.warn("Skill rescan failed", { error: (error as Error).message }),
        );
        return;
      case "settings":
        void this.onSettingsChange();
        return;
    }
  }

  /** `gatehouse skills rescan` asked: rescan, then say so in the answer file the command waits for. */
  private async answerRescanRequest(): Promise<void> {
    const request = await readJsonFile(rescanRequestFile(this.options.paths), RescanRequestSchema);
    const result = await this.rescan();
    if (request.status !== "ok") return;
    const answer: RescanAnswer = {
      requested_at: request.value.requested_at,
      changed: result.changed,
      version: result.version,
    };
    await writeFileAtomic(rescanAnswerFile(this.options.paths), formatJson(answer));
  }

  private async onSettingsChange(): Promise<void> {
    const before = this.watchSettings?.skillsJson;
    let now: string;
    try {
      now = JSON.stringify((await this.loadSettings()).skills);
    } catch (error) {
      this.options.logger.warn("Skill settings are invalid; catalogue unchanged", {
        error: (error as Error).message,
      });
      return;
    }
    if (now === before) return;
    await this.watcher?.retarget();
    this.scheduleBump();
  }

  /**
   * Calls `onBump(version)` after every bump. The first subscriber starts the watcher (roots when
   * `skills.watch` is on; settings, plugin registry and rescan requests always); the returned function
   * unsubscribes, and the last one stops the watcher.
   */
  watch(onBump: (version: number) => void): () => void {
    this.listeners.add(onBump);
    if (!this.watcher) {
      const watcher = new SkillWatcher({
        plan: () => this.watchPlan(),
        onChange: (change) => this.onWatchChange(change),
        logger: this.options.logger,
      });
      this.watcher = watcher;
      this.watcherReady = watcher.start();
    }
    return () => {
      this.listeners.delete(onBump);
      if (this.listeners.size === 0) void this.stopWatching();
    };
  }

  /** Resolves when the watcher watches everything it should (its initial scan, and roots of newly built workspaces). */
  async watchReady(): Promise<void> {
    await this.watcherReady;
    await this.watcher?.settled();
  }

  /** Stops the watcher and any pending bump. */
  async stopWatching(): Promise<void> {
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = null;
    const watcher = this.watcher;
    this.watcher = null;
    this.watcherReady = Promise.resolve();
    await watcher?.close();
  }
}
