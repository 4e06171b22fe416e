// One turn of a task, from a started run to its terminal event (device-protocol.md §6.1 step 6,
// workdir.md §8–§9, skills.md §10): resolve the workdir (fallbacks and notices go out as progress
// notes before the agent starts), build the launch spec, write its files, re-check the folder, spawn
// the agent CLI, turn its output into the event stream, and end with exactly one terminal event.
import fs from "node:fs/promises";
import { z } from "zod";
import type { Logger } from "../../core/log.js";
import {
  buildLaunchSpec,
  parseTaskPayload,
  projectInfo,
  runtimeForShellType,
  type RuntimeKind,
} from "../../core/runtime/index.js";
import { emptySettings, SettingsFileSchema, type SettingsFile } from "../../core/settings.js";
import { readJsonFile } from "../../core/store/index.js";
import { WorkdirFatal, type WorkdirResolution } from "../../core/workdir/index.js";
import { changedNotice, tildify } from "../../core/workdir/messages.js";
import { ApprovalsFileSchema } from "../../core/approvals/schema.js";
import { ApprovalsStore } from "../../core/approvals/index.js";
import { loosenedReason } from "../../core/policy/decide.js";
import { resolveSettings } from "../../core/policy/resolve-settings.js";
import { CLAUDE_AGENT_ID } from "../../core/runtime/claude-spec.js";
import { CODEX_AGENT_ID } from "../../core/runtime/codex-spec.js";
import { RUNTIME_INHERIT } from "../../core/env-rules.js";
import { TASK_KEY_ENV } from "../../approval-server/task-proof.js";
import { buildAgentEnv, inheritedEnv, type InheritRules } from "../child-env.js";
import { inheritSettingsOf, secretTest } from "../env-sources.js";
import { findBash } from "../shells.js";
import type { AgentEvent } from "./agent-events.js";
import { RUNTIME_LABEL, resolveAgentBinary } from "./agent-binary.js";
import type { AgentCliProbe } from "./agent-cli-probe.js";
import { supportVerdict, versionLaunchArgs } from "../../core/runtime/agent-cli.js";
import { startAgentProcess, type AgentExit, type AgentProcess } from "./agent-process.js";
import { createClaudeStreamParser } from "./claude-stream.js";
import { createCodexStreamParser } from "./codex-stream.js";
import type { ClaudeHttpHookGrant, TaskRunnerOptions } from "./deps.js";
import type { RequestedSettings } from "../../shared/schemas/explanation.js";
import { runtimeToolRegistry } from "../../core/skills/index.js";
import { skillLaunch } from "./skill-launch.js";
import { writeLaunchFiles } from "./task-files.js";
import { gitCheckoutFields } from "./git-checkout.js";
import { prepareAttachments } from "./attachments.js";
import type { ResponseStream } from "./response-stream.js";

export const DEFAULT_PROMPT_TIMEOUT_MS = 120_000;

/** The live agent session of a task: later turns resume it while the folder stays the same. */
export interface AgentSession {
  runtime: RuntimeKind;
  resumeId: string;
  cwd: string;
}

/** Agent sessions kept for resuming; the least recently used go first beyond this. */
export const MAX_AGENT_SESSIONS = 1_000;

export function rememberSession(
  sessions: Map<string, AgentSession>,
  taskId: string,
  session: AgentSession,
): void {
  sessions.delete(taskId); // re-inserted last: the map's order is least recently used first
  sessions.set(taskId, session);
  for (const oldest of sessions.keys()) {
    if (sessions.size <= MAX_AGENT_SESSIONS) break;
    sessions.delete(oldest);
  }
}

/** What a turn shares with the runner. */
export interface TurnContext {
  options: TaskRunnerOptions;
  logger: Logger;
  /** What each agent CLI binary is (version, options), read once per binary (agent-cli-probe.ts). */
  agentClis: AgentCliProbe;
  sessions: Map<string, AgentSession>;
  /** The agent session key of skills.md §10 and exec-policy.md: `task:<task_id>`. */
  sessionKey(taskId: string): string;
}

/** The runner's view of one run while its turn goes on. */
export interface TurnHandle {
  taskId: string;
  payload: Record<string, unknown>;
  stream: ResponseStream;
  signal: AbortSignal;
  /** The agent and folder are known (the UI's running list shows them). */
  started(info: { agent: RuntimeKind; workdir: string }): void;
  /** The agent process, so a cancel can stop it. */
  spawned(process: AgentProcess): void;
  /**
   * A secret of this turn alone (its task key): redacted from now on, and forgotten once the turn's
   * last event has left the process, so a long-running Gatehouse does not check every text against
   * every key it ever issued.
   */
  secret(value: string): void;
}

/** Extra CLI arguments from the settings (`agents.claudeArgs` / `agents.codexArgs`): e.g. a custom model provider. */
const AgentArgsSchema = z.looseObject({
  claudeArgs: z.array(z.string()).optional(),
  codexArgs: z.array(z.string()).optional(),
});

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

async function loadSettings(file: string, logger: Logger): Promise<SettingsFile> {
  const read = await readJsonFile(file, SettingsFileSchema);
  if (read.status === "ok") return read.value;
  if (read.status === "invalid") logger.warn(`${file} is invalid (${read.error}); using default settings`);
  return emptySettings();
}

async function loadManifest(file: string, logger: Logger): Promise<unknown> {
  const read = await readJsonFile(file, z.unknown());
  if (read.status === "ok") return read.value;
  if (read.status === "invalid") logger.warn(`${file} is invalid (${read.error}); no global MCP servers`);
  return {};
}

/** The rules an agent's environment is built by: `environment.inherit`, the secrets this process knows. */
async function agentEnvRules(
  options: TaskRunnerOptions,
  settings: SettingsFile,
): Promise<InheritRules & { warning?: string }> {
  const inherit = inheritSettingsOf(settings, options.paths.settings);
  const approvals = await readJsonFile(options.paths.approvals, ApprovalsFileSchema);
  const socketToken = approvals.status === "ok" ? approvals.value.socket.token : null;
  return {
    inherit: inherit.inherit,
    holdsSecret: secretTest(options.logger, [socketToken]),
    platform: options.platform ?? process.platform,
    ...(inherit.warning ? { warning: inherit.warning } : {}),
  };
}

/**
 * The agent's environment (docs/decisions.md "Child environments"): what commands inherit, the
 * runtime's own variables, `environment.inherit`, then the launch spec's variables; never a secret of
 * Gatehouse's. Its own commands run under the bash the hook analyses them for, where there is one.
 */
async function agentEnv(
  options: TaskRunnerOptions,
  rules: InheritRules,
  input: {
    runtime: RuntimeKind;
    specEnv: Record<string, string>;
    launchSecrets: string[];
    taskKey: string | null;
  },
): Promise<Record<string, string>> {
  const bash = await findBash(undefined, rules.platform);
  const shell: Record<string, string> = bash
    ? { SHELL: bash, ...(input.runtime === "claude-code" ? { CLAUDE_CODE_SHELL: bash } : {}) }
    : {};
  // Set last and as it is: the name is one of Gatehouse's secrets, which no other child ever inherits.
  if (input.taskKey) shell[TASK_KEY_ENV] = input.taskKey;
  return buildAgentEnv(
    options.env,
    {
      runtime: RUNTIME_INHERIT[input.runtime],
      spec: input.specEnv,
      launchSecrets: input.launchSecrets,
      fixed: shell,
    },
    rules,
  ).env;
}

/** Inserts the configured extra arguments where the CLI reads options (before Codex's `--`). */
export function withExtraArgs(runtime: RuntimeKind, args: string[], extra: string[]): string[] {
  if (extra.length === 0) return args;
  if (runtime === "codex" && args[0] === "exec") return ["exec", ...extra, ...args.slice(1)];
  return [...args, ...extra];
}

/** Why a turn ended without a result, in words for the backend. */
export function describeAgentExit(runtime: RuntimeKind, exit: AgentExit, lastWarning: string | null): string {
  const label = RUNTIME_LABEL[runtime];
  if (exit.spawnError) return `${label} could not be started: ${exit.spawnError}`;
  const how = exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${exit.code ?? "unknown"}`;
  const detail = lastWarning ?? lastLine(exit.stderrTail);
  return `${label} ${how} before finishing the turn${detail ? `: ${detail}` : ""}`;
}

function lastLine(textValue: string): string {
  const lines = textValue
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return (lines.at(-1) ?? "").slice(0, 500);
}

export async function runTurn(ctx: TurnContext, turn: TurnHandle): Promise<void> {
  const { options, logger } = ctx;
  const { stream, taskId, payload } = turn;
  const aborted = () => turn.signal.aborted || stream.ended !== null;

  // The workdir (workdir.md §9): a fatal error ends the task, a fallback is announced first.
  let resolution: WorkdirResolution;
  let changed: { from: string; to: string } | null;
  try {
    const resolved = await options.workdir.resolveForTask({
      taskId,
      deviceId: text(payload.device_id) ?? undefined,
      workdir: text(payload.workdir),
      projectWorkspacePath: text(payload.project_workspace_path),
      policy: text(payload.workdir_policy),
      gitUrl: text(payload.git_url),
      branch: text(payload.branch_name),
    });
    resolution = resolved.resolution;
    changed = resolved.changed;
  } catch (error) {
    if (!(error instanceof WorkdirFatal)) throw error;
    logger.warn(`task ${taskId}: ${error.message}`, { detail: error.detail });
    stream.failed(error.message);
    return;
  }
  if (aborted()) return;
  if (resolution.fallback) stream.note(resolution.fallback.message);

  // A turn in another folder than the live agent session starts a new session (§9 "Changing the
  // workdir"): the old one is closed (its process already ended) and its resume id forgotten.
  const session = ctx.sessions.get(taskId);
  const movedAway = session !== undefined && !options.workdir.isSameCwd(session.cwd, resolution.cwd);
  if (movedAway && !changed) {
    const platform = options.platform ?? process.platform;
    resolution.notices.push(
      changedNotice(
        tildify(session.cwd, options.paths.home, platform),
        tildify(resolution.cwd, options.paths.home, platform),
      ),
    );
  }
  if (changed || movedAway || payload.new_session === true) {
    ctx.sessions.delete(taskId);
    options.skills?.endSession(ctx.sessionKey(taskId));
  }
  for (const notice of resolution.notices) stream.note(notice);

  // The runtime (§6.1 step 6): an unsupported shell type ends the task.
  const parsed = parseTaskPayload(payload);
  if (!parsed.ok) {
    stream.failed(parsed.error);
    return;
  }
  const shell = runtimeForShellType(parsed.payload);
  if (!shell.ok) {
    stream.failed(shell.error);
    return;
  }
  const runtime = shell.runtime;
  // Gatehouse extension (docs/device-protocol-task-policy.md): a launch may tighten, never loosen, the
  // policy its agent's hook applies. A looser ask is refused before anything starts.
  const loosening = await launchLoosens(options, runtime, parsed.payload);
  if (loosening) {
    stream.failed(loosening);
    return;
  }
  // The task's repository, cloned into its folder when it is empty (git-checkout.ts).
  const git = gitCheckoutFields(payload);
  if (git && options.gitCheckout) {
    const checkout = await options.gitCheckout({
      ...git,
      taskId,
      folder: resolution.cwd,
      signal: turn.signal,
    });
    if (aborted()) return;
    if (checkout.kind === "failed") {
      stream.failed(checkout.message);
      return;
    }
    if (checkout.kind === "cloned")
      logger.info(`task ${taskId}: cloned the repository into ${resolution.cwd}`);
  }
  // Attachments, downloaded into the folder and named in the prompt (attachments.ts).
  let runPayload = payload;
  if (options.downloadAttachment) {
    const prepared = await prepareAttachments({
      payload,
      taskId,
      subtaskId: String(payload.subtask_id),
      workdir: resolution.cwd,
      download: options.downloadAttachment,
      logger,
      signal: turn.signal,
    });
    if (aborted()) return;
    if (prepared) runPayload = { ...payload, prompt: prepared.prompt };
  }
  const settings = await loadSettings(options.paths.settings, logger);
  const envRules = await agentEnvRules(options, settings);
  if (envRules.warning) logger.warn(`task ${taskId}: ${envRules.warning}`);
  const manifest = await loadManifest(options.paths.capabilityManifest, logger);
  const project = projectInfo(parsed.payload);

  // Skills (skills.md §9–§10): this turn's snapshot, the index of what the runtime does not read itself
  // with the active blocks, the Skill tool's binding, and the environment overlay (skill-launch.ts).
  let skillInstructions: string | null = null;
  let envOverlay: Record<string, string> | undefined;
  if (options.skills) {
    try {
      const skills = await skillLaunch(options.skills, {
        sessionKey: ctx.sessionKey(taskId),
        taskId,
        workspace: resolution.cwd,
        runtime,
        isProjectTask: project.isProjectTask,
        paths: options.paths,
        // A skill fills a variable the agent would not otherwise get (its inherited set, not the runner's).
        inheritedEnv: inheritedEnv(options.env, envRules, RUNTIME_INHERIT[runtime]).env,
      });
      for (const line of skills.deactivated) stream.note(line);
      skillInstructions = skills.instructions;
      envOverlay = skills.envOverlay;
    } catch (error) {
      logger.warn(`task ${taskId}: the skill catalogue is unavailable; no skill index this turn`, { error });
    }
  }

  const resumeWith = ctx.sessions.get(taskId);
  const resumeId = resumeWith && resumeWith.runtime === runtime ? resumeWith.resumeId : null;
  // The runner's HTTP hook for this turn (issue 29), once the CLI is known to keep it closed.
  let httpHook: ClaudeHttpHookGrant | null = null;
  const build = (workdir: string, resume: string | null) =>
    buildLaunchSpec({
      payload: runPayload,
      manifest,
      workdir,
      paths: options.paths,
      settings,
      gatehouseCommand: options.gatehouseCommand,
      promptTimeoutMs: options.promptTimeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS,
      resumeId: resume,
      claudeHttpHook: httpHook ? { url: httpHook.url, token: httpHook.token } : null,
      skillInstructions,
      skillTool: skillInstructions !== null,
      ...(envOverlay ? { envOverlay } : {}),
      readTextFile: (file) => fs.readFile(file, "utf8"),
    });
  const launch = await build(resolution.cwd, resumeId);
  if (!launch.ok) {
    stream.failed(launch.error);
    return;
  }
  for (const secret of launch.secrets) logger.addSecret(secret);
  for (const notice of launch.notices) logger.info(`task ${taskId}: ${notice}`);
  let spec = launch.spec;
  const extra = AgentArgsSchema.safeParse(settings.agents ?? {});
  const extraArgs = extra.success
    ? ((runtime === "codex" ? extra.data.codexArgs : extra.data.claudeArgs) ?? [])
    : [];

  const binary = await resolveAgentBinary({
    runtime,
    command: spec.command,
    env: options.env,
    home: options.paths.home,
    settingsFile: options.paths.settings,
    ...(options.platform ? { platform: options.platform } : {}),
  });
  if (!binary.ok) {
    stream.failed(binary.message);
    return;
  }
  // The support range (docs/agent-clis.md): a version Gatehouse does not support never half-runs.
  const cli = await ctx.agentClis.probe(runtime, binary.file);
  const verdict = supportVerdict(runtime, binary.file, cli.version, options.paths.settings);
  if (!verdict.runs) {
    logger.warn(`task ${taskId}: ${verdict.message ?? "unsupported agent CLI"}`, {
      versionOutput: cli.versionOutput,
    });
    stream.failed(verdict.message ?? `${RUNTIME_LABEL[runtime]} is not supported`);
    return;
  }
  if (verdict.message) {
    logger.warn(`task ${taskId}: ${verdict.message}`);
    stream.note(verdict.message);
  }
  const versionArgs = versionLaunchArgs(cli);
  // Claude Code's calls go to the runner's HTTP hook when the CLI blocks a call whose hook fails, else
  // through the command hook; the log says why (issue 29).
  if (runtime === "claude-code" && options.claudeHttpHook) {
    const offered = await options.claudeHttpHook.grantFor(cli.version);
    if (offered.ok) {
      httpHook = offered.grant;
      turn.secret(httpHook.token);
    } else {
      // said in the log, not in every task's chat: the command hook gates the turn just as well
      logger.info(`task ${taskId}: ${offered.why}`);
    }
  }
  // (narrowed here: the function below cannot see the checks above)
  const agentFile = binary.file;
  const launchSecrets = launch.secrets;
  const requested = requestedOf(parsed.payload);
  try {
    await spawnTurn();
  } finally {
    httpHook?.revoke();
  }

  async function spawnTurn(): Promise<void> {
    if (httpHook) {
      const withHook = await build(resolution.cwd, resumeId);
      if (!withHook.ok) {
        stream.failed(withHook.error);
        return;
      }
      spec = withHook.spec;
    }
    // Codex refuses a CODEX_HOME that does not exist; the spec always names XH, so a first-time user
    // gets the folder Codex would have created for ~/.codex itself.
    if (runtime === "codex") await fs.mkdir(options.paths.codexHome, { recursive: true, mode: 0o700 });
    await writeLaunchFiles(spec.files);
    if (aborted()) return;

    // workdir.md §8, right before the spawn.
    let cwd: string;
    const recheck = await options.workdir.recheckBeforeSpawn(resolution);
    if (!recheck.ok) {
      if (recheck.code === "managed-unavailable") {
        stream.failed(recheck.message);
        return;
      }
      stream.note(recheck.message);
      cwd = recheck.fallback.cwd;
    } else {
      cwd = recheck.cwd;
    }
    let args = withExtraArgs(runtime, spec.args, [...versionArgs, ...extraArgs]);
    if (!options.workdir.isSameCwd(cwd, resolution.cwd)) {
      // The hooks judge file access against the folder the agent really runs in, and a resumed
      // conversation belongs to the folder that was refused just now.
      if (resumeId) ctx.sessions.delete(taskId);
      const fresh = await build(cwd, null);
      if (!fresh.ok) {
        stream.failed(fresh.error);
        return;
      }
      await writeLaunchFiles(fresh.spec.files);
      args = withExtraArgs(runtime, fresh.spec.args, [...versionArgs, ...extraArgs]);
    }
    if (aborted()) return;

    // Provenance: this turn's agent process (and so its hook) gets a key of its own; it counts until the
    // process has exited. The key is a secret like the task token: never logged, never in argv or files.
    const agent = runtime === "codex" ? CODEX_AGENT_ID : CLAUDE_AGENT_ID;
    const taskKey = options.taskKeys?.issue({ taskId, runtime, agent }) ?? null;
    if (taskKey) turn.secret(taskKey);
    // A cancelled task's key stops counting at the cancel, not when its process tree is finally gone.
    const revoke = () => {
      if (taskKey) options.taskKeys?.revoke(taskId, taskKey);
      httpHook?.revoke();
    };
    turn.signal.addEventListener("abort", revoke, { once: true });
    try {
      await runAgent(ctx, turn, {
        runtime,
        file: agentFile,
        cwd,
        args,
        spec,
        resumeId,
        taskKey,
        envRules,
        launchSecrets,
        httpHook,
        requested,
        promptTimeoutMs: options.promptTimeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS,
      });
    } finally {
      turn.signal.removeEventListener("abort", revoke);
      revoke();
    }
  }
}

/** What the launch asked to tighten (`security`/`ask`): every hook request carries it. */
function requestedOf(payload: {
  security?: "deny" | "allowlist" | "full" | null;
  ask?: "off" | "on-miss" | "always" | null;
}): RequestedSettings | undefined {
  if (!payload.security && !payload.ask) return undefined;
  return {
    ...(payload.security ? { security: payload.security } : {}),
    ...(payload.ask ? { ask: payload.ask } : {}),
  };
}

interface AgentRun {
  runtime: RuntimeKind;
  /** The agent CLI's executable. */
  file: string;
  cwd: string;
  args: string[];
  spec: { env: Record<string, string>; stdin: string | null };
  resumeId: string | null;
  taskKey: string | null;
  envRules: InheritRules;
  launchSecrets: string[];
  /** The runner's HTTP hook grant of this turn (bound once the agent's environment is known). */
  httpHook: ClaudeHttpHookGrant | null;
  requested: RequestedSettings | undefined;
  promptTimeoutMs: number;
}

/** Spawns the turn's agent CLI and turns its output into the event stream, until the process has exited. */
async function runAgent(ctx: TurnContext, turn: TurnHandle, run: AgentRun): Promise<void> {
  const { options, logger } = ctx;
  const { stream, taskId } = turn;
  const { runtime, cwd, args, spec, resumeId } = run;
  const env = await agentEnv(options, run.envRules, {
    runtime,
    specEnv: spec.env,
    launchSecrets: run.launchSecrets,
    taskKey: run.taskKey,
  });
  run.httpHook?.bind({
    verified: { taskId, runtime, agent: runtime === "codex" ? CODEX_AGENT_ID : CLAUDE_AGENT_ID },
    workdir: cwd,
    promptTimeoutMs: run.promptTimeoutMs,
    env,
    ...(run.requested ? { requested: run.requested } : {}),
  });
  turn.started({ agent: runtime, workdir: cwd });
  const parser = runtime === "codex" ? createCodexStreamParser() : createClaudeStreamParser();
  let lastWarning: string | null = null;
  let sawSession = false;
  const onEvent = (event: AgentEvent) => {
    switch (event.kind) {
      case "session":
        sawSession = true;
        rememberSession(ctx.sessions, taskId, { runtime, resumeId: event.id, cwd });
        break;
      case "tools":
        // The Skill tool checks permissions against what the runtime really has (skills.md §9.1).
        options.skills?.bindSession(ctx.sessionKey(taskId), {
          runtime: "claude",
          tools: runtimeToolRegistry("claude", event.names),
        });
        break;
      case "text":
        stream.message(event.text);
        break;
      case "tool-started":
        stream.toolStarted(event.id, event.name, event.input);
        break;
      case "tool-finished":
        stream.toolFinished(event.id, event.name, event.input, event.output, event.isError);
        break;
      case "completed":
        stream.completed(event.text);
        break;
      case "failed":
        stream.failed(event.message);
        break;
      case "warning":
        lastWarning = event.message;
        logger.info(`task ${taskId}: ${RUNTIME_LABEL[runtime]}: ${event.message}`);
        break;
    }
  };
  logger.info(`task ${taskId}: starting ${RUNTIME_LABEL[runtime]} in ${cwd}`, {
    resume: resumeId !== null,
  });
  const agent = startAgentProcess(
    {
      file: run.file,
      args,
      env,
      cwd,
      stdin: spec.stdin,
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      ...(options.platform ? { platform: options.platform } : {}),
    },
    (line) => {
      for (const event of parser.line(line)) onEvent(event);
    },
  );
  turn.spawned(agent);
  const exit = await agent.exited;
  logger.info(`task ${taskId}: ${RUNTIME_LABEL[runtime]} exited`, { code: exit.code, signal: exit.signal });
  if (stream.ended === null && !turn.signal.aborted) {
    stream.failed(describeAgentExit(runtime, exit, lastWarning));
  }
  // A resume that failed before the runtime even named its session would fail every later turn too.
  if (resumeId && !sawSession && stream.ended === "error") ctx.sessions.delete(taskId);
}

/**
 * Why the launch's `security`/`ask` would loosen the policy of the task's agent (its hook's agent id),
 * or null when they only tighten (or are absent). Measured against the policy as it is now, elevation
 * included; every hook request is measured again when it is made.
 */
async function launchLoosens(
  options: TaskRunnerOptions,
  runtime: "claude-code" | "codex",
  payload: { security?: "deny" | "allowlist" | "full" | null; ask?: "off" | "on-miss" | "always" | null },
): Promise<string | null> {
  const requested = {
    ...(payload.security ? { security: payload.security } : {}),
    ...(payload.ask ? { ask: payload.ask } : {}),
  };
  if (!requested.security && !requested.ask) return null;
  const store = new ApprovalsStore({
    path: options.paths.approvals,
    defaultSocketPath: options.paths.defaultSocket,
  });
  const agentId = runtime === "codex" ? CODEX_AGENT_ID : CLAUDE_AGENT_ID;
  const settings = resolveSettings(await store.load(), agentId, requested, (options.now ?? Date.now)());
  if (!settings.loosening) return null;
  return `Task refused, nothing was run: ${loosenedReason(settings.loosening)} (agent ${agentId}). Send the task without the looser security/ask, or change the policy on this device.`;
}
