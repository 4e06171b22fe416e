// What the device connection needs from the rest of the app, as narrow interfaces, so the composition
// root (src/services.ts) passes the real services and tests pass real implementations built in a temp
// home. Nothing here is implemented by device/ itself except the idle task registry.

/** The §5 capability report sent in every heartbeat (`full` is always true). */
export interface CapabilityReport {
  revision: number;
  digest: string;
  full: boolean;
  skills: unknown[];
  plugins: unknown[];
  mcps: unknown[];
  last_sync_at: string | null;
}

/** The §7.10 ack (or a hard error `{success: false, error}`), sent back as it is. */
export type SyncAck = { success: boolean; error?: string };

export interface CapabilitiesPort {
  /** Applies a `device:sync_capabilities` payload; serialised by the implementation (§7). */
  applySync(payload: unknown): Promise<SyncAck>;
  /** Builds the §5 report for a heartbeat. May throw: the device then sends the empty report. */
  report(): Promise<CapabilityReport>;
}

/** The `device:execute_command` ack (§6.5). */
export interface CommandAck {
  success: boolean;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  duration: number;
  timed_out: boolean;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  error?: string;
}

export interface CommandPort {
  /** Validates and runs one `device:execute_command` payload through the exec policy. Never throws. */
  execute(payload: unknown, options?: { signal?: AbortSignal }): Promise<CommandAck>;
}

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
}

/** What the backend command handler asks of the gate (executor/gate.ts `gateAndRun`, bound to its deps). */
export interface GatedCommandRequest {
  command: { argv?: string[]; command?: string };
  agentId: string;
  sessionKey: string;
  source: string;
  commandKey?: string;
  cwd: string;
  env?: Record<string, string>;
  /** The prompt times out at the command's timeout at the latest. */
  promptTimeoutMs: number;
  /** One budget for the prompt and the run: the command runs with what the prompt left. */
  budgetMs: number;
  timeoutMs: number;
  maxOutputBytes: number;
  outputMode: "separate";
  /** workdir.md §8 just before the spawn: the folder to spawn in, or why nothing may run. */
  recheckCwd: (cwd: string) => Promise<{ ok: true; cwd: string } | { ok: false; message: string }>;
}

/** The parts of `GateRunResult` the ack is made of. */
export interface GatedCommandResult {
  decision: "allow-once" | "allow-always" | "deny" | "timeout" | "cancelled";
  decidedBy: string;
  reason: string;
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  spawnError?: string;
}

export type RunGated = (request: GatedCommandRequest) => Promise<GatedCommandResult>;
