// A real Wegent-compatible test backend: a Socket.IO server with the `/local-executor` namespace
// (token auth with Wegent's refusal messages, `device:register`, `device:heartbeat` with Wegent's
// checks, backend → device calls), the REST capability-sync endpoint and package downloads, on one
// HTTP origin. It records every event a device emits, in order, so tests assert on what the backend saw.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server, type Namespace, type Socket } from "socket.io";
import { makeZip } from "./zip.js";
import { startPackageServer, type PackageServer } from "./package-server.js";
import { defaultCatalogue, type Catalogue, type InstalledIds } from "./catalogue.js";
import { handleRestRequest } from "./rest.js";
import {
  jsonPostProcessor,
  SOCKET_ACK_GRACE_SECONDS,
  workspaceCommandPayload,
  type WorkspaceCommandOptions,
} from "./device-commands.js";
import { TerminalRelay, type StartTerminalOptions } from "./terminal-relay.js";

export interface CapturedEvent {
  event: string;
  /** The first argument (the payload); ack callbacks are not captured. */
  payload: unknown;
  deviceId: string | null;
  socketId: string;
  at: number;
}

export interface DeviceRecord {
  deviceId: string;
  socket: Socket | null;
  registration: Record<string, unknown>;
  registrations: number;
  registeredAt: number;
  heartbeats: Record<string, unknown>[];
  /** The last heartbeat's `capabilities`, stored only when `full` is true (as Wegent does). */
  lastReport: Record<string, unknown> | null;
  /** Acks of `device:sync_capabilities` calls, in order. */
  syncAcks: unknown[];
}

/** What a misbehaving reply may use: the token the device connected with (to echo it back, say). */
export interface ReplyContext {
  token: string;
}

/** Knobs a test turns to make the backend misbehave the ways real backends do. */
export interface BackendBehaviour {
  /** Refuse every connection with this `connect_error` message (a function gets the device's token). */
  refuseAuth: string | ((context: ReplyContext) => string) | null;
  /** Replaces the register ack; `"ignore"` sends none (the device times out). */
  registerReply: ((payload: unknown, context: ReplyContext) => unknown) | "ignore" | null;
  /** Replaces the heartbeat ack; `"ignore"` sends none. */
  heartbeatReply: ((payload: unknown, context: ReplyContext) => unknown) | "ignore" | null;
  /**
   * Replaces the heartbeat ack with this JSON text, written to the wire as it is: a hostile backend's
   * reply that socket.io's own encoder could not even produce (a 50 000-deep array).
   */
  heartbeatRawReply: string | null;
  /** Call `device:sync_capabilities` (replace, the installed set) after every registration. */
  syncOnRegister: boolean;
}

export interface TestBackendOptions {
  token?: string;
  host?: string;
  /** 0 (default) picks a free port; a restart reuses the first port. */
  port?: number;
  catalogue?: Catalogue;
  /** What the user has installed on the backend: sent by the replace sync after each registration. */
  installed?: InstalledIds;
  /**
   * Hand out packages as absolute URLs on a second, presigned-style origin (no auth, like object
   * storage) instead of backend-relative paths.
   */
  presigned?: boolean;
  log?: (line: string) => void;
}

export interface PackageFile {
  bytes: Buffer;
  sha256: string;
}

export class TestBackend {
  readonly token: string;
  readonly host: string;
  port: number;
  readonly catalogue: Catalogue;
  installed: InstalledIds;
  readonly events: CapturedEvent[] = [];
  readonly behaviour: BackendBehaviour = {
    refuseAuth: null,
    registerReply: null,
    heartbeatReply: null,
    heartbeatRawReply: null,
    syncOnRegister: true,
  };
  /** Every connection attempt that reached the namespace middleware. */
  connectionAttempts = 0;
  readonly skillPackages = new Map<number, PackageFile>();
  readonly pluginPackages = new Map<number, PackageFile>();
  /** Serves the package bytes (package-server.ts); this origin proxies its routes. */
  packages: PackageServer | null = null;
  /** Web terminals: the backend's session records and what each browser received. */
  readonly terminals = new TerminalRelay(
    (deviceId, event, payload, timeoutMs) => this.call(deviceId, event, payload, timeoutMs),
    (deviceId, event, payload) => this.send(deviceId, event, payload),
  );
  private readonly devices = new Map<string, DeviceRecord>();
  private rawIds = 0;
  /** Per socket: the ack ids of heartbeats read off the raw frames, in arrival order. */
  private readonly heartbeatAckIds = new WeakMap<Socket, number[]>();
  private http: http.Server | null = null;
  private io: Server | null = null;
  private readonly log: (line: string) => void;

  constructor(private readonly options: TestBackendOptions = {}) {
    this.token = options.token ?? "test-token";
    this.host = options.host ?? "127.0.0.1";
    this.port = options.port ?? 0;
    this.catalogue = options.catalogue ?? defaultCatalogue();
    this.installed = options.installed ?? { skills: [], plugins: [], mcps: [] };
    this.log = options.log ?? (() => undefined);
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  get running(): boolean {
    return this.http !== null;
  }

  static skillDownloadPath(skillId: number, namespace: string): string {
    return `/api/v1/kinds/skills/${skillId}/download?${new URLSearchParams({ namespace })}`;
  }

  static pluginDownloadPath(installedPluginId: number): string {
    return `/api/plugins/installed/${installedPluginId}/download`;
  }

  /** Zips every catalogue package and serves it on both package origins. */
  private async startPackages(): Promise<PackageServer> {
    const packages = await startPackageServer({ token: this.token });
    const serve = (downloadPath: string, bytes: Buffer) => {
      packages.serve(downloadPath, bytes, { origin: "backend" });
      packages.serve(downloadPath, bytes, { origin: "presigned" });
    };
    for (const skill of this.catalogue.skills) {
      const file = packageFile(await makeZip(skill.files));
      this.skillPackages.set(skill.skill_id, file);
      serve(TestBackend.skillDownloadPath(skill.skill_id, skill.namespace), file.bytes);
    }
    for (const plugin of this.catalogue.plugins) {
      const file = packageFile(await makeZip(plugin.files));
      this.pluginPackages.set(plugin.installed_plugin_id, file);
      serve(TestBackend.pluginDownloadPath(plugin.installed_plugin_id), file.bytes);
    }
    return packages;
  }

  async start(): Promise<void> {
    if (this.http) return;
    this.packages ??= await this.startPackages();
    const server = http.createServer((req, res) => {
      handleRestRequest(this, req, res).catch((error: unknown) => {
        this.log(`REST handler failed: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ detail: "Internal Server Error" }));
      });
    });
    const io = new Server(server, {
      path: "/socket.io",
      // Wegent's limit: at most 1,000,000 bytes per message (device-protocol.md §6.5).
      maxHttpBufferSize: 1_000_000,
      serveClient: false,
    });
    // The default namespace must not answer: a device that forgot the namespace would look connected.
    this.setUpNamespace(io.of("/local-executor"));
    await listenRetryingBusyPort(server, this.port, this.host);
    this.port = (server.address() as AddressInfo).port;
    this.http = server;
    this.io = io;
    this.log(`listening on ${this.url}`);
  }

  /** Stops accepting and drops every connection (a backend restart is `stop()` then `start()`). */
  async stop(): Promise<void> {
    const io = this.io;
    const server = this.http;
    this.io = null;
    this.http = null;
    for (const device of this.devices.values()) device.socket = null;
    if (!io || !server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => io.close(() => resolve()));
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops for good, package origins included. */
  async close(): Promise<void> {
    await this.stop();
    await this.packages?.close();
    this.packages = null;
  }

  // ---- what the backend saw ------------------------------------------------------------------

  device(deviceId: string): DeviceRecord | undefined {
    return this.devices.get(deviceId);
  }

  deviceIds(): string[] {
    return [...this.devices.keys()];
  }

  /** The one registered device with a live socket, when there is exactly one. */
  onlineDevice(): DeviceRecord | undefined {
    const online = [...this.devices.values()].filter((d) => d.socket?.connected);
    return online.length === 1 ? online[0] : undefined;
  }

  isOnline(deviceId: string): boolean {
    return this.devices.get(deviceId)?.socket?.connected === true;
  }

  eventsNamed(name: string): CapturedEvent[] {
    return this.events.filter((e) => e.event === name);
  }

  /**
   * The exec lifecycle of backend commands (docs/device-protocol-exec-events.md), by run id in arrival
   * order: what the backend learnt about each `device:execute_command`.
   */
  execRuns(): Map<string, Partial<Record<"started" | "finished" | "denied", Record<string, unknown>>>> {
    const runs = new Map<
      string,
      Partial<Record<"started" | "finished" | "denied", Record<string, unknown>>>
    >();
    for (const e of this.events) {
      const kind = /^exec\.(started|finished|denied)$/.exec(e.event)?.[1] as
        "started" | "finished" | "denied" | undefined;
      const body = e.payload as Record<string, unknown> | undefined;
      if (!kind || typeof body?.run_id !== "string") continue;
      const run = runs.get(body.run_id) ?? {};
      run[kind] = body;
      runs.set(body.run_id, run);
    }
    return runs;
  }

  // ---- backend → device ------------------------------------------------------------------------

  /** Calls an event with an ack on the device's live socket; rejects on timeout or when offline. */
  async call(deviceId: string, event: string, payload: unknown, timeoutMs = 30_000): Promise<unknown> {
    const socket = this.devices.get(deviceId)?.socket;
    if (!socket?.connected) throw new Error(`Device ${deviceId} is offline`);
    return socket.timeout(timeoutMs).emitWithAck(event, payload);
  }

  /**
   * Sends `event` with `rawPayloadJson` written to the wire as it is (no encoder in between), so a
   * test can send what a hostile backend would. With `ack`, resolves with the device's reply.
   */
  sendRaw(
    deviceId: string,
    event: string,
    rawPayloadJson: string,
    options: { ack?: boolean; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const socket = this.devices.get(deviceId)?.socket;
    if (!socket?.connected) return Promise.reject(new Error(`Device ${deviceId} is offline`));
    const body = `[${JSON.stringify(event)},${rawPayloadJson}]`;
    if (!options.ack) {
      socket.conn.write(`2${socket.nsp.name},${body}`);
      return Promise.resolve(undefined);
    }
    // socket.io keeps its pending acks in a private map; ids from 10^9 never meet its own counter.
    const acks = (socket as unknown as { acks: Map<number, (...args: unknown[]) => void> }).acks;
    const id = 1_000_000_000 + this.rawIds++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        acks.delete(id);
        reject(new Error(`no ack for the raw ${event} within ${options.timeoutMs ?? 30_000} ms`));
      }, options.timeoutMs ?? 30_000);
      acks.set(id, (reply: unknown) => {
        clearTimeout(timer);
        resolve(reply);
      });
      socket.conn.write(`2${socket.nsp.name},${id}${body}`);
    });
  }

  /** Sends an event without an ack. */
  send(deviceId: string, event: string, payload: unknown): void {
    const socket = this.devices.get(deviceId)?.socket;
    if (!socket?.connected) throw new Error(`Device ${deviceId} is offline`);
    socket.emit(event, payload);
  }

  async syncCapabilities(deviceId: string, payload: unknown, timeoutMs = 120_000): Promise<unknown> {
    const ack = await this.call(deviceId, "device:sync_capabilities", payload, timeoutMs);
    this.devices.get(deviceId)?.syncAcks.push(ack);
    return ack;
  }

  executeCommand(deviceId: string, payload: unknown, timeoutMs = 30_000): Promise<unknown> {
    return this.call(deviceId, "device:execute_command", payload, timeoutMs);
  }

  /**
   * A web UI file-browser command (`workspace_tree`, `workspace_read_text_file`, …) as the backend sends
   * it and as its HTTP API returns it: the device's ack through the `json` post-processor.
   */
  async workspaceCommand(
    deviceId: string,
    commandKey: string,
    options: WorkspaceCommandOptions,
  ): Promise<Record<string, unknown>> {
    const payload = workspaceCommandPayload(commandKey, options);
    const timeoutMs = ((payload.timeout_seconds as number) + SOCKET_ACK_GRACE_SECONDS) * 1000;
    const result = await this.call(deviceId, "device:execute_command", payload, timeoutMs);
    if (typeof result !== "object" || result === null || Array.isArray(result))
      throw new Error("Command RPC returned an invalid response");
    return jsonPostProcessor(result as Record<string, unknown>);
  }

  /** Task attachments by id, served at `/api/attachments/{id}/executor-download` (bearer auth). */
  readonly attachments = new Map<number, Buffer>();
  /** Ids of the attachments devices downloaded, in order. */
  readonly attachmentDownloads: number[] = [];

  /** `device:upgrade_status` events the backend accepted (Wegent's DeviceUpgradeStatusEvent checks). */
  readonly upgradeStatuses: Array<Record<string, unknown>> = [];

  /**
   * Triggers an upgrade as the backend's `POST /devices/{id}/upgrade` does: `device:upgrade` emitted with
   * its parameters and no ack; the device reports through `device:upgrade_status`.
   */
  upgradeDevice(
    deviceId: string,
    params: { force?: boolean; auto_confirm?: boolean; verbose?: boolean; force_stop_tasks?: boolean } = {},
  ): void {
    this.send(deviceId, "device:upgrade", {
      force: params.force ?? false,
      auto_confirm: params.auto_confirm ?? true,
      verbose: params.verbose ?? false,
      force_stop_tasks: params.force_stop_tasks ?? false,
      registry: null,
      registry_token: null,
    });
  }

  /** The dispatcher's `task:error` for a task it could not dispatch (execution/dispatcher.py). */
  dispatchError(deviceId: string, taskId: number, subtaskId: number, error: string): void {
    this.send(deviceId, "task:error", { task_id: taskId, subtask_id: subtaskId, error });
  }

  /** Starts a web terminal on the device as the backend does (the ack, with the backend's session id). */
  startTerminal(deviceId: string, options: StartTerminalOptions = {}): Promise<Record<string, unknown>> {
    const socket = this.devices.get(deviceId)?.socket;
    if (!socket?.connected) return Promise.reject(new Error(`Device ${deviceId} is offline`));
    return this.terminals.start(deviceId, socket.id, options);
  }

  /** The `device:sync_capabilities` payload for installed ids (unknown ids are left out). */
  syncPayload(deviceId: string, ids: InstalledIds, mode: string): Record<string, unknown> {
    const prefix = this.options.presigned ? this.packages?.presignedOrigin : undefined;
    const skills = this.catalogue.skills
      .filter((s) => ids.skills.includes(s.installed_skill_id))
      .map((s) => {
        const pkg = this.skillPackages.get(s.skill_id);
        const downloadPath = TestBackend.skillDownloadPath(s.skill_id, s.namespace);
        return {
          installed_skill_id: s.installed_skill_id,
          skill_id: s.skill_id,
          name: s.name,
          namespace: s.namespace,
          is_public: s.is_public,
          content_hash: pkg ? `sha256:${pkg.sha256}` : undefined,
          download_path: prefix ? `${prefix}${downloadPath}` : downloadPath,
        };
      });
    const plugins = this.catalogue.plugins
      .filter((p) => ids.plugins.includes(p.installed_plugin_id))
      .map((p) => {
        const pkg = this.pluginPackages.get(p.installed_plugin_id);
        const downloadPath = TestBackend.pluginDownloadPath(p.installed_plugin_id);
        return {
          installed_plugin_id: p.installed_plugin_id,
          name: p.name,
          marketplace: p.marketplace,
          version: p.version,
          enabled: p.enabled,
          checksum: pkg ? `sha256:${pkg.sha256}` : undefined,
          download_path: prefix ? `${prefix}${downloadPath}` : downloadPath,
        };
      });
    const mcps = this.catalogue.mcps
      .filter((m) => ids.mcps.includes(m.installed_mcp_id))
      .map((m) => ({ installed_mcp_id: m.installed_mcp_id, name: m.name, server: m.server }));
    return { mode, device_id: deviceId, skills, plugins, mcps };
  }

  // ---- namespace -----------------------------------------------------------------------------

  private setUpNamespace(nsp: Namespace): void {
    nsp.use((socket, next) => {
      this.connectionAttempts += 1;
      const auth = socket.handshake.auth as { token?: unknown } | undefined;
      const token = typeof auth?.token === "string" ? auth.token : "";
      const refuse = this.behaviour.refuseAuth;
      if (refuse) return next(new Error(typeof refuse === "string" ? refuse : refuse({ token })));
      (socket.data as { token?: string }).token = token;
      if (!token) return next(new Error("Missing authentication token"));
      if (token !== this.token) return next(new Error("Invalid or expired token"));
      next();
    });

    nsp.on("connection", (socket) => {
      // The raw frame arrives before socket.io decodes it: remember the heartbeat's ack id.
      socket.conn.on("packet", (packet: { type: string; data?: unknown }) => {
        if (packet.type !== "message" || typeof packet.data !== "string") return;
        const match = /^2[^,[]*,(\d+)\["device:heartbeat"/.exec(packet.data);
        if (!match) return;
        const ids = this.heartbeatAckIds.get(socket) ?? [];
        ids.push(Number(match[1]));
        this.heartbeatAckIds.set(socket, ids);
      });
      socket.onAny((event: string, ...args: unknown[]) => {
        this.events.push({
          event,
          payload: typeof args[0] === "function" ? undefined : args[0],
          deviceId: (socket.data as { deviceId?: string }).deviceId ?? null,
          socketId: socket.id,
          at: Date.now(),
        });
      });
      this.terminals.listen(socket);
      socket.on("device:upgrade_status", (payload: unknown, ack?: (r: unknown) => void) => {
        const reply = this.onUpgradeStatus(socket, payload); // recorded whether or not an ack was asked for
        ack?.(reply);
      });
      socket.on("device:register", (payload: unknown, ack?: (r: unknown) => void) =>
        this.onRegister(socket, payload, ack),
      );
      socket.on("device:heartbeat", (payload: unknown, ack?: (r: unknown) => void) =>
        this.onHeartbeat(socket, payload, ack),
      );
    });
  }

  private onRegister(socket: Socket, payload: unknown, ack?: (r: unknown) => void): void {
    const reply = this.behaviour.registerReply;
    if (reply === "ignore") return;
    if (reply) return ack?.(reply(payload, replyContext(socket)));
    const p = payload as Record<string, unknown> | null;
    const deviceId = typeof p?.device_id === "string" ? p.device_id : "";
    if (!deviceId || typeof p?.runtime_instance_id !== "string") {
      return ack?.({ error: "Registration failed: device_id and runtime_instance_id are required" });
    }
    const existing = this.devices.get(deviceId);
    if (existing?.socket && existing.socket.id !== socket.id) existing.socket.disconnect(true); // newest wins
    const record: DeviceRecord = existing ?? {
      deviceId,
      socket: null,
      registration: {},
      registrations: 0,
      registeredAt: 0,
      heartbeats: [],
      lastReport: null,
      syncAcks: [],
    };
    record.socket = socket;
    record.registration = p ?? {};
    record.registrations += 1;
    record.registeredAt = Date.now();
    this.devices.set(deviceId, record);
    (socket.data as { deviceId?: string }).deviceId = deviceId;
    ack?.({ success: true, device_id: deviceId });
    this.log(`registered ${deviceId}`);
    if (this.behaviour.syncOnRegister) {
      const payloadForSync = this.syncPayload(deviceId, this.installed, "replace");
      this.syncCapabilities(deviceId, payloadForSync, 120_000).catch((error: unknown) =>
        this.log(`replace sync after registration failed: ${(error as Error).message}`),
      );
    }
  }

  /** device_namespace.on_device_upgrade_status: the schema's required fields, the session's device. */
  private onUpgradeStatus(socket: Socket, payload: unknown): Record<string, unknown> {
    const p = payload as Record<string, unknown> | null;
    const missing = ["device_id", "status", "message"].filter((key) => typeof p?.[key] !== "string");
    if (missing.length > 0) return { error: `Invalid payload: ${missing.join(", ")} required` };
    const deviceId = (socket.data as { deviceId?: string }).deviceId;
    if (!deviceId) return { error: "Not authenticated" };
    if (p!.device_id !== deviceId) return { error: "Device ID mismatch" };
    this.upgradeStatuses.push(p!);
    return { success: true };
  }

  private onHeartbeat(socket: Socket, payload: unknown, ack?: (r: unknown) => void): void {
    // socket.io hands events over in arrival order: this heartbeat's id is the oldest one seen.
    const ackId = this.heartbeatAckIds.get(socket)?.shift();
    const raw = this.behaviour.heartbeatRawReply;
    if (raw !== null && ack && ackId !== undefined) {
      socket.conn.write(`3${socket.nsp.name},${ackId}[${raw}]`);
      return;
    }
    const reply = this.behaviour.heartbeatReply;
    if (reply === "ignore") return;
    if (reply) return ack?.(reply(payload, replyContext(socket)));
    const deviceId = (socket.data as { deviceId?: string }).deviceId;
    const p = payload as Record<string, unknown> | null;
    if (!deviceId) return ack?.({ error: "Not authenticated" });
    const record = this.devices.get(deviceId);
    if (!record) return ack?.({ error: "Not authenticated" });
    if (p?.device_id !== deviceId) return ack?.({ error: "Device ID mismatch" });
    if (record.socket?.id !== socket.id) return ack?.({ error: "Stale device connection" });
    if (p.runtime_instance_id !== record.registration.runtime_instance_id) {
      return ack?.({ error: "Runtime instance ID mismatch" });
    }
    const invalid = heartbeatProblem(p);
    if (invalid) return ack?.({ error: `Invalid payload: ${invalid}` });
    record.heartbeats.push(p);
    const capabilities = p.capabilities as Record<string, unknown> | undefined;
    if (capabilities && capabilities.full === true) record.lastReport = capabilities;
    ack?.({ success: true });
  }
}

/** Wegent's schema checks on a heartbeat: integer task ids and a consistent capacity object. */
function heartbeatProblem(p: Record<string, unknown>): string | null {
  const ids = p.running_task_ids;
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids) || !ids.every((id) => /^\d+$/.test(String(id)))) {
      return "running_task_ids must be a list of integers";
    }
  }
  const cap = p.runtime_capacity as Record<string, unknown> | null | undefined;
  if (cap !== undefined && cap !== null) {
    const active = cap.active_task_ids;
    const ok =
      Number.isInteger(cap.limit) &&
      (cap.limit as number) >= 1 &&
      (cap.limit as number) <= 20 &&
      Number.isInteger(cap.active) &&
      Number.isInteger(cap.queued) &&
      (cap.queued as number) >= 0 &&
      Array.isArray(active) &&
      active.length === cap.active &&
      active.length <= 20 &&
      new Set(active).size === active.length &&
      active.every((id) => typeof id === "string" && id.trim() !== "" && id === id.trim());
    if (!ok) return "runtime_capacity is inconsistent";
  }
  return null;
}

function replyContext(socket: Socket): ReplyContext {
  return { token: (socket.data as { token?: string }).token ?? "" };
}

function packageFile(bytes: Buffer): PackageFile {
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export async function startTestBackend(options: TestBackendOptions = {}): Promise<TestBackend> {
  const backend = new TestBackend(options);
  await backend.start();
  return backend;
}

/**
 * Listens on `port` (0: any). A restart listens again on the port it had: between the stop and the
 * start another process may hold it for a moment (an outgoing connection given it as its local port),
 * so a busy port is tried again for a while before the start fails.
 */
async function listenRetryingBusyPort(server: http.Server, port: number, host: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || port === 0 || Date.now() > deadline)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
