// The reconnect loop (device-protocol.md §2–§4): connect → register → heartbeat until failure → tear
// down → wait → repeat. One loop owns the connection; a new Socket.IO client is made per attempt and
// nothing queued on an old one is ever re-sent.
import { io, type Socket } from "socket.io-client";
import type { Logger } from "../core/log.js";
import { socketTarget, type SocketTarget } from "./backend-url.js";
import type { DeviceConfig, DeviceConfigResult } from "./config.js";
import type { TaskEventSink } from "./deps.js";
import { heartbeatError, registrationAccepted, SIGN_IN_REFUSALS } from "./event-schemas.js";
import {
  DEFAULT_FRAME_BUDGET,
  guardBackendFrames,
  shortText,
  transportLimitBytes,
  type FrameBudget,
} from "./frame-budget.js";
import { RUNTIME_FEATURES, type HeartbeatPayload } from "./heartbeat-payload.js";
import { memoryOutbox, type TerminalOutbox } from "./terminal-outbox.js";
import type { ConnectionState } from "../shared/schemas/connection.js";

export interface ConnectionTimings {
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  connectTimeoutMs: number;
  registerTimeoutMs: number;
}

export const DEFAULT_TIMINGS: ConnectionTimings = {
  heartbeatIntervalMs: 30_000,
  heartbeatTimeoutMs: 30_000,
  backoffBaseMs: 1_000,
  backoffCapMs: 30_000,
  connectTimeoutMs: 10_000,
  registerTimeoutMs: 10_000,
};

export type { ConnectionState, ConnectionStateName } from "../shared/schemas/connection.js";

/** One connected client, handed to the event handlers. */
export interface LiveSession {
  readonly socket: Socket;
  readonly config: DeviceConfig;
  /** `client_ip` / `runtime_transfer_host` of this attempt. */
  readonly transferHost: string;
  /** Sends one heartbeat with the failure accounting of §4; resolves false on failure. */
  heartbeat(): Promise<boolean>;
  /** False once the session is being torn down. */
  isLive(): boolean;
  /** Called once when this connection ends (what it opened, terminals, must not outlive it). */
  onEnd(listener: () => void): void;
}

export interface SocketOptions {
  path: string;
  transports: ["websocket"];
  reconnection: false;
  forceNew: true;
  autoConnect: false;
  auth: { token: string };
  /** The WebSocket refuses a message larger than this many bytes (the frame budget, on the wire). */
  maxPayload: number;
}

export interface ConnectionDeps {
  loadConfig(): Promise<DeviceConfigResult>;
  resolveToken(config: DeviceConfig): Promise<string | null>;
  heartbeatPayload(session: LiveSession): Promise<HeartbeatPayload>;
  /** Registers the §6 event handlers on a new client, before `connect()`. */
  attachHandlers(socket: Socket, session: LiveSession): void;
  clientIp(host: string, port: number): Promise<string>;
  executorVersion: string;
  timings?: Partial<ConnectionTimings>;
  now?: () => number;
  logger: Logger;
  /** Default: socket.io-client's `io`. */
  createSocket?: (url: string, options: SocketOptions) => Socket;
  /** Where terminal task events wait while the device is not registered (default: in memory). */
  terminalOutbox?: TerminalOutbox;
  /** Limits on every frame the backend sends (default `DEFAULT_FRAME_BUDGET`). */
  frameBudget?: FrameBudget;
}

interface SessionOutcome {
  /** The register ack was a success (resets the backoff). */
  registrationAccepted: boolean;
  /** Registration and its first heartbeat succeeded. */
  succeeded: boolean;
  error: string | null;
  signInRequired: boolean;
}

interface SessionInternals extends LiveSession {
  registered: boolean;
  closed: boolean;
  failures: number;
  end(reason: string): void;
  ended: Promise<string>;
}

const STOPPED = "Connection stopped";

export class DeviceConnection {
  readonly timings: ConnectionTimings;
  readonly taskEvents: TaskEventSink;
  private readonly now: () => number;
  private readonly logger: Logger;
  private current: ConnectionState = {
    state: "unconfigured",
    backendUrl: null,
    deviceId: null,
    deviceName: null,
    lastError: null,
    lastHeartbeatAt: null,
    registeredAt: null,
    nextRetryAt: null,
  };
  private readonly listeners = new Set<(state: ConnectionState) => void>();
  private loop: { controller: AbortController; done: Promise<void> } | null = null;
  private control: Promise<void> = Promise.resolve();
  private session: SessionInternals | null = null;
  private readonly outbox: TerminalOutbox;
  private paused = false;

  constructor(private readonly deps: ConnectionDeps) {
    this.timings = { ...DEFAULT_TIMINGS, ...deps.timings };
    this.now = deps.now ?? Date.now;
    this.logger = deps.logger.child("device");
    this.outbox = deps.terminalOutbox ?? memoryOutbox();
    this.taskEvents = {
      emit: (eventType, raw, options) => {
        // Leaves the process (to the backend, or to E/outbox first): redacted once, here.
        const body = this.logger.redact(raw);
        const session = this.session;
        if (session?.registered && !session.closed && session.socket.connected) {
          session.socket.emit(eventType, body);
        } else if (options?.terminal) {
          this.outbox.keep(eventType, body);
        }
      },
    };
  }

  state(): ConnectionState {
    return { ...this.current };
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): Promise<void> {
    return this.serial(async () => {
      if (!this.paused && !this.loopRunning()) this.launch();
    });
  }

  stop(): Promise<void> {
    return this.serial(() => this.halt());
  }

  pause(): Promise<void> {
    return this.serial(async () => {
      this.paused = true;
      await this.halt();
      this.set({ state: "paused", nextRetryAt: null });
    });
  }

  resume(): Promise<void> {
    return this.serial(async () => {
      if (!this.paused && this.loopRunning()) return;
      this.paused = false;
      await this.halt();
      this.launch();
    });
  }

  /** A new token (or backend URL) was saved: leave sign-in-required and dial again at once. */
  tokenChanged(): Promise<void> {
    return this.serial(async () => {
      if (this.paused) return;
      await this.halt();
      this.launch();
    });
  }

  /** The computer woke up (powerMonitor `resume`): end the current connection and dial at once. */
  systemResumed(): Promise<void> {
    return this.tokenChanged();
  }

  // ---- loop ----------------------------------------------------------------------------------

  private serial(fn: () => Promise<void>): Promise<void> {
    const next = this.control.then(fn, fn);
    this.control = next.catch(() => undefined);
    return next;
  }

  private loopRunning(): boolean {
    return this.loop !== null && !this.loop.controller.signal.aborted;
  }

  private launch(): void {
    const controller = new AbortController();
    const done = this.run(controller.signal).catch((error: unknown) => {
      this.logger.error("The connection loop failed", { error });
      this.set({ state: "offline", lastError: (error as Error).message, nextRetryAt: null });
    });
    this.loop = { controller, done };
  }

  private async halt(): Promise<void> {
    const loop = this.loop;
    if (!loop) return;
    loop.controller.abort();
    await loop.done;
    if (this.loop === loop) this.loop = null;
    // Nothing is connected any more: never leave a stale "registered" behind.
    if (this.current.state === "registered" || this.current.state === "connecting") {
      this.set({ state: "offline", nextRetryAt: null });
    }
  }

  private set(patch: Partial<ConnectionState>): void {
    // The state is shown everywhere (status file, UI, tray, logs): a backend's echo of the token in
    // an error is redacted at the source.
    const next = this.logger.redact({ ...this.current, ...patch });
    const changed = (Object.keys(next) as Array<keyof ConnectionState>).some(
      (k) => next[k] !== this.current[k],
    );
    if (!changed) return;
    this.current = next;
    for (const listener of this.listeners) {
      try {
        listener({ ...next });
      } catch (error) {
        this.logger.error("A connection state listener failed", { error });
      }
    }
  }

  private iso(ms: number): string {
    return new Date(ms).toISOString();
  }

  private async run(signal: AbortSignal): Promise<void> {
    let wait = this.timings.backoffBaseMs;
    while (!signal.aborted) {
      const loaded = await this.deps.loadConfig();
      if (signal.aborted) return;
      if (!loaded.ok) {
        this.logger.warn(loaded.error);
        this.set({ state: "unconfigured", lastError: loaded.error, nextRetryAt: null });
        return;
      }
      const config = loaded.config;
      const identity = {
        backendUrl: config.socketUrl ?? config.backendUrl,
        deviceId: config.deviceId,
        deviceName: config.deviceName,
      };
      const target = socketTarget(config);
      if (!target.ok) {
        this.set({ ...identity, state: "unconfigured", lastError: target.error, nextRetryAt: null });
        return;
      }
      let token: string | null;
      try {
        token = await this.deps.resolveToken(config);
      } catch (error) {
        this.set({
          ...identity,
          state: "unconfigured",
          lastError: (error as Error).message,
          nextRetryAt: null,
        });
        return;
      }
      if (signal.aborted) return;
      if (!token) {
        this.set({
          ...identity,
          state: "unconfigured",
          lastError: "No auth token configured",
          nextRetryAt: null,
        });
        return;
      }

      this.set({ ...identity, state: "connecting", nextRetryAt: null });
      // Whatever goes wrong inside one attempt ends that attempt, never the loop.
      const outcome = await this.runSession(config, target.target, token, signal).catch(
        (error: unknown): SessionOutcome => {
          this.logger.error("A connection attempt failed unexpectedly", { error });
          const message = `connection attempt failed: ${(error as Error).message}`;
          return { registrationAccepted: false, succeeded: false, error: message, signInRequired: false };
        },
      );
      if (signal.aborted) return;
      if (outcome.signInRequired) {
        this.logger.warn(`The backend refused the token: ${outcome.error}. Sign in again to reconnect.`);
        this.set({ state: "sign-in-required", lastError: outcome.error, nextRetryAt: null });
        return;
      }
      if (outcome.registrationAccepted) wait = this.timings.backoffBaseMs;
      const delay = wait;
      if (!outcome.succeeded) wait = Math.min(wait * 2, this.timings.backoffCapMs);
      this.logger.info(`Disconnected (${outcome.error ?? "no reason"}); reconnecting in ${delay} ms`);
      this.set({ state: "offline", lastError: outcome.error, nextRetryAt: this.iso(this.now() + delay) });
      await sleep(delay, signal);
    }
  }

  private async runSession(
    config: DeviceConfig,
    target: SocketTarget,
    token: string,
    signal: AbortSignal,
  ): Promise<SessionOutcome> {
    const transferHost = await this.deps.clientIp(target.host, target.port);
    const createSocket =
      this.deps.createSocket ?? ((url: string, options: SocketOptions) => io(url, options));
    const budget = this.deps.frameBudget ?? DEFAULT_FRAME_BUDGET;
    const socket = createSocket(target.namespaceUrl, {
      path: target.path,
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      autoConnect: false,
      auth: { token },
      maxPayload: transportLimitBytes(budget),
    });
    try {
      guardBackendFrames(socket, budget);
    } catch (error) {
      socket.disconnect();
      throw error;
    }

    let endSession!: (reason: string) => void;
    const ended = new Promise<string>((resolve) => (endSession = resolve));
    const endListeners: Array<() => void> = [];
    const session: SessionInternals = {
      socket,
      config,
      transferHost,
      registered: false,
      closed: false,
      failures: 0,
      ended,
      end: (reason) => endSession(reason),
      isLive: () => !session.closed,
      heartbeat: () => this.heartbeat(session),
      onEnd: (listener) => void endListeners.push(listener),
    };
    const onAbort = () => session.end(STOPPED);
    signal.addEventListener("abort", onAbort);
    if (signal.aborted) session.end(STOPPED);
    this.session = session;
    let heartbeatTimer: NodeJS.Timeout | undefined;
    const fail = (error: string, registrationAccepted = false): SessionOutcome => ({
      registrationAccepted,
      succeeded: false,
      error,
      signInRequired: SIGN_IN_REFUSALS.has(error),
    });

    try {
      socket.on("disconnect", (reason: string) => session.end(`Disconnected from backend (${reason})`));
      this.deps.attachHandlers(socket, session);

      const connected = await new Promise<{ ok: true } | { ok: false; error: string }>((resolve) => {
        const timer = setTimeout(
          () => resolve({ ok: false, error: "Socket.IO namespace connection timed out" }),
          this.timings.connectTimeoutMs,
        );
        const settle = (result: { ok: true } | { ok: false; error: string }) => {
          clearTimeout(timer);
          resolve(result);
        };
        socket.once("connect", () => settle({ ok: true }));
        socket.once("connect_error", (error: Error) =>
          settle({ ok: false, error: shortText(String(error.message)) }),
        );
        void ended.then((reason) => settle({ ok: false, error: reason }));
        socket.connect();
      });
      if (!connected.ok) return fail(connected.error);

      const registerPayload = {
        device_id: config.deviceId,
        runtime_instance_id: config.runtimeInstanceId,
        name: config.deviceName,
        device_type: config.deviceType,
        bind_shell: config.bindShell,
        executor_version: this.deps.executorVersion.slice(0, 50),
        client_ip: transferHost,
        runtime_transfer_host: transferHost,
        app_device_id: "",
        // Wegent's runtime feature report, with only what Gatehouse has: no managed worktrees.
        runtime_features: { ...RUNTIME_FEATURES },
      };
      const registered = await raceEnded(
        socket
          .timeout(this.timings.registerTimeoutMs)
          .emitWithAck("device:register", this.logger.redact(registerPayload)),
        ended,
      );
      if (registered.kind === "ended") return fail(registered.reason);
      if (registered.kind === "error") return fail("device:register timed out");
      const verdict = registrationAccepted(registered.value);
      if (!verdict.ok) {
        const message = "device registration was rejected by backend";
        return fail(verdict.error ? `${message}: ${verdict.error}` : message);
      }

      session.registered = true;
      this.logger.info(`Registered as ${config.deviceId} with ${target.base}`);
      this.set({
        state: "registered",
        registeredAt: this.iso(this.now()),
        lastError: null,
        nextRetryAt: null,
      });
      this.flushTerminalEvents(session);
      if (!(await session.heartbeat()))
        return fail(this.current.lastError ?? "device:heartbeat failed", true);

      const tick = async () => {
        if (session.closed) return;
        await session.heartbeat().catch((error: unknown) => {
          this.logger.error("A heartbeat failed unexpectedly", { error });
          session.end(`heartbeat failed: ${(error as Error).message}`);
        });
        if (!session.closed) heartbeatTimer = setTimeout(() => void tick(), this.timings.heartbeatIntervalMs);
      };
      heartbeatTimer = setTimeout(() => void tick(), this.timings.heartbeatIntervalMs);
      const reason = await ended;
      return {
        registrationAccepted: true,
        succeeded: true,
        error: reason === STOPPED ? null : reason,
        signInRequired: false,
      };
    } finally {
      session.closed = true;
      session.end(STOPPED);
      clearTimeout(heartbeatTimer);
      signal.removeEventListener("abort", onAbort);
      if (this.session === session) this.session = null;
      socket.offAny();
      socket.removeAllListeners();
      socket.disconnect();
      for (const listener of endListeners.splice(0)) {
        try {
          listener();
        } catch (error) {
          this.logger.error("A connection end listener failed", { error });
        }
      }
    }
  }

  private flushTerminalEvents(session: SessionInternals): void {
    this.outbox.flush((eventType, body) => session.socket.emit(eventType, body));
  }

  private async heartbeat(session: SessionInternals): Promise<boolean> {
    if (session.closed) return false;
    const failed = (reason: string): boolean => {
      if (session.closed) return false;
      session.failures += 1;
      this.logger.warn(`Heartbeat failed: ${reason}`, { consecutiveFailures: session.failures });
      this.set({ lastError: reason });
      if (session.failures >= 2) session.end(`${reason} (two heartbeats failed in a row)`);
      return false;
    };
    // A heartbeat is never buffered: socket.io would queue it and send a stale one later.
    if (!session.socket.connected) return failed("socket is not connected");
    let payload: HeartbeatPayload;
    try {
      payload = await this.deps.heartbeatPayload(session);
    } catch (error) {
      return failed(`could not build the heartbeat: ${(error as Error).message}`);
    }
    if (session.closed) return false;
    if (!session.socket.connected) return failed("socket is not connected");
    const result = await raceEnded(
      session.socket
        .timeout(this.timings.heartbeatTimeoutMs)
        .emitWithAck("device:heartbeat", this.logger.redact(payload)),
      session.ended,
    );
    if (result.kind === "ended") return false;
    if (result.kind === "error") return failed("device:heartbeat timed out");
    const error = heartbeatError(result.value);
    if (error) return failed(error);
    session.failures = 0;
    this.set({
      lastHeartbeatAt: this.iso(this.now()),
      ...(this.current.lastError ? { lastError: null } : {}),
    });
    return true;
  }
}

type Raced<T> =
  { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "ended"; reason: string };

function raceEnded<T>(promise: Promise<T>, ended: Promise<string>): Promise<Raced<T>> {
  return Promise.race([
    promise.then(
      (value): Raced<T> => ({ kind: "value", value }),
      (error: unknown): Raced<T> => ({ kind: "error", error }),
    ),
    ended.then((reason): Raced<T> => ({ kind: "ended", reason })),
  ]);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
