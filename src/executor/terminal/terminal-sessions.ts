// Terminal sessions the backend opens on this device (Wegent executor/src/local/session.rs, issue 31):
// the user's shell on a pseudo-terminal in the session's folder, its output relayed as
// `terminal:output` and its end as `terminal:exit` over the connection that opened it.
//
// As in Wegent: output is buffered until the browser attaches (`terminal:attach`), then relayed; input
// and resize go to the PTY; a backend `terminal:close` ends it without an exit event; a new session
// with the id of an open one replaces it. Gatehouse's own rules on top:
// - opening is decided by the gate (terminal-decision.ts) after the folder passed the workdir rules;
// - a session never outlives the connection that opened it, its time to live (at most an hour, as the
//   backend's) or an idle spell without input or output, nor a browser that never attaches;
// - output is bounded: while more than HIGH_WATER characters wait (before attach, or faster than they
//   are relayed) the PTY is paused, so memory stays bounded and the shell blocks instead;
// - every session is audited: the decision line when it opens (who decided), a run line when it ends
//   (how, exit code, duration); `list()` / `onChange()` show the open ones; the person may `close()` one.
import type { Logger } from "../../core/log.js";
import type { AuditLog } from "../audit-log.js";
import { signalProcessGroup } from "../kill-tree.js";
import type { PtyProcess, SpawnPty } from "./pty.js";
import type { TerminalShell } from "./terminal-shell.js";

/** Wegent's default (and the backend's cap) for a session's life. */
export const DEFAULT_TTL_SECONDS = 60 * 60;
export const MAX_TTL_SECONDS = 60 * 60;
export const DEFAULT_IDLE_MS = 30 * 60_000;
/** A browser that has not attached by then never will (the backend attaches right after the start). */
export const ATTACH_DEADLINE_MS = 2 * 60_000;
/** Characters waiting to be relayed before the PTY is paused, and resumed again. */
export const HIGH_WATER = 256 * 1024;
export const LOW_WATER = 64 * 1024;
/** At most this many UTF-16 units per `terminal:output` (≤ 192 KB of JSON even for control characters). */
export const MAX_OUTPUT_CHUNK = 32 * 1024;
export const FLUSH_INTERVAL_MS = 25;
export const MAX_SESSIONS = 16;
/** SIGHUP first (a closed terminal), SIGKILL to the group after this. */
const KILL_GRACE_MS = 2_000;

/** The connection a session belongs to: where its events go, and whether it is still there. */
export interface TerminalOwner {
  emit(event: "terminal:output" | "terminal:exit", body: Record<string, unknown>): void;
  isLive(): boolean;
}

/** An open terminal, as the tray and the main window show it. */
export interface TerminalView {
  sessionId: string;
  folder: string;
  shell: string;
  openedAt: number;
  expiresAt: number;
  attached: boolean;
  decidedBy: string;
  /** The shell's process id (it leads its own process group). */
  pid: number;
}

export interface TerminalStart {
  sessionId: string;
  folder: string;
  shell: TerminalShell;
  env: Record<string, string>;
  rows: number;
  cols: number;
  ttlSeconds: number;
  owner: TerminalOwner;
  /** The opening decision (its run id and who decided), for the audit's closing line. */
  runId: string;
  decidedBy: string;
}

export type CloseReason =
  | "exited"
  | "backend"
  | "person"
  | "expired"
  | "idle"
  | "never-attached"
  | "disconnected"
  | "shutdown"
  | "replaced";

const CLOSE_TEXT: Record<CloseReason, string> = {
  exited: "the shell exited",
  backend: "closed by the backend",
  person: "closed by the person at this device",
  expired: "its time to live ran out",
  idle: "no input or output for too long",
  "never-attached": "no browser attached to it",
  disconnected: "the connection that opened it ended",
  shutdown: "Gatehouse stopped",
  replaced: "the backend opened a new session with the same id",
};

interface Session {
  view: TerminalView;
  pty: PtyProcess;
  owner: TerminalOwner;
  runId: string;
  pending: string;
  paused: boolean;
  exit: { code: number | null; error?: string } | null;
  closing: CloseReason | null;
  lastActivity: number;
  timers: NodeJS.Timeout[];
  flushTimer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

export interface TerminalSessionsOptions {
  spawn: SpawnPty;
  audit?: AuditLog | null;
  logger: Logger;
  now?: () => number;
  idleMs?: number;
  attachDeadlineMs?: number;
  platform?: NodeJS.Platform;
}

export type TerminalResult = { ok: true } | { ok: false; error: string };

export class TerminalSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly options: TerminalSessionsOptions) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger.child("terminals");
  }

  /** Whether another session may open (the decision is not asked for when this says no). */
  hasRoomFor(sessionId: string): boolean {
    return this.sessions.has(sessionId) || this.sessions.size < MAX_SESSIONS;
  }

  /** Starts the shell on a PTY; the decision was taken. Replaces an open session with the same id. */
  open(start: TerminalStart): TerminalResult {
    const existing = this.sessions.get(start.sessionId);
    if (existing) this.end(existing, "replaced");
    if (this.sessions.size >= MAX_SESSIONS) return { ok: false, error: "Too many open terminal sessions" };
    let pty: PtyProcess;
    try {
      pty = this.options.spawn({
        file: start.shell.given,
        args: [],
        cwd: start.folder,
        env: start.env,
        rows: start.rows,
        cols: start.cols,
      });
    } catch (error) {
      return { ok: false, error: `Failed to start terminal: ${(error as Error).message}` };
    }
    const openedAt = this.now();
    const ttl = Math.min(MAX_TTL_SECONDS, Math.max(1, start.ttlSeconds)) * 1000;
    let exited!: () => void;
    const session: Session = {
      view: {
        sessionId: start.sessionId,
        folder: start.folder,
        shell: start.shell.given,
        openedAt,
        expiresAt: openedAt + ttl,
        attached: false,
        decidedBy: start.decidedBy,
        pid: pty.pid,
      },
      pty,
      owner: start.owner,
      runId: start.runId,
      pending: "",
      paused: false,
      exit: null,
      closing: null,
      lastActivity: openedAt,
      timers: [],
      flushTimer: null,
      exited: new Promise<void>((resolve) => (exited = resolve)),
    };
    this.sessions.set(start.sessionId, session);
    pty.onData((data) => this.output(session, data));
    pty.onExit(({ exitCode, signal }) => {
      // A shell killed by a signal reports 128 + the signal, as shells do for their own children.
      const code = signal ? 128 + signal : exitCode;
      session.exit = { code };
      exited();
      this.exitedOnItsOwn(session);
    });
    const idleMs = this.options.idleMs ?? DEFAULT_IDLE_MS;
    session.timers.push(
      unref(setTimeout(() => this.end(session, "expired"), ttl)),
      unref(
        setTimeout(() => {
          if (!session.view.attached) this.end(session, "never-attached");
        }, this.options.attachDeadlineMs ?? ATTACH_DEADLINE_MS),
      ),
      unref(
        setInterval(
          () => {
            if (this.now() - session.lastActivity >= idleMs) this.end(session, "idle");
          },
          Math.max(1_000, Math.min(60_000, idleMs / 4)),
        ),
      ),
    );
    this.logger.info(`terminal ${start.sessionId} opened in ${start.folder}`, { decidedBy: start.decidedBy });
    this.changed();
    return { ok: true };
  }

  /** `terminal:attach`: from now on output (kept so far included) is relayed. */
  attach(sessionId: string, owner: TerminalOwner): TerminalResult {
    const session = this.ownedBy(sessionId, owner);
    if (!session) return { ok: false, error: "Terminal session not found" };
    if (!session.view.attached) {
      session.view.attached = true;
      this.changed();
    }
    this.scheduleFlush(session);
    return { ok: true };
  }

  input(sessionId: string, data: string, owner: TerminalOwner): TerminalResult {
    const session = this.ownedBy(sessionId, owner);
    if (!session || session.closing) return { ok: false, error: "Terminal session not found" };
    if (session.exit) return { ok: false, error: "Terminal session is not writable" };
    try {
      session.pty.write(data);
    } catch {
      return { ok: false, error: "Terminal session is not writable" };
    }
    session.lastActivity = this.now();
    return { ok: true };
  }

  resize(sessionId: string, rows: number, cols: number, owner: TerminalOwner): TerminalResult {
    const session = this.ownedBy(sessionId, owner);
    if (!session || session.closing) return { ok: false, error: "Terminal session not found" };
    if (session.exit) return { ok: false, error: "Terminal session is not resizable" };
    try {
      session.pty.resize(Math.max(1, cols), Math.max(1, rows));
    } catch {
      return { ok: false, error: "Terminal session is not resizable" };
    }
    return { ok: true };
  }

  /** `terminal:close` from the backend: ended without an exit event; an unknown id is already closed. */
  closeFromBackend(sessionId: string, owner: TerminalOwner): TerminalResult {
    const session = this.ownedBy(sessionId, owner);
    if (session) this.end(session, "backend");
    return { ok: true };
  }

  /** The person closed it (tray, main window): the browser hears why. */
  close(sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    this.end(session, "person");
    return true;
  }

  /** The connection that opened these sessions ended: none outlives it. */
  ownerGone(owner: TerminalOwner): void {
    for (const session of [...this.sessions.values()])
      if (session.owner === owner) this.end(session, "disconnected");
  }

  list(): TerminalView[] {
    return [...this.sessions.values()].map((s) => ({ ...s.view }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every session and waits for their shells to exit (app stop). */
  async shutdown(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const session of all) this.end(session, "shutdown");
    await Promise.all(all.map((s) => s.exited));
  }

  // ---- internals ----------------------------------------------------------------------------------

  private ownedBy(sessionId: string, owner: TerminalOwner): Session | null {
    const session = this.sessions.get(sessionId);
    return session && session.owner === owner ? session : null;
  }

  private output(session: Session, data: string): void {
    if (session.closing) return;
    session.pending += data;
    session.lastActivity = this.now();
    if (session.pending.length > HIGH_WATER && !session.paused) {
      session.paused = true;
      session.pty.pause();
    }
    if (session.view.attached) this.scheduleFlush(session);
  }

  private scheduleFlush(session: Session): void {
    if (session.flushTimer || session.closing) return;
    session.flushTimer = setTimeout(() => {
      session.flushTimer = null;
      this.flush(session);
    }, FLUSH_INTERVAL_MS);
  }

  /** Relays what waits, a chunk per tick; the exit event follows the last of the output. */
  private flush(session: Session): void {
    if (!session.view.attached || !session.owner.isLive()) return;
    if (session.pending.length > 0) {
      let end = Math.min(session.pending.length, MAX_OUTPUT_CHUNK);
      // never split a surrogate pair between two messages
      const last = session.pending.charCodeAt(end - 1);
      if (end < session.pending.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      const chunk = session.pending.slice(0, end);
      session.pending = session.pending.slice(end);
      session.owner.emit("terminal:output", { session_id: session.view.sessionId, data: chunk });
      if (session.paused && session.pending.length < LOW_WATER && !session.closing) {
        session.paused = false;
        session.pty.resume();
      }
      if (session.pending.length > 0) return this.scheduleFlush(session);
    }
    if (session.exit && session.closing === null) this.finish(session);
  }

  /** The shell exited by itself: its output, then `terminal:exit` once the browser is attached. */
  private exitedOnItsOwn(session: Session): void {
    if (session.closing) return this.forget(session);
    if (session.view.attached) this.scheduleFlush(session);
    // Not attached: kept until the browser attaches or the attach deadline passes.
  }

  /** Sends `terminal:exit` (Wegent's `{session_id, exit_code}`) and forgets the session: it ended by itself. */
  private finish(session: Session): void {
    if (session.owner.isLive())
      session.owner.emit("terminal:exit", {
        session_id: session.view.sessionId,
        exit_code: session.exit?.code ?? null,
      });
    session.closing = "exited";
    this.forget(session);
  }

  /** Ends a session for `reason`: kills the shell's group, tells the browser unless the backend asked. */
  private end(session: Session, reason: CloseReason): void {
    if (session.closing) return;
    const announce = reason !== "backend" && reason !== "disconnected" && reason !== "replaced";
    if (announce && session.view.attached && session.owner.isLive()) {
      if (session.pending) {
        session.owner.emit("terminal:output", { session_id: session.view.sessionId, data: session.pending });
        session.pending = "";
      }
      session.owner.emit("terminal:exit", {
        session_id: session.view.sessionId,
        exit_code: session.exit?.code ?? null,
        error: `Terminal session ended: ${CLOSE_TEXT[reason]}`,
      });
    }
    session.closing = reason;
    if (!session.exit) this.kill(session);
    this.forget(session);
  }

  private kill(session: Session): void {
    const platform = this.options.platform ?? process.platform;
    try {
      session.pty.kill(platform === "win32" ? undefined : "SIGHUP");
    } catch {
      // already gone
    }
    if (platform === "win32") return;
    const pid = session.pty.pid;
    const hard = unref(setTimeout(() => signalProcessGroup(pid, "SIGKILL", platform), KILL_GRACE_MS));
    void session.exited.then(() => {
      clearTimeout(hard);
      // what the shell left running in its group goes with it
      signalProcessGroup(pid, "SIGKILL", platform);
    });
  }

  /** Timers off, out of the list, the closing line in the audit log (once the shell has exited). */
  private forget(session: Session): void {
    if (this.sessions.get(session.view.sessionId) !== session) return;
    this.sessions.delete(session.view.sessionId);
    for (const timer of session.timers) clearTimeout(timer);
    if (session.flushTimer) clearTimeout(session.flushTimer);
    session.pending = "";
    this.changed();
    void session.exited.then(() => this.auditEnd(session));
    this.logger.info(`terminal ${session.view.sessionId} closed: ${CLOSE_TEXT[session.closing ?? "exited"]}`);
  }

  private async auditEnd(session: Session): Promise<void> {
    if (!this.options.audit) return;
    const reason = session.closing ?? "exited";
    try {
      await this.options.audit.appendBuilt({
        ts: this.now(),
        runId: session.runId,
        event: "run",
        agentId: "backend",
        sessionKey: `terminal:${session.view.sessionId}`,
        source: "backend",
        command: session.view.shell,
        cwd: session.view.folder,
        decision: "allow-once",
        decidedBy: session.view.decidedBy as `rule:${string}` | "user" | "fallback" | "policy",
        reason: `terminal ended: ${CLOSE_TEXT[reason]}`,
        exitCode: session.exit?.code ?? null,
        timedOut: reason === "expired" || reason === "idle",
        durationMs: Math.max(0, this.now() - session.view.openedAt),
        commandKey: "terminal",
      });
    } catch (error) {
      this.logger.error("could not write a terminal's closing line to the audit log", { error });
    }
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.warn("a terminal list listener failed", { error });
      }
    }
  }
}

function unref<T extends NodeJS.Timeout>(timer: T): T {
  timer.unref?.();
  return timer;
}
