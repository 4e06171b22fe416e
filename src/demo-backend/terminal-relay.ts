// The backend's side of a web terminal, as Wegent's does it: session_service.py starts it with
// `device:start_terminal_session` (15 s ack timeout, a session id `terminal-<project>-<random>`, the
// ttl capped at an hour) and keeps a record (device, socket); terminal_namespace.py relays the
// browser's `terminal:attach` (an ack within 5 s) and `terminal:input|resize|close` (no ack); and
// device_namespace.py accepts `terminal:output` / `terminal:exit` only from the socket that owns the
// session, forwarding them to the browser (here: kept per session), deleting the record on exit.
import { randomBytes } from "node:crypto";
import type { Socket } from "socket.io";

export const SESSION_RPC_TIMEOUT_MS = 15_000;
export const TERMINAL_ATTACH_TIMEOUT_MS = 5_000;
export const DEFAULT_SESSION_TTL_SECONDS = 60 * 60;

export interface TerminalRecord {
  sessionId: string;
  deviceId: string;
  socketId: string;
  projectId: number;
  path: string;
}

/** What the browser of a session received: output text and the exit, in order. */
export interface BrowserView {
  output: string;
  exits: Array<Record<string, unknown>>;
}

export interface StartTerminalOptions {
  path?: string;
  projectId?: number;
  createIfMissing?: boolean;
  ttlSeconds?: number;
  rows?: number;
  cols?: number;
}

type Caller = (deviceId: string, event: string, payload: unknown, timeoutMs: number) => Promise<unknown>;
type Sender = (deviceId: string, event: string, payload: unknown) => void;

export class TerminalRelay {
  readonly records = new Map<string, TerminalRecord>();
  readonly browsers = new Map<string, BrowserView>();
  /** Device events the backend refused (not the owner's socket, unknown session). */
  readonly refused: Array<{ event: string; payload: unknown; error: string }> = [];

  constructor(
    private readonly call: Caller,
    private readonly send: Sender,
  ) {}

  /** device_namespace.py's handlers for what a device emits about its terminals. */
  listen(socket: Socket): void {
    for (const event of ["terminal:output", "terminal:exit"] as const) {
      socket.on(event, (payload: unknown, ack?: (reply: unknown) => void) => {
        const reply = this.fromDevice(socket, event, payload);
        ack?.(reply);
      });
    }
  }

  private fromDevice(socket: Socket, event: string, payload: unknown): Record<string, unknown> {
    const deviceId = (socket.data as { deviceId?: string }).deviceId;
    const refuse = (error: string) => {
      this.refused.push({ event, payload, error });
      return { error };
    };
    if (!deviceId) return refuse("Not authenticated or not registered");
    const sessionId = (payload as { session_id?: unknown } | null)?.session_id;
    if (typeof sessionId !== "string" || sessionId.trim() === "") return refuse("Missing session_id");
    const record = this.records.get(sessionId.trim());
    if (!record) return refuse("Terminal session not found");
    if (record.deviceId !== deviceId || record.socketId !== socket.id)
      return refuse("Terminal session does not belong to this device");
    const view = this.browsers.get(record.sessionId) ?? { output: "", exits: [] };
    this.browsers.set(record.sessionId, view);
    if (event === "terminal:output") {
      const data = (payload as { data?: unknown }).data;
      if (typeof data === "string") view.output += data;
    } else {
      view.exits.push(payload as Record<string, unknown>);
      this.records.delete(record.sessionId);
    }
    return { success: true };
  }

  /** session_service.start_session for a terminal: the device's ack, with the backend's defaults. */
  async start(
    deviceId: string,
    socketId: string,
    options: StartTerminalOptions = {},
  ): Promise<Record<string, unknown>> {
    const projectId = options.projectId ?? 0;
    const ttl = Math.min(
      Math.max(1, options.ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS),
      DEFAULT_SESSION_TTL_SECONDS,
    );
    const sessionId = `terminal-${projectId}-${randomBytes(16).toString("base64url")}`;
    const path = options.path ?? "";
    const payload: Record<string, unknown> = {
      type: "terminal",
      session_id: sessionId,
      project_id: projectId,
      path,
      create_if_missing: options.createIfMissing ?? path === "",
      ttl_seconds: ttl,
      expires_at: new Date(Date.now() + ttl * 1000).toISOString(),
      access_token: randomBytes(32).toString("base64url"),
    };
    if (options.rows !== undefined) payload.rows = options.rows;
    if (options.cols !== undefined) payload.cols = options.cols;
    const result = await this.call(
      deviceId,
      "device:start_terminal_session",
      payload,
      SESSION_RPC_TIMEOUT_MS,
    );
    if (typeof result !== "object" || result === null)
      throw new Error("Session RPC returned an invalid response");
    const ack = result as Record<string, unknown>;
    if (!ack.success) return { ...ack, session_id: sessionId };
    this.records.set(sessionId, {
      sessionId,
      deviceId,
      socketId,
      projectId,
      path: typeof ack.path === "string" ? ack.path : path,
    });
    return { ...ack, session_id: sessionId, url: "", transport: "socketio" };
  }

  /** The browser attaches (terminal_namespace.on_terminal_attach): the device's ack, or the error it gets. */
  async attach(sessionId: string): Promise<Record<string, unknown>> {
    const record = this.records.get(sessionId);
    if (!record) return { error: "Terminal session not found or access denied" };
    const ack = (await this.call(
      record.deviceId,
      "terminal:attach",
      { session_id: sessionId },
      TERMINAL_ATTACH_TIMEOUT_MS,
    )) as Record<string, unknown> | undefined;
    if (!ack?.success) return { error: String(ack?.error ?? "Failed to attach terminal executor") };
    this.browsers.set(sessionId, this.browsers.get(sessionId) ?? { output: "", exits: [] });
    return { success: true, session_id: sessionId, device_id: record.deviceId, path: record.path };
  }

  input(sessionId: string, data: string): void {
    const record = this.records.get(sessionId);
    if (record) this.send(record.deviceId, "terminal:input", { session_id: sessionId, data });
  }

  resize(sessionId: string, rows: number, cols: number): void {
    const record = this.records.get(sessionId);
    if (record) this.send(record.deviceId, "terminal:resize", { session_id: sessionId, rows, cols });
  }

  /** The browser closes it: the device is told (no ack) and the record goes. */
  close(sessionId: string): void {
    const record = this.records.get(sessionId);
    if (!record) return;
    this.send(record.deviceId, "terminal:close", { session_id: sessionId });
    this.records.delete(sessionId);
  }

  browser(sessionId: string): BrowserView {
    return this.browsers.get(sessionId) ?? { output: "", exits: [] };
  }
}
