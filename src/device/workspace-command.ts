// `device:execute_command` with a `workspace_*` command_key (device-protocol.md §6): the web UI's file
// browser and editor, answered natively instead of running the backend's python script. The payload is
// read as Wegent's executor reads it (folder = `cwd`, else `path`; string `args`; string `env` values;
// a write's content in `stdin`), and the ack has Wegent's CommandResult shape with `stdout` an object,
// which the backend's `json` post-processor passes through. The ack always fits the backend's
// 1,000,000-byte message limit: a text file's content or a listing is cut (and marked) when it would not.
import { z } from "zod";
import type { CommandAck, WorkspaceFilesPort, WorkspaceOutcome } from "./deps.js";
import { cutUtf8, MAX_ACK_BYTES, serialisedBytes } from "./ack-size.js";

export { isWorkspaceCommandKey } from "../core/workspace-files.js";

const stringsOnly = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

const WorkspacePayloadSchema = z.looseObject({
  command_key: z.string(),
  cwd: z.unknown().optional(),
  path: z.unknown().optional(),
  args: z.unknown().optional(),
  env: z.unknown().optional(),
  stdin: z.unknown().optional(),
});

/** Wegent's CommandResult as a workspace command answers it: the command ack, its stdout an object. */
export type WorkspaceAck = Omit<CommandAck, "stdout"> & { stdout: unknown };

export function workspaceErrorAck(error: string, durationSeconds = 0): WorkspaceAck {
  return {
    success: false,
    exit_code: 1,
    stdout: "",
    stderr: "",
    duration: durationSeconds,
    timed_out: false,
    stdout_truncated: false,
    stderr_truncated: false,
    error,
  };
}

export function workspaceAck(outcome: WorkspaceOutcome, durationSeconds: number): WorkspaceAck {
  if (!outcome.ok) return workspaceErrorAck(outcome.error, durationSeconds);
  return fitWorkspaceAck({
    success: true,
    exit_code: 0,
    stdout: outcome.stdout,
    stderr: "",
    duration: 0,
    timed_out: false,
    stdout_truncated: false,
    stderr_truncated: false,
  });
}

/**
 * Keeps the serialised ack under the budget: a text file's `content` is cut on a character boundary
 * (then `truncated`, not `editable`), a listing loses its last entries (then `truncated`). 256 KiB of
 * control characters is 1.5 MB of JSON, so this is reachable.
 */
export function fitWorkspaceAck(ack: WorkspaceAck, limit: number = MAX_ACK_BYTES): WorkspaceAck {
  let excess = serialisedBytes(ack) - (limit - 1);
  if (excess <= 0) return ack;
  const stdout = { ...(ack.stdout as Record<string, unknown>) };
  if (typeof stdout.content === "string") {
    for (let round = 0; round < 8 && excess > 0; round++) {
      const content = stdout.content as string;
      // JSON may spend up to 6 bytes per byte of text: cut by the excess, measured again each round.
      const keep = Math.max(0, Buffer.byteLength(content, "utf8") - Math.max(excess, 1024));
      stdout.content = cutUtf8(content, keep);
      stdout.truncated = true;
      stdout.editable = false;
      excess = serialisedBytes({ ...ack, stdout }) - (limit - 1);
    }
  } else if (Array.isArray(stdout.entries)) {
    let entries = stdout.entries as unknown[];
    while (excess > 0 && entries.length > 0) {
      entries = entries.slice(0, Math.floor(entries.length * 0.9));
      stdout.entries = entries;
      stdout.truncated = true;
      excess = serialisedBytes({ ...ack, stdout }) - (limit - 1);
    }
  }
  if (excess > 0) return workspaceErrorAck("Workspace result does not fit in one message");
  return { ...ack, stdout };
}

/** The port's request from a payload (null command_key checks happen before this is called). */
export function workspaceRequest(raw: unknown): Parameters<WorkspaceFilesPort["run"]>[0] | string {
  const parsed = WorkspacePayloadSchema.safeParse(raw);
  if (!parsed.success) return "Invalid workspace command payload";
  const p = parsed.data;
  const folder = [p.cwd, p.path].find((v): v is string => typeof v === "string" && v.trim() !== "") ?? null;
  const env: Record<string, string> = {};
  if (p.env && typeof p.env === "object" && !Array.isArray(p.env)) {
    for (const [key, value] of Object.entries(p.env as Record<string, unknown>))
      if (typeof value === "string") env[key] = value;
  }
  return {
    commandKey: p.command_key,
    path: folder,
    args: stringsOnly(p.args),
    env,
    stdin: typeof p.stdin === "string" ? p.stdin : null,
  };
}
