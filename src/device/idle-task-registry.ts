// The task registry used until a task runner is wired in: nothing ever runs, but the protocol still
// holds. Cancels of unknown tasks are remembered for 10 minutes (§6.3) and consumed by a matching
// `task:execute`; close-session forgets them (§6.4); any other `task:execute` ends at once with an
// `error` event instead of leaving the backend waiting.
import type { Logger } from "../core/log.js";
import { CANCEL_MEMORY_MS, RememberedCancels } from "../core/tasks/remembered-cancels.js";
import type { TaskEventSink, TaskRegistry, TaskSnapshot } from "../core/tasks/task-registry.js";
import {
  newTaskRun,
  responseCreated,
  responseIncomplete,
  taskError,
  taskRunIdentity,
} from "../core/tasks/task-events.js";

export { CANCEL_MEMORY_MS, RememberedCancels };

export const TASKS_UNAVAILABLE = "Task execution is not available in this Gatehouse version";

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
