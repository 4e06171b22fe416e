// The task runner (device-protocol.md §6.1–§6.4): `task:execute` runs Claude Code or Codex in the
// session's workdir, `task:cancel` and `task:close-session` stop runs, heartbeats read `snapshot()`,
// the tray and main window read `list()` / `onChange()` and may `stop()` a task.
//
// Requests are handled one at a time in arrival order (a cancel that arrives right after an execute
// always sees it), each quickly: turns run off that queue. At most `max_concurrent_tasks` runs are
// started; the rest wait in a FIFO queue. A slot is taken in `pump` and given back in exactly one
// place, `runEntry`'s `finally` (or `stopEntry`/`shutdown` for a run they end): nothing a request
// carries and no failing event emit can keep it.
import type { Logger } from "../../core/log.js";
import { runtimeFolder, type RuntimeKind } from "../../core/runtime/index.js";
import type { TaskEventSink, TaskRegistry, TaskSnapshot } from "../../core/tasks/task-registry.js";
import { RememberedCancels } from "../../core/tasks/remembered-cancels.js";
import { newTaskRun, taskRunIdentity } from "../../core/tasks/task-events.js";
import type { AgentProcess } from "./agent-process.js";
import type { DeviceFacts, TaskRunnerOptions } from "./deps.js";
import { ResponseStream } from "./response-stream.js";
import { removeRuntimeFolder } from "./task-files.js";
import { agentSessionsFile, AgentSessionStore } from "./session-store.js";
import { AgentCliProbe } from "./agent-cli-probe.js";
import { runTurn, type TurnContext } from "./task-turn.js";

export const DEFAULT_MAX_CONCURRENT_TASKS = 5;
export const SHUTDOWN_MESSAGE = "Gatehouse stopped while this task was running. Send the message again.";

/** A running task as the tray and main window show it (ipc contract `RunningTask`). */
export interface RunningTaskView {
  taskId: string;
  subtaskId: string | null;
  /** `claude-code` or `codex` once known, else the request's shell type. */
  agent: string;
  workdir: string | null;
  /** Milliseconds since the epoch. */
  startedAt: number;
}

type StopReason = "Task cancelled" | "Task session closed";

interface RunEntry {
  taskId: string;
  subtaskId: string;
  payload: Record<string, unknown>;
  stream: ResponseStream;
  state: "queued" | "running" | "ended";
  abort: AbortController;
  /** Earlier runs of the same task that must have exited before this one spawns. */
  after: Promise<void>;
  agent: RuntimeKind | null;
  workdir: string | null;
  startedAt: number | null;
  process: AgentProcess | null;
  /** The run's own secrets (TurnHandle.secret), forgotten once its terminal event has been sent. */
  secrets: string[];
  /** Resolves when the run is over and its agent process has exited. */
  done: Promise<void>;
  finish: () => void;
}

function clampLimit(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_MAX_CONCURRENT_TASKS;
  return Math.min(20, Math.max(1, Math.trunc(value)));
}

function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

export class TaskRunner implements TaskRegistry {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly cancels: RememberedCancels;
  private readonly running = new Map<string, RunEntry>();
  private readonly queue: RunEntry[] = [];
  /** Resume ids on disk (session-store.ts): a turn after a restart resumes its task's session. */
  private readonly sessions: AgentSessionStore;
  private readonly listeners = new Set<() => void>();
  private readonly turns = new Set<Promise<void>>();
  private intake: Promise<void> = Promise.resolve();
  private limit = DEFAULT_MAX_CONCURRENT_TASKS;
  private closed = false;
  private readonly agentClis: AgentCliProbe;

  constructor(private readonly options: TaskRunnerOptions) {
    this.agentClis = new AgentCliProbe(options.env);
    this.logger = options.logger.child("tasks");
    this.now = options.now ?? Date.now;
    this.cancels = new RememberedCancels(this.now);
    this.sessions = new AgentSessionStore(
      agentSessionsFile(options.paths.executorHome),
      this.logger,
      this.now,
    );
  }

  // ---- TaskRegistry (device-protocol.md §6.1–§6.4) ------------------------------------------------

  execute(payload: Record<string, unknown>, events: TaskEventSink): void {
    const identity = taskRunIdentity(payload);
    if (!identity) {
      this.logger.warn("Dropped a task:execute request without a valid task_id and subtask_id");
      return;
    }
    void this.serial(async () => {
      await this.sessions.load();
      const facts = await this.deviceFacts();
      if (facts) this.limit = clampLimit(facts.maxConcurrentTasks);
      const filled = { ...payload };
      if (facts) {
        if (blank(filled.backend_url)) filled.backend_url = facts.backendUrl;
        if (blank(filled.auth_token) && facts.authToken) filled.auth_token = facts.authToken;
        if (blank(filled.device_id)) filled.device_id = facts.deviceId;
      }
      if (typeof filled.auth_token === "string") this.logger.addSecret(filled.auth_token);
      const taskId = String(identity.taskId);
      const subtaskId = String(identity.subtaskId);
      const stream = new ResponseStream(newTaskRun(identity, this.now), this.safeSink(events));
      if (this.closed) {
        stream.failed(SHUTDOWN_MESSAGE);
        return;
      }
      if (this.cancels.consume(taskId, subtaskId)) {
        stream.created();
        stream.incomplete("Task cancelled");
        return;
      }
      const earlier = this.entriesOf(taskId).map((entry) => this.stopEntry(entry, "Task cancelled"));
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      this.queue.push({
        taskId,
        subtaskId,
        payload: filled,
        stream,
        state: "queued",
        abort: new AbortController(),
        after: Promise.all(earlier).then(() => undefined),
        agent: null,
        workdir: null,
        startedAt: null,
        process: null,
        secrets: [],
        done,
        finish,
      });
      this.pump();
      this.changed();
    });
  }

  cancel(request: { taskId: string; subtaskId: string | null }): void {
    void this.serial(async () => {
      const matches = this.entriesOf(request.taskId).filter(
        (entry) => request.subtaskId === null || entry.subtaskId === request.subtaskId,
      );
      if (matches.length === 0) {
        this.cancels.remember(request);
        this.logger.info(`remembered a cancel for task ${request.taskId}`, { subtask: request.subtaskId });
        return;
      }
      this.logger.info(`cancelling task ${request.taskId}`, {
        subtask: request.subtaskId,
        runs: matches.length,
      });
      for (const entry of matches) void this.stopEntry(entry, "Task cancelled");
    });
  }

  /** `task:error`: the backend could not dispatch the task; its queued or running run ends with that error. */
  dispatchError(request: { taskId: string; subtaskId: string | null }, message: string): void {
    void this.serial(async () => {
      const matches = this.entriesOf(request.taskId).filter(
        (entry) => request.subtaskId === null || entry.subtaskId === request.subtaskId,
      );
      if (matches.length === 0) {
        this.logger.info(`a dispatch error for task ${request.taskId}, which is not here`, {
          subtask: request.subtaskId,
        });
        return;
      }
      for (const entry of matches) void this.stopEntry(entry, { error: message });
    });
  }

  async closeSession(taskId: string): Promise<void> {
    let stopped: Promise<void>[] = [];
    await this.serial(async () => {
      await this.sessions.load();
      stopped = this.entriesOf(taskId).map((entry) => this.stopEntry(entry, "Task session closed"));
      this.sessions.delete(taskId);
      this.cancels.forgetTask(taskId);
      this.options.skills?.endSession(sessionKey(taskId));
    });
    await Promise.all(stopped);
  }

  snapshot(): TaskSnapshot {
    const ids = [...new Set([...this.running.values()].map((entry) => entry.taskId))];
    return { runningTaskIds: ids, activeTaskIds: ids, queued: this.queue.length };
  }

  // ---- for the tray and main window -------------------------------------------------------------

  list(): RunningTaskView[] {
    return [...this.running.values()].map((entry) => ({
      taskId: entry.taskId,
      subtaskId: entry.subtaskId,
      agent: entry.agent ?? entry.stream.run.shellType ?? "unknown",
      workdir: entry.workdir,
      startedAt: entry.startedAt ?? this.now(),
    }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The user stopped a task from the UI: the same as a backend `task:cancel`. */
  async stop(taskId: string, subtaskId: string | null = null): Promise<boolean> {
    let stopped: Promise<void>[] = [];
    await this.serial(async () => {
      const matches = this.entriesOf(taskId).filter((e) => subtaskId === null || e.subtaskId === subtaskId);
      stopped = matches.map((entry) => this.stopEntry(entry, "Task cancelled"));
    });
    await Promise.all(stopped);
    return stopped.length > 0;
  }

  /** The resume id of a task's live agent session (Claude session id, Codex thread id), if any. */
  agentSession(taskId: string): { runtime: RuntimeKind; resumeId: string; cwd: string } | null {
    const session = this.sessions.get(taskId);
    return session ? { ...session } : null;
  }

  /** Resolves once every started turn is over (tests, shutdown). */
  async idle(): Promise<void> {
    await this.intake;
    while (this.turns.size > 0) await Promise.allSettled([...this.turns]);
  }

  /**
   * App shutdown: no new task starts; running and queued tasks end with an error event (kept for the
   * backend while it is unreachable) and their agent processes are stopped.
   */
  async shutdown(): Promise<void> {
    await this.serial(async () => {
      this.closed = true;
      for (const entry of [...this.queue, ...this.running.values()]) {
        entry.abort.abort();
        void entry.process?.stop().catch(() => undefined);
        this.release(entry);
        entry.stream.failed(SHUTDOWN_MESSAGE);
      }
      this.queue.length = 0;
    });
    await this.idle();
    await this.sessions.flush();
  }

  // ---- internals --------------------------------------------------------------------------------

  private serial(fn: () => Promise<void>): Promise<void> {
    const next = this.intake.then(fn).catch((error: unknown) => {
      this.logger.error("A task request failed unexpectedly", { error });
    });
    this.intake = next;
    return next;
  }

  private async deviceFacts(): Promise<DeviceFacts | null> {
    try {
      return await this.options.deviceFacts();
    } catch (error) {
      this.logger.warn("Could not read the device configuration for a task", { error });
      return null;
    }
  }

  private entriesOf(taskId: string): RunEntry[] {
    return [...this.queue, ...this.running.values()].filter((entry) => entry.taskId === taskId);
  }

  /**
   * §6.3/§6.4: a queued run is removed, a running one stopped; either way `response.incomplete` (or, for
   * a dispatch error from the backend, an `error` event with its message).
   */
  private stopEntry(entry: RunEntry, reason: StopReason | { error: string }): Promise<void> {
    entry.abort.abort();
    void entry.process?.stop().catch(() => undefined);
    this.release(entry);
    if (typeof reason === "string") entry.stream.incomplete(reason);
    else entry.stream.failed(reason.error);
    this.pump();
    return entry.done;
  }

  /** Task events are best effort: an emit that throws is logged and never unwinds slot accounting. */
  private safeSink(events: TaskEventSink): TaskEventSink {
    return {
      emit: (eventType, body, options) => {
        try {
          events.emit(eventType, body, options);
        } catch (error) {
          this.logger.error(`Could not send the task event ${eventType}`, { error });
        }
      },
    };
  }

  /** The run leaves `running_task_ids` and the queue; its slot is free. */
  private release(entry: RunEntry): void {
    const queued = this.queue.indexOf(entry);
    if (queued >= 0) this.queue.splice(queued, 1);
    if (entry.state === "queued") entry.finish();
    if (this.running.get(entry.subtaskId) === entry) this.running.delete(entry.subtaskId);
    entry.state = "ended";
    this.changed();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.limit && this.queue.length > 0) {
      const entry = this.queue.shift()!;
      entry.state = "running";
      entry.startedAt = this.now();
      this.running.set(entry.subtaskId, entry);
      // From here the slot is the run's: runEntry gives it back whatever happens.
      const turn = this.runEntry(entry);
      this.turns.add(turn);
      void turn.finally(() => this.turns.delete(turn));
      this.changed();
    }
  }

  private async runEntry(entry: RunEntry): Promise<void> {
    const ctx: TurnContext = {
      options: this.options,
      logger: this.logger,
      agentClis: this.agentClis,
      sessions: this.sessions,
      sessionKey,
    };
    try {
      entry.stream.created(); // §6.1 step 6: starting = response.created + running id
      await entry.after;
      if (!entry.abort.signal.aborted) {
        await runTurn(ctx, {
          taskId: entry.taskId,
          payload: entry.payload,
          stream: entry.stream,
          signal: entry.abort.signal,
          started: ({ agent, workdir }) => {
            entry.agent = agent;
            entry.workdir = workdir;
            this.changed();
          },
          spawned: (process) => {
            entry.process = process;
            if (entry.abort.signal.aborted) void process.stop();
          },
          secret: (value) => {
            this.logger.addSecret(value);
            entry.secrets.push(value);
          },
        });
      }
    } catch (error) {
      this.logger.error(`task ${entry.taskId}: the run failed unexpectedly`, { error });
      entry.stream.failed(`Gatehouse could not run the task: ${(error as Error).message}`);
    } finally {
      if (entry.process) await entry.process.stop().catch(() => undefined);
      try {
        // Before the task's next run may start (it waits for `finish`) and write the folder anew.
        await removeRuntimeFolder(runtimeFolder(this.options.paths, entry.taskId), this.logger);
        if (entry.stream.ended === null) entry.stream.failed("The task ended without a result.");
      } finally {
        // The terminal event has left (redacted as it was emitted) and the agent has exited.
        for (const secret of entry.secrets.splice(0)) this.logger.forgetSecret(secret);
        // serial() never rejects: the slot goes back even when the lines above threw.
        await this.serial(async () => {
          this.release(entry);
          this.pump();
        });
        entry.finish();
      }
    }
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.warn("A task list listener failed", { error });
      }
    }
  }
}

export function sessionKey(taskId: string): string {
  return `task:${taskId}`;
}
