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
  /**
   * Cancels the sync in progress and those queued (the runner is stopping): one still downloading
   * ends with nothing changed, one already applying finishes.
   */
  cancel?(): void;
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

export type { TaskEventSink, TaskRegistry, TaskSnapshot } from "../core/tasks/task-registry.js";

/** What the backend command handler asks of the gate (executor/gate.ts `gateAndRun`, bound to its deps). */
export interface GatedCommandRequest {
  command: { argv?: string[]; command?: string };
  agentId: string;
  sessionKey: string;
  source: string;
  commandKey?: string;
  cwd: string;
  env?: Record<string, string>;
  /** The payload's own settings: they may only tighten. */
  requested?: { security?: "deny" | "allowlist" | "full"; ask?: "off" | "on-miss" | "always" };
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
  decision: "allow-once" | "allow-always" | "deny" | "timeout" | "no-approver" | "cancelled";
  decidedBy: string;
  reason: string;
  /** A person's denial: what they told the agent. */
  denyReason?: string;
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

/** A `workspace_*` command as the device hands it on (device/workspace-command.ts reads the payload). */
export interface WorkspaceCommandRequest {
  commandKey: string;
  path: string | null;
  args: string[];
  env: Record<string, string>;
  stdin: string | null;
}

export type WorkspaceOutcome = { ok: true; stdout: Record<string, unknown> } | { ok: false; error: string };

/** The workspace file commands, answered natively within both sides' roots (executor/workspace-files). */
export interface WorkspaceFilesPort {
  run(command: WorkspaceCommandRequest): Promise<WorkspaceOutcome>;
}

/** `device:start_terminal_session` as Wegent's executor reads it (backend/session_events.rs). */
export interface TerminalStartRequest {
  sessionId: string;
  projectId: number;
  /** Trimmed; "" = the workspace root. Relative paths are inside it. */
  path: string;
  rows: number | null;
  cols: number | null;
  createIfMissing: boolean;
  ttlSeconds: number | null;
}

/** The connection a terminal belongs to: its events go there, and it never outlives it. */
export interface TerminalConnection {
  emit(event: "terminal:output" | "terminal:exit", body: Record<string, unknown>): void;
  isLive(): boolean;
}

export type TerminalReply = { ok: true } | { ok: false; error: string };

/** Terminal sessions over Socket.IO (executor/terminal), decided by the gate. */
export interface TerminalPort {
  /** Decides and opens; the folder's real path on success. */
  start(
    request: TerminalStartRequest,
    connection: TerminalConnection,
  ): Promise<{ ok: true; path: string } | { ok: false; error: string }>;
  attach(sessionId: string, connection: TerminalConnection): TerminalReply;
  input(sessionId: string, data: string, connection: TerminalConnection): TerminalReply;
  resize(sessionId: string, rows: number, cols: number, connection: TerminalConnection): TerminalReply;
  close(sessionId: string, connection: TerminalConnection): TerminalReply;
  /** The connection ended: every terminal it opened is closed. */
  connectionEnded(connection: TerminalConnection): void;
}
