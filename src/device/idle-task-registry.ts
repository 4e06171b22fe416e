// The task registry used until a task runner is wired in: nothing ever runs, but the protocol still
// holds. Cancels of unknown tasks are remembered for 10 minutes (§6.3) and consumed by a matching
// `task:execute`; close-session forgets them (§6.4); any other `task:execute` ends at once with an
// `error` event instead of leaving the backend waiting.
import type { Logger } from "../core/log.js";
import type { TaskEventSink, TaskRegistry, TaskSnapshot } from "./deps.js";
import {
  newTaskRun,
  responseCreated,
  responseIncomplete,
  taskError,
  taskRunIdentity,
} from "./task-events.js";

export const CANCEL_MEMORY_MS = 10 * 60 * 1000;
export const TASKS_UNAVAILABLE = "Task execution is not available in this Gatehouse version";

/** Cancels of tasks that have not arrived yet, keyed `subtask:<id>` or `task:<id>`, with their expiry. */
export class RememberedCancels {
  private readonly entries = new Map<string, { expires: number; taskId: string }>();
  constructor(private readonly now: () => number = Date.now) {}

  remember(request: { taskId: string; subtaskId: string | null }): void {
    this.prune();
    const key = request.subtaskId !== null ? `subtask:${request.subtaskId}` : `task:${request.taskId}`;
    this.entries.set(key, { expires: this.now() + CANCEL_MEMORY_MS, taskId: request.taskId });
  }

  /** True (and forgotten) when a live cancel matches the subtask or the task. */
  consume(taskId: string, subtaskId: string): boolean {
    this.prune();
    for (const key of [`subtask:${subtaskId}`, `task:${taskId}`]) {
      if (this.entries.delete(key)) return true;
    }
    return false;
  }

  /** Forgets every remembered cancel of the task, by task id or by one of its subtasks. */
  forgetTask(taskId: string): void {
    for (const [key, entry] of this.entries) if (entry.taskId === taskId) this.entries.delete(key);
  }

  size(): number {
    this.prune();
    return this.entries.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }
}

export function createIdleTaskRegistry(options: { logger: Logger; now?: () => number }): TaskRegistry {
  const now = options.now ?? Date.now;
  const cancels = new RememberedCancels(now);
  const logger = options.logger.child("tasks");
  return {
    execute(payload, events: TaskEventSink) {
      const identity = taskRunIdentity(payload);
      if (!identity) {
        logger.warn("Dropped a task:execute request without a valid task_id and subtask_id");
        return;
      }
      const run = newTaskRun(identity, now);
      events.emit("response.created", responseCreated(run));
      if (cancels.consume(String(identity.taskId), String(identity.subtaskId))) {
        events.emit("response.incomplete", responseIncomplete(run, "Task cancelled"), { terminal: true });
        return;
      }
      events.emit("error", taskError(run, TASKS_UNAVAILABLE), { terminal: true });
    },
    cancel(request) {
      cancels.remember(request);
    },
    async closeSession(taskId) {
      cancels.forgetTask(taskId);
    },
    snapshot(): TaskSnapshot {
      return { runningTaskIds: [], activeTaskIds: [], queued: 0 };
    },
  };
}
