// Client of the approval socket (approval-protocol.md "Clients", protocol v2): verifies that the
// socket is the user's own before sending anything, signs every request, verifies every reply (its
// mac, and that `re` is the nonce this client sent), pipelines requests on one connection, and reports
// a missing (or untrusted) server as a value (`unavailable`) so the caller can apply askFallback.
import net from "node:net";
import type { AppPaths } from "../core/paths.js";
import { readJsonFileSync } from "../core/store/json-file.js";
import { ApprovalsSocketViewSchema } from "../shared/schemas/approvals-socket.js";
import { checkTrustedFile, checkTrustedSocket } from "../core/io/trust.js";
import { checkFrameTime, computeMac, macMatches, NonceSource } from "./frame-auth.js";
import { LineReader } from "./framing.js";
import { computeTaskProof } from "./task-proof.js";
import {
  errorBodySchema,
  PROTOCOL_VERSION,
  replyBodySchema,
  REPLY_TYPES,
  SignedReplyFrameSchema,
  unsignedErrorFrameSchema,
  type ReplyBodies,
  type RequestBodies,
  type RequestType,
} from "./protocol.js";
import { socketAddress } from "./socket-path.js";

export type ClientResult<B> =
  | { status: "ok"; type: string; body: B }
  /** A refusal from the server (`signed: false` for auth failures, or a reply that failed our checks: `bad_reply`). */
  | { status: "error"; code: string; message: string; signed: boolean }
  /** No server, or (`untrusted`) a socket that is not the user's own: nothing was sent. */
  | { status: "unavailable"; reason: string; untrusted?: true };

export interface ClientOptions {
  socketPath: string;
  token: string;
  /** Per-request timeout unless a request gives its own (default 30 s). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  now?: () => number;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Inside a task Gatehouse launched: its id and key, to prove the request comes from it (task-proof.ts). */
  task?: { taskId: string; key: string } | null;
}

/** Replies may hold up to 5 MiB of command output, escaped: allow far more than requests. */
const MAX_REPLY_LINE_BYTES = 64 * 1024 * 1024;

interface InFlight {
  nonce: string;
  expectType: string | null;
  settle: (result: ClientResult<unknown>) => void;
}

export type ConnectResult =
  | { status: "connected"; client: ApprovalClient }
  | { status: "unavailable"; reason: string; untrusted?: true };

export function connectApprovalClient(options: ClientOptions): Promise<ConnectResult> {
  // The server side first: only a socket the user's own process bound, in a folder nobody else can
  // write (so it cannot be swapped before the connect), gets a signed request (docs/decisions.md).
  const squatter = checkTrustedSocket(options.socketPath);
  if (squatter) return Promise.resolve({ status: "unavailable", reason: squatter.message, untrusted: true });
  return new Promise((resolve) => {
    const socket = net.connect(options.socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({
        status: "unavailable",
        reason: `no answer from ${options.socketPath} within the connect timeout`,
      });
    }, options.connectTimeoutMs ?? 5_000);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve({ status: "connected", client: new ApprovalClient(socket, options) });
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ status: "unavailable", reason: describeConnectError(error, options.socketPath) });
    });
  });
}

function describeConnectError(error: NodeJS.ErrnoException, socketPath: string): string {
  if (error.code === "ENOENT") return `Gatehouse is not running (no socket at ${socketPath})`;
  if (error.code === "ECONNREFUSED") return `Gatehouse is not running (nobody listens on ${socketPath})`;
  if (error.code === "EACCES") return `not allowed to connect to ${socketPath}`;
  return `cannot connect to ${socketPath}: ${error.message}`;
}

export class ApprovalClient {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly reader = new LineReader(MAX_REPLY_LINE_BYTES);
  private readonly now: () => number;
  private readonly nonces = new NonceSource();
  private readonly idPrefix = this.nonces.next().slice(0, 8);
  private counter = 0;
  private closedReason: string | null = null;

  constructor(
    private readonly socket: net.Socket,
    private readonly options: ClientOptions,
  ) {
    this.now = options.now ?? Date.now;
    socket.on("data", (chunk: Buffer) => {
      for (const event of this.reader.push(chunk)) {
        if (event.kind === "line") this.onLine(event.line);
        else
          this.failAll({
            status: "error",
            code: "bad_reply",
            message: "a reply line was too long",
            signed: false,
          });
      }
    });
    socket.on("error", () => undefined); // `close` follows and reports it
    socket.on("close", () => {
      this.closedReason ??= "the connection closed before the reply";
      this.failAll({ status: "unavailable", reason: this.closedReason });
    });
  }

  /** Sends a request and waits for its verified reply. Never throws. */
  request<K extends RequestType>(
    type: K,
    body: RequestBodies[K] | Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<ClientResult<ReplyBodies[K]>> {
    return this.requestRaw(type, JSON.stringify(body), options) as Promise<ClientResult<ReplyBodies[K]>>;
  }

  /** Sends `bodyText` as is under `type` (any type, for probing what a server supports). */
  requestRaw(type: string, bodyText: string, options: RequestOptions = {}): Promise<ClientResult<unknown>> {
    if (this.closedReason !== null || this.socket.destroyed) {
      return Promise.resolve({
        status: "unavailable",
        reason: this.closedReason ?? "the connection is closed",
      });
    }
    if (options.signal?.aborted) {
      return Promise.resolve({ status: "error", code: "cancelled", message: "cancelled", signed: false });
    }
    const id = `${this.idPrefix}-${++this.counter}`;
    const nonce = this.nonces.next();
    const ts = this.now();
    const signed = { type, id, nonce, ts, body: bodyText };
    const frame = {
      v: PROTOCOL_VERSION,
      ...signed,
      mac: computeMac(this.options.token, { direction: "request", ...signed }),
      // The key itself never leaves this process: only a proof bound to this one frame.
      ...(options.task
        ? {
            task: {
              id: options.task.taskId,
              proof: computeTaskProof(options.task.key, options.task.taskId, signed),
            },
          }
        : {}),
    };
    return new Promise((resolve) => {
      const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
      const onAbort = () =>
        settle({ status: "error", code: "cancelled", message: "cancelled", signed: false });
      const timer = setTimeout(
        () =>
          settle({
            status: "error",
            code: "timeout",
            message: `no reply within ${timeoutMs} ms`,
            signed: false,
          }),
        timeoutMs,
      );
      const settle = (result: ClientResult<unknown>) => {
        if (!this.inFlight.delete(id)) return;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const expectType = (REPLY_TYPES as Record<string, string>)[type] ?? null;
      this.inFlight.set(id, { nonce, expectType, settle });
      this.socket.write(`${JSON.stringify(frame)}\n`);
    });
  }

  /** Requests waiting for their replies. */
  get pending(): number {
    return this.inFlight.size;
  }

  close(): void {
    this.closedReason ??= "the client closed the connection";
    this.socket.end();
    this.socket.destroy();
  }

  private onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.failAll(badReply("the server sent a line that is not JSON"));
      return;
    }
    const signed = SignedReplyFrameSchema.safeParse(raw);
    if (!signed.success) {
      this.onUnsigned(raw);
      return;
    }
    const frame = signed.data;
    const target = this.inFlight.get(frame.id);
    if (!target) return; // a late reply to a request that timed out or was cancelled
    if (!macMatches(this.options.token, { direction: "reply", ...frame }, frame.mac)) {
      target.settle(badReply("the reply's signature does not match the socket token"));
      return;
    }
    if (checkFrameTime(frame.ts, this.now()) !== "ok") {
      target.settle(badReply("the reply is too old or from the future"));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(frame.body);
    } catch {
      target.settle(badReply("the reply's body is not JSON"));
      return;
    }
    const re = typeof body === "object" && body !== null ? (body as { re?: unknown }).re : undefined;
    if (re !== target.nonce) {
      target.settle(badReply("the reply answers another request (its re is not this request's nonce)"));
      return;
    }
    if (frame.type === "error") {
      const error = errorBodySchema().safeParse(body);
      target.settle(
        error.success
          ? { status: "error", code: error.data.code, message: error.data.message, signed: true }
          : badReply("the error reply has no code"),
      );
      return;
    }
    if (target.expectType !== null && frame.type !== target.expectType) {
      target.settle(badReply(`expected a "${target.expectType}" reply, got "${frame.type}"`));
      return;
    }
    const schema = replyBodySchema(frame.type);
    if (schema && !schema.safeParse(body).success) {
      target.settle(badReply(`the "${frame.type}" reply does not have the expected fields`));
      return;
    }
    target.settle({ status: "ok", type: frame.type, body });
  }

  /** Unsigned frames can only ever refuse: an unsigned "allow" is a forgery. */
  private onUnsigned(raw: unknown): void {
    const parsed = unsignedErrorFrameSchema().safeParse(raw);
    const id = typeof raw === "object" && raw !== null ? (raw as { id?: unknown }).id : undefined;
    const target = typeof id === "string" ? this.inFlight.get(id) : undefined;
    let result: ClientResult<unknown>;
    if (parsed.success) {
      let code = "error";
      let message = parsed.data.body;
      try {
        const body = errorBodySchema().parse(JSON.parse(parsed.data.body));
        code = body.code;
        message = body.message;
      } catch {
        // keep the raw text as the message
      }
      result = { status: "error", code, message, signed: false };
    } else {
      result = badReply("the server sent an unsigned reply; only a signed reply can answer a request");
    }
    if (target) target.settle(result);
    else this.failAll(result);
  }

  private failAll(result: ClientResult<unknown>): void {
    for (const entry of [...this.inFlight.values()]) entry.settle(result);
  }
}

function badReply(message: string): ClientResult<never> {
  return { status: "error", code: "bad_reply", message, signed: false };
}

export type SocketCredentials =
  | { status: "ok"; socketPath: string; token: string }
  | { status: "unavailable"; reason: string; untrusted?: true };

/**
 * The socket address and token of the Gatehouse home `paths`, from its approvals file — only when the
 * file and its folders are the user's alone (another user could have planted a token and a socket path).
 */
export async function readSocketCredentials(
  paths: Pick<AppPaths, "approvals" | "home" | "executorHome" | "defaultSocket">,
): Promise<SocketCredentials> {
  const untrusted = checkTrustedFile(paths.approvals);
  if (untrusted) return { status: "unavailable", reason: untrusted.message, untrusted: true };
  // Only the socket section: the policy is the server's to read and check.
  const file = readJsonFileSync(paths.approvals, ApprovalsSocketViewSchema);
  if (file.status === "missing") {
    return {
      status: "unavailable",
      reason: `Gatehouse has not been set up here (${paths.approvals} is missing)`,
    };
  }
  if (file.status === "invalid") {
    return { status: "unavailable", reason: `${paths.approvals} is invalid: ${file.error}` };
  }
  return {
    status: "ok",
    socketPath: socketAddress(file.value.socket.path, paths),
    token: file.value.socket.token,
  };
}

/** Reads the home's credentials and connects: one call for CLI commands and the hook. */
export async function connectToHome(
  paths: Pick<AppPaths, "approvals" | "home" | "executorHome" | "defaultSocket">,
  options: Omit<ClientOptions, "socketPath" | "token"> = {},
): Promise<ConnectResult> {
  const credentials = await readSocketCredentials(paths);
  if (credentials.status !== "ok") return credentials;
  return connectApprovalClient({ ...options, socketPath: credentials.socketPath, token: credentials.token });
}

/** Connect, send one request, close. */
export async function requestOnce<K extends RequestType>(
  paths: Pick<AppPaths, "approvals" | "home" | "executorHome" | "defaultSocket">,
  type: K,
  body: RequestBodies[K] | Record<string, unknown>,
  options: RequestOptions & Omit<ClientOptions, "socketPath" | "token"> = {},
): Promise<ClientResult<ReplyBodies[K]>> {
  const connected = await connectToHome(paths, options);
  if (connected.status !== "connected") return connected;
  try {
    return await connected.client.request(type, body, options);
  } finally {
    connected.client.close();
  }
}
