// The composition root (architecture.md "Process model"): builds every service for one home folder.
// The Electron main process and the headless runner (`gatehouse serve`) both start the app through
// here; nothing below this file assembles layers. Later additions (device connection, workdir,
// capabilities) get built here too.
import {
  createRequestHandlers,
  defaultCwdResolver,
  type ApprovalGate,
  type CwdResolver,
} from "./approval-server/handlers.js";
import { PromptBroker, type Presenter } from "./approval-server/broker.js";
import type { ServerLimits } from "./approval-server/limits.js";
import { ApprovalServer, type ListenResult } from "./approval-server/server.js";
import { socketAddress } from "./approval-server/socket-path.js";
import { approvalsFileTokenSource } from "./approval-server/token-source.js";
import { ApprovalsStore } from "./core/approvals/index.js";
import { CapabilitySync } from "./core/capabilities/index.js";
import { neverBackwards } from "./core/clock.js";
import type { Logger } from "./core/log.js";
import type { AppPaths, Env } from "./core/paths.js";
import { explainCommand, ownFilesOf } from "./core/policy/index.js";
import type { PromptFn } from "./core/policy/types.js";
import { readJsonFileSync, watchFile } from "./core/store/index.js";
import { SettingsFileSchema } from "./core/settings.js";
import { SkillCatalogue } from "./core/skills/index.js";
import { bundledSkillsRoot } from "./core/skills/bundled-root.js";
import { checkTrustedHome } from "./core/io/trust.js";
import { taskClaudeHomes } from "./core/runtime/index.js";
import { TASK_BINDING_MAX_AGE_MS } from "./core/workdir/io/bindings.js";
import { WorkdirFatal, WorkdirService } from "./core/workdir/index.js";
import { createBackendCommands } from "./device/backend-command.js";
import { execEventBody } from "./device/exec-events.js";
import type { ConnectionTimings } from "./device/connection.js";
import { DeviceService } from "./device/device-service.js";
import { AuditLog } from "./executor/audit-log.js";
import { loadInheritSettings, type InheritSettings } from "./executor/env-sources.js";
import { UsageRecorder } from "./executor/usage-recorder.js";
import { decideFileAccess, fileGatePlaces } from "./executor/file-access.js";
import { decideToolCallGate } from "./executor/tool-gate.js";
import {
  decideCommand,
  DEFAULT_PROMPT_TIMEOUT_MS,
  gateAndRun,
  type ExecEvent,
  type GateDeps,
} from "./executor/gate.js";
import { defaultGatehouseCommand } from "./executor/tasks/gatehouse-command.js";
import type { DeviceFacts } from "./executor/tasks/deps.js";
import { TaskKeys } from "./executor/tasks/task-keys.js";
import type { ClaudeHttpHookPort, RunnerHookTask } from "./executor/tasks/deps.js";
import { HttpHookServer } from "./approval-server/http-hook.js";
import { honoursHttpHookBlock } from "./core/runtime/index.js";
import { decideRunnerHook } from "./cli/hook/runner-hook.js";
import { TaskRunner } from "./executor/tasks/task-runner.js";
import { sweepRuntimeFolders, sweepTaskClaudeHomes } from "./executor/tasks/task-files.js";
import { resolveAuthToken } from "./secrets/auth-token.js";
import { secretStoreFor, type SafeStorageLike, type SecretStore } from "./secrets/secret-store.js";
import { httpPackageDownloader } from "./device/package-download.js";
import { runWorkspaceCommand } from "./executor/workspace-files/workspace-files.js";
import { spawnPty } from "./executor/terminal/pty.js";
import { TerminalSessions } from "./executor/terminal/terminal-sessions.js";
import { startTerminal } from "./executor/terminal/terminal-service.js";
import { checkoutForTask } from "./executor/tasks/git-checkout.js";
import type { UpgradePort } from "./device/upgrade.js";

export interface ServicesOptions {
  env: Env;
  paths: AppPaths;
  logger: Logger;
  /** Who answers prompts besides the UI (which attaches later through `broker.attachUi()`): tty, ask-via, or none. */
  presenter?: Presenter | null;
  /** Where `exec.run` runs; the workdir resolver replaces the default (requested folder, else E/workspace). */
  cwdResolver?: CwdResolver;
  limits?: Partial<ServerLimits>;
  now?: () => number;
  onExecEvent?: (event: ExecEvent) => void;
  /**
   * Also build the device side — the workdir service, the skill catalogue, capability sync and the
   * backend connection — started and stopped with the rest (the tray app builds it; tests pass their
   * own secret store and short timings).
   */
  device?: DeviceOptions;
}

export interface DeviceOptions {
  /** Default: the OS keychain (GATEHOUSE_KEYCHAIN_SERVICE or `Gatehouse`), a 0600 file where none is reachable. */
  secrets?: SecretStore;
  /** Electron's safeStorage (the tray app): the default store's fallback file then holds sealed values. */
  safeStorage?: SafeStorageLike;
  timings?: Partial<ConnectionTimings>;
  /** Connect to the backend in start() (default true). */
  connect?: boolean;
  /** How agent tasks run `gatehouse hook claude` (absolute argv prefix; default: this installation's bin/gatehouse.js). */
  gatehouseCommand?: string[];
  /** SIGTERM → SIGKILL grace of a cancelled agent (default 3 s). */
  taskKillGraceMs?: number;
  /** What `device:upgrade` does: the tray app's updater (default: the headless runner cannot upgrade itself). */
  upgrade?: UpgradePort;
}

export type StartResult =
  | { status: "listening"; address: string; warnings: string[] }
  | { status: "in-use"; message: string }
  | { status: "refused"; message: string };

export interface Services {
  paths: AppPaths;
  approvals: ApprovalsStore;
  audit: AuditLog;
  broker: PromptBroker;
  approvalServer: ApprovalServer;
  /** The gate's dependencies without a prompt function (callers add the broker's, or null). */
  gateDeps: Omit<GateDeps, "prompt">;
  /** The device side (null unless `options.device` was given). */
  workdir: WorkdirService | null;
  skills: SkillCatalogue | null;
  capabilities: CapabilitySync | null;
  device: DeviceService | null;
  secrets: SecretStore | null;
  /** Agent tasks sent by the backend (`task:execute`): running list, onChange, stop from the UI. */
  tasks: TaskRunner | null;
  /** Terminals the backend opened: open list, onChange, close from the UI. */
  terminals: TerminalSessions | null;
  /** The provenance keys of the agent tasks running now (the approval server checks task proofs with them). */
  taskKeys: TaskKeys;
  /** The runner's HTTP hook for Claude Code tasks (issue 29): listening while the app runs. */
  httpHook: HttpHookServer<RunnerHookTask>;
  /** Whether the approval socket is listening now. */
  listening(): boolean;
  /** Creates the approvals file on first run and listens on the approval socket. */
  start(): Promise<StartResult>;
  /** Stops listening (removing the socket) and withdraws pending prompts. */
  stop(): Promise<void>;
}

export function createServices(options: ServicesOptions): Services {
  const { paths, logger } = options;
  const now = options.now ?? Date.now;
  // Decisions read the approvals file and settings through watches: no filesystem call per request.
  const approvals = new ApprovalsStore({
    path: paths.approvals,
    defaultSocketPath: paths.defaultSocket,
    now,
    watch: true,
  });
  const settingsWatch = watchFile(paths.settings);
  let inherit: Promise<InheritSettings> | null = null;
  const inheritSettings = () => {
    if (inherit === null || settingsWatch.changed()) inherit = loadInheritSettings(paths.settings);
    return inherit;
  };
  const audit = new AuditLog({ path: paths.audit });
  const broker = new PromptBroker({ now, maxPending: options.limits?.maxPendingPrompts ?? 32 });
  if (options.presenter) broker.attach(options.presenter);

  // Audit lines and last-used notes are written off the answer's path; stop() waits for them.
  const backgroundWork = new Set<Promise<void>>();
  const background = (work: Promise<void>) => {
    const tracked = work.catch((error: unknown) => logger.warn("background write failed", { error }));
    backgroundWork.add(tracked);
    void tracked.finally(() => backgroundWork.delete(tracked));
  };
  const usage = new UsageRecorder(approvals, logger.child("usage"), { now });
  // Decisions read lifetimes (entries' end times, elevated mode) on a clock that is never set back.
  const decisionNow = neverBackwards(now);
  const gateDeps: Omit<GateDeps, "prompt"> = {
    approvals,
    audit,
    baseEnv: options.env,
    settingsFile: paths.settings,
    ownFiles: ownFilesOf(paths),
    inheritSettings,
    home: paths.home,
    now: decisionNow,
    logger: logger.child("gate"),
    background,
    usage,
    ...(options.onExecEvent ? { onEvent: options.onExecEvent } : {}),
  };
  const gate: ApprovalGate = {
    explain: async (command, context) =>
      explainCommand(command, {
        ...context,
        env: options.env,
        home: paths.home,
        ownFiles: ownFilesOf(paths),
        approvals: await approvals.load(),
        now: decisionNow(),
      }),
    decide: (request, prompt) => decideCommand(request, { ...gateDeps, prompt }),
    decideFile: (request, prompt) =>
      decideFileAccess(
        request,
        fileGatePlaces(paths, options.env, side?.workdir.workspaceRoot ?? paths.defaultWorkspaceRoot),
        { ...gateDeps, prompt },
      ),
    decideTool: (request, prompt) => decideToolCallGate(request, { ...gateDeps, prompt }),
    run: (request, prompt, recheckCwd) =>
      gateAndRun(request, { ...gateDeps, prompt, ...(recheckCwd ? { recheckCwd } : {}) }),
  };

  // The device side owns the workdir service, which also decides where socket `exec.run`s run.
  // (Read by `gate.decideFile` at call time, after it is built here.)
  const taskKeys = new TaskKeys();
  // Claude Code's calls decided in-process (issue 29): the task's hook token proves who asks; the
  // handler is the approval socket's own `approval.request` (bound below, once it exists).
  let handlers: ReturnType<typeof createRequestHandlers> | null = null;
  const httpHook = new HttpHookServer<RunnerHookTask>({
    logger: logger.child("http-hook"),
    decide: (task, input, signal) =>
      decideRunnerHook(
        {
          paths,
          logger: logger.child("hook"),
          approvalRequest: (body, ctx) =>
            handlers?.["approval.request"]?.(body, ctx) ?? {
              error: "internal",
              message: "Gatehouse is starting",
            },
        },
        task,
        input,
        signal,
      ),
  });
  const side: DeviceSide | null = options.device
    ? createDeviceSide(options, options.device, gateDeps, broker, taskKeys, claudeHttpHookPort(httpHook))
    : null;
  const cwdResolver =
    options.cwdResolver ??
    (side ? workdirCwdResolver(side.workdir) : defaultCwdResolver(paths.defaultWorkspaceRoot, paths.home));

  const tokens = approvalsFileTokenSource(paths.approvals, logger.child("socket"));
  // A token rotated (or a file rewritten) by this process counts from the very next frame.
  approvals.onWrite(() => tokens.invalidate?.());
  const approvalServer = new ApprovalServer({
    executorHome: paths.executorHome,
    tokens,
    handlers: (handlers = createRequestHandlers({
      gate,
      broker,
      home: paths.home,
      defaultCwd: paths.defaultWorkspaceRoot,
      cwdResolver,
      skills: side?.skills ?? null,
    })),
    logger: logger.child("socket"),
    tasks: taskKeys.lookup,
    ...(options.limits ? { limits: options.limits } : {}),
    now,
  });

  let listening = false;

  return {
    paths,
    approvals,
    audit,
    broker,
    approvalServer,
    gateDeps,
    workdir: side?.workdir ?? null,
    skills: side?.skills ?? null,
    capabilities: side?.capabilities ?? null,
    device: side?.device ?? null,
    secrets: side?.secrets ?? null,
    tasks: side?.tasks ?? null,
    terminals: side?.terminals ?? null,
    taskKeys,
    httpHook,
    listening: () => listening,
    async start() {
      const warnings: string[] = [];
      // The home decides what runs: one another user could write is refused before anything is read.
      const untrusted = checkTrustedHome(paths.executorHome);
      if (untrusted) return { status: "refused", message: untrusted.message };
      const state = await approvals.ensure();
      if (state.status === "ok" && state.file.elevated) {
        // Elevated mode never outlives the run it was given in: a (re)start ends it.
        const ended = await approvals.endElevation();
        if (ended.length) logger.warn(`Elevated mode ended because Gatehouse started: ${ended.join(", ")}`);
      }
      if (state.status === "invalid") {
        // Kept as it is; decisions behave as deny until it is fixed (exec-policy.md).
        warnings.push(`${state.error} Every command is denied until it is fixed.`);
      }
      // The socket's address is the approvals file's `socket.path` (E/exec-approvals.sock unless changed).
      const address = socketAddress(state.status === "ok" ? state.file.socket.path : undefined, paths);
      const result: ListenResult = await approvalServer.listen(address);
      if (result.status !== "listening") return result;
      listening = true;
      for (const warning of warnings) logger.warn(warning);
      if (side) {
        // Before the backend connects: a task's first turn may use it.
        await httpHook.start();
        await side.start();
      }
      return { status: "listening", address: result.address, warnings };
    },
    async stop() {
      if (side) await side.stop();
      await httpHook.close();
      taskKeys.clear();
      broker.close();
      await approvalServer.close();
      await usage.idle();
      await Promise.all(backgroundWork);
      await audit.close();
      approvals.stopWatching();
      settingsWatch.close();
      listening = false;
    },
  };
}

interface DeviceSide {
  workdir: WorkdirService;
  skills: SkillCatalogue;
  capabilities: CapabilitySync;
  device: DeviceService;
  secrets: SecretStore;
  tasks: TaskRunner;
  terminals: TerminalSessions;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The device side of the app: workdirs, skills, capability sync, and the backend connection through the gate. */
function createDeviceSide(
  options: ServicesOptions,
  device: DeviceOptions,
  gateDeps: Omit<GateDeps, "prompt">,
  broker: PromptBroker,
  taskKeys: TaskKeys,
  claudeHttpHook: ClaudeHttpHookPort,
): DeviceSide {
  const { env, paths, logger } = options;
  const secrets =
    device.secrets ?? secretStoreFor(paths, env, logger, { safeStorage: device.safeStorage ?? null });
  const workdir = new WorkdirService({ paths, env, logger, ...(options.now ? { now: options.now } : {}) });
  const skills = new SkillCatalogue({
    paths,
    env,
    logger,
    secrets: { get: (ref) => secrets.get(ref), set: (ref, value) => secrets.set(ref, value) },
    bundledRoot: bundledSkillsRoot(),
  });
  let backendUrl: string | null = null;
  const capabilities = new CapabilitySync({
    download: httpPackageDownloader(),
    paths,
    backendUrl: () => backendUrl,
    deviceToken: async () => (await resolveAuthToken({ env, secrets, logger }))?.token ?? null,
    logger,
  });
  // Backend commands ask the same person as everything else; a full queue leaves it to askFallback.
  const prompt: PromptFn = (request, signal) =>
    broker.canAccept(request) ? broker.request(request, signal) : Promise.resolve({ decision: "timeout" });
  // Agent tasks (device-protocol.md §6.1–§6.4): blanks in a request are filled from the device config.
  const tasks: TaskRunner = new TaskRunner({
    paths,
    env,
    logger,
    workdir,
    skills,
    taskKeys,
    claudeHttpHook,
    gatehouseCommand: device.gatehouseCommand ?? defaultGatehouseCommand(),
    // A task's attachments: the capability packages' downloader, its limits and origin rule.
    downloadAttachment: httpPackageDownloader(),
    // A task's git_url: cloned through the exec policy as agent backend (git-checkout.ts).
    gitCheckout: (request) =>
      checkoutForTask(request, {
        gate: { ...gateDeps, prompt },
        workdir,
        logger: logger.child("git"),
        promptTimeoutMs: DEFAULT_PROMPT_TIMEOUT_MS,
      }),
    ...(device.taskKillGraceMs !== undefined ? { killGraceMs: device.taskKillGraceMs } : {}),
    ...(options.now ? { now: options.now } : {}),
    deviceFacts: async (): Promise<DeviceFacts> => {
      const loaded = await connection.loadConfig();
      if (!loaded.ok) throw new Error(loaded.error);
      const token = await resolveAuthToken({
        env,
        secrets,
        configToken: loaded.config.fileAuthToken,
        logger,
      });
      return {
        deviceId: loaded.config.deviceId,
        backendUrl: loaded.config.backendUrl ?? "",
        authToken: token?.token ?? null,
        maxConcurrentTasks: loaded.config.maxConcurrentTasks,
      };
    },
  });
  // Exec lifecycle events go to the backend only when the settings say so (read again when the file changes).
  const execEventsWatch = watchFile(paths.settings);
  let execEvents = false;
  const execEventsOn = (): boolean => {
    if (execEventsWatch.changed()) {
      const read = readJsonFileSync(paths.settings, SettingsFileSchema);
      execEvents = read.status === "ok" && read.value.device?.execEvents === true;
    }
    return execEvents;
  };
  // Terminals the backend opens (issue 31): decided by the gate, never outliving their connection.
  const terminals = new TerminalSessions({
    spawn: spawnPty,
    audit: gateDeps.audit,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  const terminalDeps = { sessions: terminals, workdir, gate: { ...gateDeps, prompt }, logger };
  const connection = new DeviceService({
    paths,
    env,
    secrets,
    logger,
    capabilities,
    tasks,
    ...(device.upgrade ? { upgrade: device.upgrade } : {}),
    terminals: {
      start: (request, owner) => startTerminal(request, owner, terminalDeps),
      attach: (id, owner) => terminals.attach(id, owner),
      input: (id, data, owner) => terminals.input(id, data, owner),
      resize: (id, rows, cols, owner) => terminals.resize(id, rows, cols, owner),
      close: (id, owner) => terminals.closeFromBackend(id, owner),
      connectionEnded: (owner) => terminals.ownerGone(owner),
    },
    // The web UI's file browser and editor: both sides' roots, the file gate's places, audited writes.
    workspaceFiles: {
      run: (command) =>
        runWorkspaceCommand(command, {
          workdir,
          places: () => fileGatePlaces(paths, env, workdir.workspaceRoot),
          env,
          audit: gateDeps.audit,
          logger: logger.child("workspace-files"),
          ...(options.now ? { now: options.now } : {}),
        }),
    },
    commands: createBackendCommands({
      runGated: ({ recheckCwd, ...request }) =>
        gateAndRun(request, {
          ...gateDeps,
          prompt,
          recheckCwd,
          // the backend hears how its command went (exec.started/finished/denied, docs/device-protocol-exec-events.md)
          // only when the person turned it on: no Wegent backend handles these, and they carry output
          onEvent: (event) => {
            gateDeps.onEvent?.(event);
            if (execEventsOn()) connection.emitEvent(event.type, execEventBody(event, request));
          },
        }),
      workdir,
      logger,
    }),
    ...(device.timings ? { timings: device.timings } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const refreshBackendUrl = async () => {
    const loaded = await connection.loadConfig().catch(() => null);
    backendUrl = loaded?.ok ? loaded.config.backendUrl : null;
  };
  // Package downloads resolve against the configured backend URL: re-read when the connection changes.
  let seen = "";
  const stopWatchingState = connection.onState((state) => {
    const key = `${state.state}|${state.backendUrl}`;
    if (key === seen) return;
    seen = key;
    void refreshBackendUrl();
  });
  return {
    workdir,
    skills,
    capabilities,
    device: connection,
    secrets,
    tasks,
    terminals,
    async start() {
      // No agent runs yet: task tokens left in E/runtime by a crash or a kill go now, and so do the
      // Claude folders of tasks nobody has used for as long as their workdir bindings are kept.
      await sweepRuntimeFolders(paths.runtimeDir, logger);
      await sweepTaskClaudeHomes(
        taskClaudeHomes(paths),
        (options.now ?? Date.now)(),
        TASK_BINDING_MAX_AGE_MS,
        logger,
      );
      await workdir.init();
      // The live catalogue (skills.md §11): skill edits, settings, syncs and `skills rescan` reach the
      // next task; a running turn keeps its snapshot.
      skills.watch(() => {});
      await skills.watchReady();
      await capabilities.startup();
      if (device.connect !== false) await connection.start();
    },
    async stop() {
      stopWatchingState();
      // Running agents are stopped first; their results reach the backend now, or after the next start.
      await tasks.shutdown();
      await terminals.shutdown();
      execEventsWatch.close();
      await connection.stop();
      await connection.idle();
      await skills.stopWatching();
    },
  };
}

/** Socket `exec.run`: the session's workdir (workdir.md), with the re-check right before the spawn. */
function workdirCwdResolver(workdir: WorkdirService): CwdResolver {
  return async (sessionKey, requestedCwd) => {
    try {
      const resolution = await workdir.resolveForSession(sessionKey, requestedCwd ?? null);
      return {
        ok: true,
        cwd: resolution.cwd,
        fallback: resolution.fallback,
        recheck: () => workdir.recheckForSpawn(resolution),
      };
    } catch (error) {
      if (error instanceof WorkdirFatal) return { ok: false, message: error.message };
      throw error;
    }
  };
}

/**
 * Claude Code turns through the runner's HTTP hook when the CLI blocks a call whose hook fails (issue 29);
 * else the command hook, with the reason for the task's progress.
 */
function claudeHttpHookPort(server: HttpHookServer<RunnerHookTask>): ClaudeHttpHookPort {
  return {
    // the version the task's support check read (agent-cli-probe.ts)
    async grantFor(version) {
      if (!honoursHttpHookBlock(version))
        return {
          ok: false,
          why: `Gatehouse gates this turn with its command hook (slower): Claude Code ${version ?? "of an unknown version"} does not block a tool call when an HTTP hook fails, so the faster HTTP hook would not keep the gate closed.`,
        };
      if (server.origin === null)
        return {
          ok: false,
          why: "Gatehouse gates this turn with its command hook: its HTTP hook is not serving.",
        };
      return { ok: true, grant: server.grant() };
    },
  };
}
