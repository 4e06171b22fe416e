// The device as one service for the composition root (src/services.ts): configuration, token,
// connection loop, event handlers, heartbeat payload and the status file, wired together.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Logger } from "../core/log.js";
import type { AppPaths, Env } from "../core/paths.js";
import { resolveAuthToken } from "../secrets/auth-token.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { APP_VERSION } from "../version.js";
import { localAddressToward } from "./client-ip.js";
import { loadDeviceConfig, type DeviceConfig, type DeviceConfigResult } from "./config.js";
import {
  DeviceConnection,
  type ConnectionDeps,
  type ConnectionState,
  type ConnectionTimings,
} from "./connection.js";
import type {
  CapabilitiesPort,
  CommandPort,
  TaskRegistry,
  TerminalPort,
  WorkspaceFilesPort,
} from "./deps.js";
import { attachEventHandlers } from "./event-handlers.js";
import { buildHeartbeatPayload, EMPTY_CAPABILITY_REPORT } from "./heartbeat-payload.js";
import { watchCredentials } from "./credentials-signal.js";
import { createIdleTaskRegistry } from "./idle-task-registry.js";
import { createStatusWriter, type StatusWriter } from "./status-file.js";
import { DiskOutbox, outboxDir } from "./terminal-outbox.js";
import { headlessUpgradePort, UpgradeHandler, type UpgradePort } from "./upgrade.js";

export interface DeviceServiceOptions {
  paths: AppPaths;
  env: Env;
  secrets: SecretStore;
  logger: Logger;
  capabilities: CapabilitiesPort;
  commands: CommandPort;
  /** The `workspace_*` commands of `device:execute_command` (absent: refused with an answer). */
  workspaceFiles?: WorkspaceFilesPort;
  /** Terminal sessions (absent: `device:start_terminal_session` is refused with an answer). */
  terminals?: TerminalPort;
  /** What `device:upgrade` does (default: the headless runner's answer, that it cannot upgrade itself). */
  upgrade?: UpgradePort;
  /** Default: the idle registry (no task runner yet; cancels remembered, close-session acked). */
  tasks?: TaskRegistry;
  now?: () => number;
  timings?: Partial<ConnectionTimings>;
  /** Default: the local address of a UDP socket toward the backend. */
  clientIp?: (host: string, port: number) => Promise<string>;
  executorVersion?: string;
  platform?: NodeJS.Platform;
  /** Write `E/status.json` on every change (default true). */
  writeStatusFile?: boolean;
  /**
   * Re-read the token and backend URL when `gatehouse login`/`logout` (another process) signals a
   * change or device-config.json changes (default true).
   */
  watchCredentials?: boolean;
  /** Test seam: replaces socket.io-client's `io`. */
  createSocket?: ConnectionDeps["createSocket"];
  /** Limits on every frame the backend sends (default `DEFAULT_FRAME_BUDGET`). */
  frameBudget?: ConnectionDeps["frameBudget"];
}

export class DeviceService {
  private readonly connection: DeviceConnection;
  private readonly status: StatusWriter | null;
  private readonly tasks: TaskRegistry;
  /** Terminal task events waiting for the backend, on disk in E/outbox (device-protocol.md §6.2). */
  readonly outbox: DiskOutbox;
  private outboxLoaded: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Map<Promise<unknown>, "sync" | "command" | "session">();
  private readonly upgrades = new UpgradeHandler();
  private stopWatching: (() => void) | null = null;
  /** What the current attempt dialled with (hashed), to tell a real credentials change from noise. */
  private dialledWith: string | null = null;
  /** What the last credentials check found (while nothing was dialled yet). */
  private lastSeenCredentials: string | null = null;

  constructor(private readonly options: DeviceServiceOptions) {
    const logger = options.logger;
    this.tasks =
      options.tasks ?? createIdleTaskRegistry({ logger, ...(options.now ? { now: options.now } : {}) });
    this.status =
      options.writeStatusFile === false
        ? null
        : createStatusWriter({ paths: options.paths, logger, ...(options.now ? { now: options.now } : {}) });
    const codexAuth = path.join(options.paths.codexHome, "auth.json");
    this.outbox = new DiskOutbox(outboxDir(options.paths.executorHome), {
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    this.connection = new DeviceConnection({
      logger,
      terminalOutbox: this.outbox,
      executorVersion: options.executorVersion ?? APP_VERSION,
      ...(options.timings ? { timings: options.timings } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.createSocket ? { createSocket: options.createSocket } : {}),
      ...(options.frameBudget ? { frameBudget: options.frameBudget } : {}),
      loadConfig: () => this.loadConfig(),
      resolveToken: async (config) => {
        const token = await this.resolveToken(config);
        this.dialledWith = fingerprint(config, token);
        return token;
      },
      clientIp: options.clientIp ?? ((host, port) => localAddressToward(host, port)),
      heartbeatPayload: async (session) => {
        let capabilities = EMPTY_CAPABILITY_REPORT;
        try {
          capabilities = await options.capabilities.report();
        } catch (error) {
          logger.warn(
            `Could not build the capability report; sending the empty one: ${(error as Error).message}`,
          );
        }
        return buildHeartbeatPayload({
          deviceId: session.config.deviceId,
          runtimeInstanceId: session.config.runtimeInstanceId,
          executorVersion: options.executorVersion ?? APP_VERSION,
          transferHost: session.transferHost,
          maxConcurrentTasks: session.config.maxConcurrentTasks,
          tasks: this.tasks.snapshot(),
          codexAuth: { targetPath: codexAuth, exists: existsSync(codexAuth) }, // no thread-pool round trip on an idle heartbeat
          capabilities,
        });
      },
      attachHandlers: (socket, session) =>
        attachEventHandlers(socket, session, {
          capabilities: options.capabilities,
          commands: options.commands,
          ...(options.workspaceFiles ? { workspaceFiles: options.workspaceFiles } : {}),
          ...(options.terminals ? { terminals: options.terminals } : {}),
          upgrade: {
            port: options.upgrade ?? headlessUpgradePort(options.executorVersion ?? APP_VERSION),
            handler: this.upgrades,
          },
          tasks: this.tasks,
          taskEvents: this.connection.taskEvents,
          logger,
          track: (kind, work) => {
            this.inFlight.set(work, kind);
            void work.finally(() => this.inFlight.delete(work));
          },
        }),
    });
  }

  private async resolveToken(config: DeviceConfig): Promise<string | null> {
    const found = await resolveAuthToken({
      env: this.options.env,
      secrets: this.options.secrets,
      configToken: config.fileAuthToken,
      logger: this.options.logger,
    });
    return found?.token ?? null;
  }

  /** A login/logout elsewhere, or an edited device-config.json: reconnect only if what we dial changed. */
  private async credentialsMayHaveChanged(): Promise<void> {
    const state = this.connection.state().state;
    if (state === "paused") return;
    const current = await this.credentialsFingerprint();
    // Unconfigured: only a change of what we would dial counts (the file also changes when generated ids
    // are saved at start-up). Sign-in required: any signal retries, even a token saved again.
    const previous = this.dialledWith ?? this.lastSeenCredentials;
    this.lastSeenCredentials = current;
    if (current !== previous || state === "sign-in-required") {
      this.options.logger.info("The backend token or URL changed; reconnecting");
      await this.tokenChanged();
    }
  }

  /** A hash of what the next attempt would dial with (URL, ids, token), or of why it cannot. */
  private async credentialsFingerprint(): Promise<string> {
    try {
      const loaded = await this.loadConfig();
      return loaded.ok
        ? fingerprint(loaded.config, await this.resolveToken(loaded.config))
        : `invalid:${loaded.error}`;
    } catch (error) {
      return `error:${(error as Error).message}`;
    }
  }

  /** The configuration the next attempt will use (file + generated ids + environment). */
  loadConfig(): Promise<DeviceConfigResult> {
    return loadDeviceConfig({
      paths: this.options.paths,
      env: this.options.env,
      ...(this.options.platform ? { platform: this.options.platform } : {}),
    });
  }

  async start(): Promise<void> {
    // Task results kept by an earlier run go out after the first registration (exactly once).
    this.outboxLoaded ??= this.outbox
      .load()
      .catch((error: unknown) =>
        this.options.logger.error(`Cannot read the kept task results: ${(error as Error).message}`),
      );
    await this.outboxLoaded;
    if (!this.stopWatching && this.options.watchCredentials !== false) {
      this.lastSeenCredentials ??= await this.credentialsFingerprint();
      this.stopWatching = watchCredentials(this.options.paths, () => void this.credentialsMayHaveChanged(), {
        onError: (error) =>
          this.options.logger.warn(`Cannot watch ${this.options.paths.executorHome}: ${error.message}`),
      });
    }
    if (!this.unsubscribe && this.status) {
      const status = this.status;
      this.unsubscribe = this.connection.onState((state) => status.write(state));
      status.write(this.connection.state());
    }
    await this.connection.start();
  }

  /**
   * Disconnects. A capability sync still downloading is cancelled (nothing changed); one already
   * applying is waited for, so no store write is cut short.
   */
  async stop(): Promise<void> {
    this.stopWatching?.();
    this.stopWatching = null;
    this.options.capabilities.cancel?.();
    await this.connection.stop();
    await this.idle("sync");
    await this.outbox.idle();
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.status) {
      this.status.write(this.connection.state(), false);
      await this.status.flush();
    }
  }

  pause(): Promise<void> {
    return this.connection.pause();
  }

  resume(): Promise<void> {
    return this.connection.resume();
  }

  /** Call after `gatehouse login` (or the UI) saved a new token or backend URL. */
  tokenChanged(): Promise<void> {
    return this.connection.tokenChanged();
  }

  /** Call on the OS resume event (powerMonitor `resume`): reconnect at once. */
  systemResumed(): Promise<void> {
    return this.connection.systemResumed();
  }

  /** An event to the backend outside a task's stream (exec events); redacted, dropped while offline. */
  emitEvent(eventType: string, body: Record<string, unknown>): void {
    this.connection.taskEvents.emit(eventType, body);
  }

  state(): ConnectionState {
    return this.connection.state();
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    return this.connection.onState(listener);
  }

  /** Resolves once the handler work of that kind (all kinds by default) started so far has finished. */
  async idle(kind?: "sync" | "command" | "session"): Promise<void> {
    const pending = [...this.inFlight].filter(([, k]) => !kind || k === kind).map(([work]) => work);
    await Promise.allSettled(pending);
  }

  /** Resolves once the status file holds the latest state (tests, shutdown). */
  async flushStatus(): Promise<void> {
    await this.status?.flush();
  }
}

function fingerprint(config: DeviceConfig, token: string | null): string {
  const parts = [
    config.backendUrl,
    config.socketUrl,
    config.deviceId,
    config.deviceName,
    config.deviceType,
    token,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
