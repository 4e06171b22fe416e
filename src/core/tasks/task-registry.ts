// The task runner's surface as the device connection sees it (device-protocol.md §6.1–§6.4): the
// vocabulary shared by device/ (which routes backend events) and executor/tasks (which runs them).
/** Emits a task event (§6.2: the event name equals `event_type`). */
export interface TaskEventSink {
  /**
   * `terminal` events (completed, error, incomplete) are kept while the device is not registered and
   * sent right after the next successful registration; other events are dropped then.
   */
  emit(eventType: string, body: Record<string, unknown>, options?: { terminal?: boolean }): void;
}

export interface TaskSnapshot {
  /** Ids of started tasks (may include non-numeric ids; the heartbeat filters them). */
  runningTaskIds: string[];
  /** Started tasks, for `runtime_capacity.active_task_ids`. */
  activeTaskIds: string[];
  /** Tasks waiting for a slot. */
  queued: number;
}

/**
 * The task runner's surface (device-protocol.md §6.1–§6.4). Payloads arrive validated only as far as
 * the device needs to route them; the runner validates the rest.
 */
export interface TaskRegistry {
  execute(payload: Record<string, unknown>, events: TaskEventSink): void;
  /** §6.3: a queued or running task is stopped; an unknown one is remembered for 10 minutes. */
  cancel(request: { taskId: string; subtaskId: string | null }, events: TaskEventSink): void;
  /** §6.4: stop the run or queued entry, forget the runtime session and any remembered cancel. */
  closeSession(taskId: string, events: TaskEventSink): Promise<void>;
  snapshot(): TaskSnapshot;
  /**
   * `task:error` (the backend could not dispatch the task): the queued or running run ends with an error
   * event carrying the backend's message; an unknown task is ignored. Optional: the idle registry has none.
   */
  dispatchError?(
    request: { taskId: string; subtaskId: string | null },
    message: string,
    events: TaskEventSink,
  ): void;
}
