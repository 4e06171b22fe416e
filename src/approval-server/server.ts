// The approval socket server (approval-protocol.md): framing, per-frame authentication, limits and
// dispatch to request handlers. It knows nothing about policy: `handlers` (built by services.ts
// from the gate) turn a validated body into a reply.
import fs from "node:fs/promises";
import net from "node:net";
import type { Logger } from "../core/log.js";
import { describeZodError } from "../core/store/index.js";
import {
  checkFrameTime,
  macMatches,
  NonceCache,
  NonceSource,
  signFrame,
  type FrameTime,
} from "./frame-auth.js";
import { LineReader } from "./framing.js";
import { DEFAULT_LIMITS, nonceCapacityFor, RateLimiter, type ServerLimits } from "./limits.js";
import {
  PROTOCOL_VERSION,
  RequestFrameSchema,
  type ErrorCode,
  type RequestFrame,
  type RequestType,
} from "./protocol.js";
import { REQUEST_BODY_SCHEMAS, type RequestBodies } from "./request-bodies.js";
import { prepareSocketPlace } from "./socket-path.js";
import { taskProofMatches } from "./task-proof.js";
import type { TokenSource } from "./token-source.js";
import type { VerifiedTask } from "../shared/schemas/prompt.js";

export interface RequestContext {
  /** Aborted when the requesting client disconnects (its prompt is then withdrawn). */
  signal: AbortSignal;
  /** The request's id and nonce, for logs. */
  id: string;
  /** The running task the request provably comes from (`task` proof checked); absent = a claim. */
  verified?: VerifiedTask;
  /**
   * The same object for every frame read from the socket in one read, made after that read: what a
   * handler observes after it holds for all of them (they were all sent before it), never for a frame
   * read later (docs/decisions.md "Resolving programs on PATH").
   */
  arrival: object;
}

/**
 * The tasks the running engine launched and that still run: a task's key and what it is, or null when
 * no such task runs (it ended, or was never launched here). executor/tasks/task-keys.ts.
 */
export type TaskKeyLookup = (taskId: string) => { key: string; verified: VerifiedTask } | null;

export type HandlerReply =
  { type: string; body: Record<string, unknown> } | { error: ErrorCode | "internal"; message: string };

export type RequestHandlers = {
  [K in RequestType]?: (body: RequestBodies[K], ctx: RequestContext) => HandlerReply | Promise<HandlerReply>;
};

export interface ApprovalServerOptions {
  /** E, named in "already served" messages. */
  executorHome: string;
  tokens: TokenSource;
  handlers: RequestHandlers;
  logger: Logger;
  /** Running agent tasks and their keys (absent: no task can prove itself, every `task` proof is refused). */
  tasks?: TaskKeyLookup;
  limits?: Partial<ServerLimits>;
  /** Wall clock for frame timestamps (epoch ms). */
  now?: () => number;
  platform?: NodeJS.Platform;
}

export type ListenResult =
  | { status: "listening"; address: string; removedStale: boolean }
  | { status: "in-use"; message: string }
  | { status: "refused"; message: string };

interface Connection {
  socket: net.Socket;
  reader: LineReader;
  limiter: RateLimiter;
  abort: AbortController;
  authenticated: boolean;
  closing: boolean;
  invalidFrames: number;
  /** Requests accepted (or errors owed behind them) whose reply has not been written yet. */
  inFlight: number;
  /** Hung up while replies were owed: the connection ends once the last of them is written. */
  endWhenReplied: boolean;
  /** performance.now() of the connection's start or its last complete frame. */
  lastActivity: number;
  connectedAt: number;
}

/** Why requests still in flight are stopped when their connection closes. */
export const CALLER_GONE = "the client closed its connection before the reply";

const SWEEP_INTERVAL_MS = 250;
/** How long handlers may run back to back before the event loop gets a turn (sockets, timers, the UI). */
const HANDLER_SLICE_MS = 5;

/** A promise settled at the next check phase of the event loop, i.e. after one round of I/O. */
function nextTurn(): { promise: Promise<void>; passed: boolean } {
  const turn = { promise: Promise.resolve(), passed: false };
  turn.promise = new Promise<void>((resolve) =>
    setImmediate(() => {
      turn.passed = true;
      resolve();
    }),
  );
  return turn;
}
const TOTAL_RATE_MESSAGE = "the server is answering as many requests as it takes per second; slow down";

function errorBody(code: string, message: string, re?: string): string {
  return JSON.stringify(re === undefined ? { code, message } : { code, message, re });
}

const ERROR_MESSAGES: Record<ErrorCode, string> = {
  bad_version: `this Gatehouse speaks approval protocol version ${PROTOCOL_VERSION}`,
  bad_mac: "the frame's mac does not match the socket token",
  expired: "the frame's timestamp is outside the server's clock window",
  replay: "this nonce was already used",
  too_large: "the line is longer than 256 KiB",
  bad_request: "the frame is not valid",
  rate_limited: "too many requests on this connection; slow down",
  busy: "too many requests are waiting; try again later",
  unsupported: "unknown request type",
  bad_task_proof: "the request's task proof does not hold",
};

export class ApprovalServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  private readonly nonces: NonceCache;
  /** All connections together: bounds how many nonces can be alive, so the nonce memory is never full. */
  private readonly totalRate: RateLimiter;
  private readonly replyNonces = new NonceSource();
  /** Handler calls waiting for their turn (see pump()). */
  private readonly jobs: (() => Promise<void>)[] = [];
  private pumping = false;
  private pumpScheduled = false;
  /**
   * Shared by the frames read since the last handler call started (RequestContext.arrival): handlers
   * start only after the loop's reads (pump() runs in the check phase), so one object spans every
   * connection's frames of a loop turn, and a frame read after any handler started gets a new one.
   */
  private arrival: object | null = null;
  /** Sockets whose replies wait for the end of the pump's slice, to leave in one write each. */
  private readonly corked = new Set<net.Socket>();
  private readonly limits: ServerLimits;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | null = null;
  private socketIno: number | null = null;
  /** The server's clock when it started listening: frames dated earlier are refused (no replay across restarts). */
  private startedAt = Number.POSITIVE_INFINITY;
  private listening = false;
  private listenedOn: string | null = null;

  constructor(private readonly options: ApprovalServerOptions) {
    const total = options.limits?.requestsPerSecondTotal ?? DEFAULT_LIMITS.requestsPerSecondTotal;
    this.limits = { ...DEFAULT_LIMITS, nonceCapacity: nonceCapacityFor(total), ...options.limits };
    this.now = options.now ?? Date.now;
    this.nonces = new NonceCache(this.limits.nonceCapacity);
    this.totalRate = new RateLimiter(this.limits.requestsPerSecondTotal);
    this.server = net.createServer({ allowHalfOpen: false }, (socket) => this.accept(socket));
    this.server.maxConnections = 10_000;
  }

  /** The socket path or pipe name while listening, else null. */
  get address(): string | null {
    return this.listenedOn;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Makes the place of `address` (a socket path, or a pipe name on Windows) safe and listens there;
   * another live server for the home is `in-use`.
   */
  async listen(address: string): Promise<ListenResult> {
    const platform = this.options.platform ?? process.platform;
    const place = await prepareSocketPlace(address, { executorHome: this.options.executorHome, platform });
    if (place.status !== "ready") return place;
    // Before the bind: a client can only sign after connecting, so every frame for this server is
    // dated at or after this instant, and every frame for an earlier server before it.
    this.startedAt = this.now();
    const failure = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      const onError = (error: NodeJS.ErrnoException) => resolve(error);
      this.server.once("error", onError);
      listenPrivately(this.server, address, platform, () => {
        this.server.off("error", onError);
        resolve(null);
      });
    });
    if (failure) {
      if (failure.code === "EADDRINUSE") {
        return {
          status: "in-use",
          message: `Another Gatehouse already serves ${this.options.executorHome} (${address}).`,
        };
      }
      return { status: "refused", message: `Cannot listen on ${address}: ${failure.message}` };
    }
    this.server.on("error", (error) => this.options.logger.error("approval socket error", { error }));
    if (platform !== "win32") {
      await fs.chmod(address, 0o600); // created 0700 already (listenPrivately); 0600 is the documented mode
      this.socketIno = (await fs.lstat(address)).ino;
    }
    this.listening = true;
    this.listenedOn = address;
    this.options.logger.info("approval socket listening", { address });
    return { status: "listening", address, removedStale: place.removedStale };
  }

  /** Stops listening, ends every connection (pending prompts are withdrawn) and removes the socket. */
  async close(): Promise<void> {
    this.stopSweeping();
    this.options.tokens.close?.();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const conn of this.connections) conn.socket.destroy();
    if (this.listening) await closed;
    this.listening = false;
    await this.removeOwnSocket();
  }

  /** Removes the socket file only if it is still the one this server created. */
  private async removeOwnSocket(): Promise<void> {
    const address = this.listenedOn;
    this.listenedOn = null;
    if (this.socketIno === null || address === null) return;
    try {
      const stat = await fs.lstat(address);
      if (stat.isSocket() && stat.ino === this.socketIno) await fs.rm(address, { force: true });
    } catch {
      // already gone
    }
    this.socketIno = null;
  }

  private accept(socket: net.Socket): void {
    const conn: Connection = {
      socket,
      reader: new LineReader(this.limits.maxLineBytes),
      limiter: new RateLimiter(this.limits.requestsPerSecond),
      abort: new AbortController(),
      authenticated: false,
      closing: false,
      invalidFrames: 0,
      inFlight: 0,
      endWhenReplied: false,
      lastActivity: performance.now(),
      connectedAt: performance.now(),
    };
    this.connections.add(conn);
    this.startSweeping();
    socket.on("data", (chunk: Buffer) => this.onData(conn, chunk));
    socket.on("drain", () => {
      if (!conn.closing) socket.resume();
    });
    socket.on("error", () => undefined); // `close` follows
    socket.on("close", () => {
      this.connections.delete(conn);
      if (this.connections.size === 0) this.stopSweeping();
      conn.closing = true;
      // The reason reaches the audit line of a command this stops (exec.run whose caller vanished).
      conn.abort.abort(CALLER_GONE);
    });
  }

  /** The sweeper runs only while there are connections: an idle server has no timer at all. */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** Closes connections that sent no valid frame in time, or went idle with nothing in flight. */
  private sweep(): void {
    const t = performance.now();
    for (const conn of this.connections) {
      if (conn.closing) continue;
      if (!conn.authenticated && t - conn.connectedAt > this.limits.firstFrameMs) this.hangUp(conn);
      else if (conn.inFlight === 0 && t - conn.lastActivity > this.limits.idleMs) this.hangUp(conn);
    }
  }

  /**
   * Reads nothing more from the connection and ends it once every reply it is owed has been written
   * (issue 30: a client past its rate limit lost the replies to the requests accepted before the limit,
   * queued behind the errors; for exec.run a command had run and its result never arrived).
   */
  private hangUp(conn: Connection): void {
    conn.closing = true;
    conn.socket.pause();
    if (conn.inFlight > 0) conn.endWhenReplied = true;
    else this.endConnection(conn);
  }

  private endConnection(conn: Connection): void {
    conn.endWhenReplied = false;
    conn.socket.end();
    // A peer that never closes its side is cut off.
    setTimeout(() => conn.socket.destroy(), 1_000).unref();
  }

  /** One owed reply was written: the last one ends a connection that was hung up meanwhile. */
  private replied(conn: Connection): void {
    conn.inFlight--;
    if (conn.endWhenReplied && conn.inFlight === 0) this.endConnection(conn);
  }

  private onData(conn: Connection, chunk: Buffer): void {
    if (conn.closing) return;
    const arrival = (this.arrival ??= {});
    for (const event of conn.reader.push(chunk)) {
      if (conn.closing) return;
      if (event.kind === "too_large") {
        this.refuse(conn, null, "too_large", true);
        return;
      }
      conn.lastActivity = performance.now();
      this.onLine(conn, event.line, arrival);
    }
    if (conn.socket.writableLength > this.limits.maxQueuedReplyBytes) conn.socket.pause();
  }

  private onLine(conn: Connection, line: string, arrival: object): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.refuse(conn, null, "bad_request", true, "the line is not valid JSON");
      return;
    }
    const id =
      typeof (raw as { id?: unknown } | null)?.id === "string"
        ? (raw as { id: string }).id.slice(0, 128)
        : null;
    const version = (raw as { v?: unknown } | null)?.v;
    if (version !== PROTOCOL_VERSION) {
      this.refuse(conn, id, "bad_version", true, versionMessage(version));
      return;
    }
    const parsed = RequestFrameSchema.safeParse(raw);
    if (!parsed.success) {
      this.refuse(conn, id, "bad_request", true, `the frame is not valid: ${describeZodError(parsed.error)}`);
      return;
    }
    const frame = parsed.data;
    const token = this.options.tokens.current();
    const now = this.now();
    const time =
      frame.ts <= this.nonces.forgottenUpTo ? "forgotten" : checkFrameTime(frame.ts, now, this.startedAt);
    if (time !== "ok") {
      this.refuse(conn, frame.id, "expired", true, TIME_MESSAGES[time]);
      return;
    }
    const signed = { direction: "request", ...frame } as const;
    if (token === null || !macMatches(token, signed, frame.mac)) {
      this.refuse(conn, frame.id, "bad_mac", true);
      return;
    }
    if (!this.totalRate.allow(now)) {
      // not counted against the connection: the server as a whole is at its limit
      const body = errorBody("rate_limited", TOTAL_RATE_MESSAGE, frame.nonce);
      this.reply(conn, token, frame.id, frame.nonce, "error", body);
      return;
    }
    const seen = this.nonces.check(frame.nonce, now);
    if (seen === "replay") {
      this.refuse(conn, frame.id, "replay", true);
      return;
    }
    if (seen === "full") {
      this.reply(
        conn,
        token,
        frame.id,
        frame.nonce,
        "error",
        errorBody("busy", ERROR_MESSAGES.busy, frame.nonce),
      );
      return;
    }
    conn.authenticated = true;

    if (!conn.limiter.allow(now)) {
      this.signedError(conn, token, frame.id, frame.nonce, "rate_limited");
      return;
    }
    const type = frame.type as RequestType;
    const handler = Object.hasOwn(this.options.handlers, type) ? this.options.handlers[type] : undefined;
    const schema = Object.hasOwn(REQUEST_BODY_SCHEMAS, type) ? REQUEST_BODY_SCHEMAS[type] : undefined;
    if (!handler || !schema) {
      this.signedError(
        conn,
        token,
        frame.id,
        frame.nonce,
        "unsupported",
        `unknown request type "${frame.type}"`,
      );
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(frame.body);
    } catch {
      this.signedError(conn, token, frame.id, frame.nonce, "bad_request", "the body is not valid JSON", true);
      return;
    }
    const checked = schema.safeParse(body);
    if (!checked.success) {
      const detail = `the "${type}" body is not valid: ${describeZodError(checked.error)}`;
      this.signedError(conn, token, frame.id, frame.nonce, "bad_request", detail, true);
      return;
    }
    let verified: VerifiedTask | undefined;
    if (frame.task) {
      const proved = this.checkTaskProof(frame, frame.task);
      if (!proved.ok) {
        this.options.logger.warn("refused a request whose task proof does not hold", {
          taskId: frame.task.id,
          type,
          why: proved.message,
        });
        this.signedError(conn, token, frame.id, frame.nonce, "bad_task_proof", proved.message);
        return;
      }
      verified = proved.verified;
    }
    this.dispatch(conn, token, frame.id, frame.nonce, handler as never, checked.data, verified, arrival);
  }

  /**
   * A `task` proof holds only under the key of a task running now. One that does not is refused (never
   * shown as a claim): the sender either belongs to a task that has ended — whose calls must not run —
   * or tried to pass as a task it is not.
   */
  private checkTaskProof(
    frame: RequestFrame,
    task: NonNullable<RequestFrame["task"]>,
  ): { ok: true; verified: VerifiedTask } | { ok: false; message: string } {
    const { id: taskId, proof } = task;
    const running = this.options.tasks?.(taskId) ?? null;
    if (!running) {
      return {
        ok: false,
        message: `task ${taskId} is not running in this Gatehouse (it has ended, or Gatehouse did not launch it), so its proof no longer counts`,
      };
    }
    const fields = { type: frame.type, id: frame.id, nonce: frame.nonce, ts: frame.ts, body: frame.body };
    if (!taskProofMatches(running.key, taskId, fields, proof)) {
      return { ok: false, message: `the proof does not match the key Gatehouse gave task ${taskId}` };
    }
    return { ok: true, verified: { ...running.verified } };
  }

  private dispatch(
    conn: Connection,
    token: string,
    id: string,
    nonce: string,
    handler: (body: unknown, ctx: RequestContext) => HandlerReply | Promise<HandlerReply>,
    body: unknown,
    verified: VerifiedTask | undefined,
    arrival: object,
  ): void {
    conn.inFlight++;
    const finish = (result: HandlerReply) => {
      conn.lastActivity = performance.now();
      // Replies leave the process: secrets (a command printing the backend token) are redacted here.
      const logger = this.options.logger;
      if ("error" in result) {
        const message = logger.redact(result.message);
        this.reply(conn, token, id, nonce, "error", errorBody(result.error, message, nonce));
      } else {
        const body = logger.redact(result.body);
        body.re = nonce; // on the redactor's copy
        this.reply(conn, token, id, nonce, result.type, JSON.stringify(body));
      }
      this.replied(conn);
    };
    const fail = (error: unknown) => {
      this.options.logger.error("approval request failed", { id, error });
      finish({ error: "internal", message: "the server failed to handle the request; see its log" });
    };
    this.enqueue(async () => {
      try {
        const ctx = { signal: conn.abort.signal, id, arrival, ...(verified ? { verified } : {}) };
        const result = handler(body, ctx);
        if (result instanceof Promise) await result.then(finish, fail);
        else finish(result);
      } catch (error) {
        fail(error);
      }
    });
  }

  /** Queues a job for pump(), started after this turn's reads (every frame read in it shares one arrival). */
  private enqueue(job: () => Promise<void>): void {
    this.jobs.push(job);
    if (this.pumping || this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      void this.pump();
    });
  }

  /**
   * Runs handler calls one after another in arrival order, each until it finishes or waits on something
   * slower than one round of the event loop (a person, a command), and gives the loop a turn every
   * HANDLER_SLICE_MS: with no filesystem call on the decided path, a burst of thousands of requests
   * would otherwise hold the loop (and every reply's delivery) until the whole burst is decided.
   */
  private async pump(): Promise<void> {
    this.pumping = true;
    let sliceStart = performance.now();
    let turn = nextTurn();
    for (let job = this.jobs.shift(); job; job = this.jobs.shift()) {
      if (performance.now() - sliceStart >= HANDLER_SLICE_MS && !turn.passed) {
        this.uncorkAll();
        await turn.promise;
      }
      if (turn.passed) {
        this.uncorkAll();
        sliceStart = performance.now();
        turn = nextTurn();
      }
      this.arrival = null; // frames read from now on are not covered by what this job observes
      await Promise.race([job(), turn.promise]);
    }
    this.pumping = false;
    this.uncorkAll();
  }

  /** Sends the replies gathered during a slice (at most HANDLER_SLICE_MS and one loop turn old). */
  private uncorkAll(): void {
    for (const socket of this.corked) socket.uncork();
    this.corked.clear();
  }

  /** A refusal before (or instead of) authentication: unsigned, and usually the end of the connection. */
  private refuse(
    conn: Connection,
    id: string | null,
    code: ErrorCode,
    close: boolean,
    message?: string,
  ): void {
    const body = errorBody(code, message ?? ERROR_MESSAGES[code]);
    this.write(conn, { v: PROTOCOL_VERSION, type: "error", id, body });
    conn.invalidFrames++;
    if (close) this.hangUp(conn);
  }

  private signedError(
    conn: Connection,
    token: string,
    id: string,
    nonce: string,
    code: ErrorCode,
    message?: string,
    close = false,
  ): void {
    const body = errorBody(code, message ?? ERROR_MESSAGES[code], nonce);
    if (conn.inFlight === 0) this.reply(conn, token, id, nonce, "error", body);
    else {
      // Behind the replies still owed for earlier frames, in the order the frames came.
      conn.inFlight++;
      this.enqueue(async () => {
        this.reply(conn, token, id, nonce, "error", body);
        this.replied(conn);
      });
    }
    conn.invalidFrames++;
    if (close || conn.invalidFrames >= this.limits.maxInvalidFrames) this.hangUp(conn);
  }

  private reply(
    conn: Connection,
    token: string,
    id: string,
    _nonce: string,
    type: string,
    body: string,
  ): void {
    this.write(conn, signFrame(token, "reply", type, id, body, this.now(), this.replyNonces.next()));
  }

  private write(conn: Connection, frame: object): void {
    const socket = conn.socket;
    if (socket.destroyed || !socket.writable) return;
    if (this.pumping && !this.corked.has(socket)) {
      socket.cork();
      this.corked.add(socket);
    }
    socket.write(`${JSON.stringify(frame)}\n`);
  }
}

const TIME_MESSAGES: Record<Exclude<FrameTime, "ok"> | "forgotten", string> = {
  forgotten:
    "the frame is dated at or before requests this server no longer remembers (the system clock was set " +
    "back: wait until it passes that time again)",
  "before-start":
    "the frame is dated before this server started (a frame for an earlier run is never accepted; if the " +
    "system clock was set back, wait until it passes the start time again or restart Gatehouse)",
  "too-old": "the frame is more than 10 s old",
  ahead: "the frame is dated more than 1 s ahead of the server's clock",
};

function versionMessage(version: unknown): string {
  const sent =
    typeof version === "number"
      ? `version ${version}`
      : version === undefined
        ? "no version"
        : "an invalid version";
  return (
    `this Gatehouse speaks approval protocol version ${PROTOCOL_VERSION}; the frame has ${sent}. ` +
    `Update the client (docs/approval-protocol-v2.md: the mac now covers the request type).`
  );
}

/**
 * Listens with a umask that leaves the socket private from the moment it exists (no window with the
 * process umask's mode before the chmod). Node binds synchronously inside listen(), so the umask is
 * restored before anything else runs; a concurrent file creation on the thread pool can only come out
 * more private, never less.
 */
export function listenPrivately(
  server: net.Server,
  address: string,
  platform: NodeJS.Platform,
  onListening: () => void,
): void {
  if (platform === "win32") {
    server.listen(address, onListening);
    return;
  }
  let previous: number | null = null;
  try {
    previous = process.umask(0o077);
  } catch {
    // worker threads cannot set the umask; the parent folder (0700) still keeps others out
  }
  try {
    server.listen(address, onListening);
  } finally {
    if (previous !== null) process.umask(previous);
  }
}
