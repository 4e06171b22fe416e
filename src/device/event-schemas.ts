// One zod schema per backend event the device handles (device-protocol.md §6) and per ack it reads.
import { z } from "zod";
import { isRejectedFrame, shortText } from "./frame-budget.js";

const taskIdValue = z.union([z.number().int().positive(), z.string().trim().regex(/^\d+$/)]);

export const TaskCancelPayloadSchema = z.looseObject({
  task_id: taskIdValue,
  subtask_id: taskIdValue.nullable().optional(),
});

export const CloseSessionPayloadSchema = z.looseObject({ task_id: taskIdValue });

/** `task:error` as the backend's dispatcher emits it (`{task_id, subtask_id, error}`). */
export const TaskErrorPayloadSchema = z.looseObject({
  task_id: taskIdValue,
  subtask_id: taskIdValue.nullable().optional(),
  error: z.string().nullable().optional(),
});

export const TaskExecutePayloadSchema = z.looseObject({});

export const ExecuteCommandPayloadSchema = z
  .looseObject({
    command: z.string().nullable().optional(),
    argv: z.array(z.string()).nullable().optional(),
    args: z.array(z.string()).nullable().optional(),
    cwd: z.string().nullable().optional(),
    env: z.record(z.string(), z.string()).nullable().optional(),
    timeout_seconds: z.number().finite().nullable().optional(),
    max_output_bytes: z.number().finite().nullable().optional(),
    command_key: z.string().nullable().optional(),
    task_id: z.union([z.number().int(), z.string()]).nullable().optional(),
    /** Gatehouse extension: settings that may only tighten the user's policy (a looser one refuses the command). */
    security: z.enum(["deny", "allowlist", "full"]).nullable().optional(),
    ask: z.enum(["off", "on-miss", "always"]).nullable().optional(),
  })
  .refine(
    (p) => (p.argv && p.argv.length > 0) || (typeof p.command === "string" && p.command.trim() !== ""),
    {
      message: "command or argv is required",
    },
  );
export type ExecuteCommandPayload = z.infer<typeof ExecuteCommandPayloadSchema>;

/** `device:register` success: `{"success": true, …}` or an array holding such an object. */
export function registrationAccepted(ack: unknown): { ok: true } | { ok: false; error: string | null } {
  if (isRejectedFrame(ack)) return { ok: false, error: ack.reason };
  const first: unknown = Array.isArray(ack) ? ack[0] : ack;
  if (first && typeof first === "object" && (first as { success?: unknown }).success === true)
    return { ok: true };
  const error = first && typeof first === "object" ? (first as { error?: unknown }).error : undefined;
  return { ok: false, error: typeof error === "string" && error ? shortText(error) : null };
}

/**
 * A heartbeat ack fails when it carries `error` (an object, or an array holding one), or when it broke
 * the frame budget. The text is cut short: it ends up in the status file and the log.
 */
export function heartbeatError(ack: unknown): string | null {
  if (isRejectedFrame(ack)) return ack.reason;
  const first: unknown = Array.isArray(ack) ? ack[0] : ack;
  if (first && typeof first === "object" && "error" in first) {
    const error = (first as { error?: unknown }).error;
    if (error !== undefined && error !== null && error !== false && error !== "") {
      return shortText(typeof error === "string" ? error : (JSON.stringify(error) ?? String(error)));
    }
  }
  return null;
}

/** The backend's auth refusals that need a new token rather than a retry (§2). */
export const SIGN_IN_REFUSALS = new Set([
  "Missing authentication token",
  "Invalid or expired API key",
  "Invalid or expired token",
]);
