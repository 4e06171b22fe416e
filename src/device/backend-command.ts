// `device:execute_command` (device-protocol.md §6.5): payload → session, workdir and limits → the
// gate (exec policy, prompt, spawn) → the ack with Wegent's field names and error strings.
import type { Logger } from "../core/log.js";
import { describeZodError } from "../core/store/index.js";
import type { WorkdirService } from "../core/workdir/io/service.js";
import { WorkdirFatal, type WorkdirResolution } from "../core/workdir/types.js";
import type { CommandAck, CommandPort, GatedCommandRequest, GatedCommandResult, RunGated } from "./deps.js";
import { ExecuteCommandPayloadSchema, type ExecuteCommandPayload } from "./event-schemas.js";
import { positiveInt } from "../core/tasks/task-events.js";

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const MAX_TIMEOUT_SECONDS = 600;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const MAX_OUTPUT_BYTES = 5 * 1024 * 1024;
export const BACKEND_AGENT_ID = "backend";

export type CommandWorkdir = Pick<WorkdirService, "resolveForSession" | "recheckForSpawn">;

export interface BackendCommandDeps {
  runGated: RunGated;
  workdir: CommandWorkdir;
  logger: Logger;
  platform?: NodeJS.Platform;
}

export function clampTimeoutSeconds(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, value));
}

export function clampMaxOutputBytes(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return DEFAULT_MAX_OUTPUT_BYTES;
  return Math.min(MAX_OUTPUT_BYTES, Math.max(0, Math.floor(value)));
}

/** exec-policy.md "Agents and sessions": `task:<task_id>` when the payload names a task, else `device`. */
export function commandSessionKey(payload: { task_id?: unknown }): string {
  const taskId = positiveInt(payload.task_id);
  return taskId === null ? "device" : `task:${taskId}`;
}

/** Quotes one word for the platform shell, so `args` reach the command as they were given. */
export function shellQuote(word: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32")
    return /^[A-Za-z0-9_\-.:\\/=]+$/.test(word) ? word : `"${word.replace(/"/g, '""')}"`;
  return /^[A-Za-z0-9_\-.,:/=@%+]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function commandInput(
  payload: ExecuteCommandPayload,
  platform?: NodeJS.Platform,
): { argv: string[] } | { command: string } {
  if (payload.argv && payload.argv.length > 0) return { argv: [...payload.argv] };
  const args = (payload.args ?? []).map((a) => shellQuote(a, platform));
  return { command: [payload.command ?? "", ...args].join(" ") };
}

/** The §6.5 ack of a command that did not run (refused, invalid, or failed to start). */
export function notRunAck(error: string, stderr = ""): CommandAck {
  return {
    success: false,
    exit_code: null,
    stdout: "",
    stderr,
    duration: 0,
    timed_out: false,
    stdout_truncated: false,
    stderr_truncated: false,
    error,
  };
}

function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? String(seconds) : String(Math.round(seconds * 1000) / 1000);
}

/** The §6.5 ack of a gate result; `notice` (a workdir fallback message) goes first on stderr. */
export function commandAck(
  result: GatedCommandResult,
  timeoutSeconds: number,
  notice: string | null,
): CommandAck {
  const stderr = notice ? `${notice}\n${result.stderr}` : result.stderr;
  if (result.decision === "deny") {
    return notRunAck(
      result.decidedBy === "user"
        ? result.denyReason
          ? `Command denied by user: ${result.denyReason}`
          : "Command denied by user"
        : `Command denied by exec policy: ${result.reason}`,
      notice ?? "",
    );
  }
  if (result.decision === "no-approver") {
    return notRunAck(
      `Command not approved: nobody could be asked on this device (${result.reason})`,
      notice ?? "",
    );
  }
  if (result.decision === "timeout" || result.decision === "cancelled") {
    return notRunAck("Command approval timed out", notice ?? "");
  }
  const ack: CommandAck = {
    success: result.exitCode === 0 && !result.timedOut && !result.spawnError,
    exit_code: result.exitCode,
    stdout: result.stdout,
    stderr,
    duration: result.spawnError ? 0 : result.durationMs / 1000,
    timed_out: result.timedOut,
    stdout_truncated: result.stdoutTruncated,
    stderr_truncated: result.stderrTruncated,
  };
  if (result.spawnError) {
    ack.exit_code = null;
    ack.error =
      result.spawnError === "Command approval timed out" ||
      result.spawnError.startsWith("Failed to start command:")
        ? result.spawnError
        : `Failed to start command: ${result.spawnError}`;
  } else if (result.timedOut) {
    ack.error = `Command timed out after ${formatSeconds(timeoutSeconds)} seconds`;
  }
  return ack;
}

/** The payload's `security`/`ask` (a Gatehouse extension), which may only tighten the policy. */
function requestedSettings(payload: ExecuteCommandPayload): Pick<GatedCommandRequest, "requested"> {
  const requested: NonNullable<GatedCommandRequest["requested"]> = {};
  if (payload.security) requested.security = payload.security;
  if (payload.ask) requested.ask = payload.ask;
  return Object.keys(requested).length > 0 ? { requested } : {};
}

export function createBackendCommands(deps: BackendCommandDeps): CommandPort {
  const logger = deps.logger.child("backend-command");
  return {
    async execute(raw) {
      const parsed = ExecuteCommandPayloadSchema.safeParse(raw);
      if (!parsed.success) return notRunAck(`Invalid command payload: ${describeZodError(parsed.error)}`);
      const payload = parsed.data;
      const timeoutSeconds = clampTimeoutSeconds(payload.timeout_seconds);
      const sessionKey = commandSessionKey(payload);
      const requestedCwd = payload.cwd?.trim() || null;

      let resolution: WorkdirResolution;
      try {
        resolution = await deps.workdir.resolveForSession(sessionKey, requestedCwd);
      } catch (error) {
        const message = error instanceof WorkdirFatal ? error.message : (error as Error).message;
        logger.warn("no working folder for a backend command", { sessionKey, error });
        return notRunAck(`Failed to start command: ${message}`);
      }
      if (resolution.fallback?.code === "missing-directory" && requestedCwd) {
        return notRunAck(`Working directory does not exist: ${requestedCwd}`);
      }
      let notice = resolution.fallback?.message ?? null;

      const result = await deps.runGated({
        command: commandInput(payload, deps.platform),
        agentId: BACKEND_AGENT_ID,
        sessionKey,
        source: "backend",
        ...(payload.command_key ? { commandKey: payload.command_key } : {}),
        cwd: resolution.cwd,
        ...(payload.env ? { env: payload.env } : {}),
        ...requestedSettings(payload),
        promptTimeoutMs: timeoutSeconds * 1000,
        budgetMs: timeoutSeconds * 1000,
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: clampMaxOutputBytes(payload.max_output_bytes),
        outputMode: "separate",
        recheckCwd: async () => {
          const again = await deps.workdir.recheckForSpawn(resolution);
          if (again.ok && again.notice) notice = again.notice;
          return again;
        },
      });
      return commandAck(result, timeoutSeconds, notice);
    },
  };
}
