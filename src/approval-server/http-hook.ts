// The runner's HTTP hook for Claude Code tasks (issue 29; docs/decisions.md "The runner serves Claude
// Code's hook over HTTP"): Claude Code posts each PreToolUse input here instead of starting a
// `gatehouse hook claude` process per tool call. Bound to 127.0.0.1 on an ephemeral port; each turn of a
// task gets an unguessable path and a bearer token that only its 0600 settings file holds (never the
// environment: the agent's own Bash would see it). The token proves which running task asks, so the
// decision is made in-process as that task (`decide`, passed in by services.ts). A grant is revoked
// when its turn ends. What is refused: another method or path, an `Origin` header (a web page), a
// `Host` other than the bound address (DNS rebinding), a body over the limit, a missing or wrong token,
// a revoked grant. Every answer carries an explicit decision, and anything that goes wrong is a deny:
// Claude Code (with `onFailure: "block"`) also blocks on any status but 200.
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { claudeHookOutput, type HookVerdict } from "../shared/claude-hook-output.js";
import type { Logger } from "../core/log.js";

/** Largest PreToolUse input accepted (a Write of a big file carries its content). */
export const HTTP_HOOK_MAX_BODY_BYTES = 4 * 1024 * 1024;

const LOOPBACK = "127.0.0.1";

/** Decides one PreToolUse input of the grant's task; `signal` aborts when Claude Code hangs up. */
export type HttpHookDecide<S> = (session: S, input: string, signal: AbortSignal) => Promise<HookVerdict>;

export interface HttpHookGrant<S> {
  /** The URL Claude Code posts to (its path is the grant's own). */
  url: string;
  /** The bearer token, written literally into the task's settings file. */
  token: string;
  /** The task's session: until it is bound (the agent is about to start), every request is denied. */
  bind(session: S): void;
  /** The turn ended: the path and token stop counting. */
  revoke(): void;
}

interface Held<S> {
  token: Buffer;
  session: S | null;
}

export interface HttpHookServerOptions<S> {
  decide: HttpHookDecide<S>;
  logger: Logger;
  maxBodyBytes?: number;
}

/** A refusal: the status and the reason (also sent as a deny, so the answer is a decision either way). */
interface Refusal {
  status: number;
  reason: string;
}

const REFUSED = "Gatehouse refused this hook request";

export class HttpHookServer<S> {
  private readonly grants = new Map<string, Held<S>>();
  private server: http.Server | null = null;
  private port = 0;

  constructor(private readonly options: HttpHookServerOptions<S>) {}

  /** The address it listens on, e.g. `http://127.0.0.1:41234` (null before start or after close). */
  get origin(): string | null {
    return this.server ? `http://${LOOPBACK}:${this.port}` : null;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => this.handle(req, res));
    // Claude Code keeps its connection; a slow sender must not hold one open forever.
    server.headersTimeout = 10_000;
    server.requestTimeout = 0;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, LOOPBACK, () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** A new path and token for one turn of a task. Throws when the server is not listening (a bug). */
  grant(): HttpHookGrant<S> {
    const origin = this.origin;
    if (!origin) throw new Error("the HTTP hook server is not listening");
    const id = randomBytes(24).toString("hex");
    const token = randomBytes(32).toString("hex");
    const held: Held<S> = { token: Buffer.from(token), session: null };
    this.grants.set(id, held);
    return {
      url: `${origin}/hook/${id}`,
      token,
      bind: (session) => {
        if (this.grants.get(id) === held) held.session = session;
      },
      revoke: () => {
        if (this.grants.get(id) === held) this.grants.delete(id);
      },
    };
  }

  /** Grants held now. */
  get size(): number {
    return this.grants.size;
  }

  /** Stops listening and drops every connection and grant (a call in flight is then blocked by Claude Code). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.grants.clear();
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Why the request is refused before its body is read, or the grant it may use. */
  private check(req: http.IncomingMessage): Refusal | Held<S> {
    if (req.headers.origin !== undefined)
      return { status: 403, reason: "a request with an Origin header (a web page) is not a hook" };
    if (req.headers.host !== `${LOOPBACK}:${this.port}`)
      return { status: 403, reason: `the Host must be ${LOOPBACK}:${this.port}` };
    if (req.method !== "POST") return { status: 405, reason: "only POST is a hook request" };
    const match = /^\/hook\/([0-9a-f]{48})$/.exec(req.url ?? "");
    const held = match ? this.grants.get(match[1]!) : undefined;
    const bearer = /^Bearer ([0-9a-f]{64})$/.exec(req.headers.authorization ?? "");
    const given = bearer ? Buffer.from(bearer[1]!) : null;
    // One answer for an unknown path, a revoked grant and a wrong token: none tells which it was.
    if (!held || !given || given.length !== held.token.length || !timingSafeEqual(given, held.token))
      return { status: 403, reason: "no running task holds this hook address and token" };
    const length = Number(req.headers["content-length"] ?? "0");
    if (length > this.maxBody)
      return { status: 413, reason: `the hook input is larger than ${this.maxBody} bytes` };
    return held;
  }

  private get maxBody(): number {
    return this.options.maxBodyBytes ?? HTTP_HOOK_MAX_BODY_BYTES;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const checked = this.check(req);
    if ("status" in checked) {
      this.options.logger.warn(`HTTP hook request refused: ${checked.reason}`);
      refuse(res, checked);
      req.resume();
      return;
    }
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    readBody(req, this.maxBody).then(
      async (body) => {
        if (body === null) return refuse(res, { status: 413, reason: "the hook input is too large" });
        const session = checked.session;
        if (session === null)
          return answer(res, { allow: false, reason: `${REFUSED}: the task has not started yet.` });
        let verdict: HookVerdict;
        try {
          verdict = await this.options.decide(session, body, aborted.signal);
        } catch (error) {
          this.options.logger.warn("the HTTP hook failed to decide", { error });
          verdict = {
            allow: false,
            reason: `Gatehouse failed to decide (${(error as Error).message}), so it blocks this call.`,
          };
        }
        answer(res, verdict);
      },
      () => refuse(res, { status: 400, reason: "the hook input could not be read" }),
    );
  }
}

/** The whole body as text, or null when it grows past `max` (the rest is discarded). */
function readBody(req: http.IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function answer(res: http.ServerResponse, verdict: HookVerdict, status = 200): void {
  if (res.headersSent || res.destroyed) return;
  const body = claudeHookOutput(verdict);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function refuse(res: http.ServerResponse, refusal: Refusal): void {
  answer(res, { allow: false, reason: `${REFUSED}: ${refusal.reason}.` }, refusal.status);
}
