// Task provenance (docs/approval-protocol-v2.md "Task proof"): a request from the hook of an agent task
// that Gatehouse launched carries `task: {id, proof}`, an HMAC under a key the engine handed only to that
// task's agent process (its environment, never argv, files or logs) over everything the frame's mac
// covers. The server checks it against the tasks running now: a task that ended has no key any more.
// node:crypto only: the hook loads this on every tool call.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { macInput, type MacFields } from "./frame-auth.js";

import { TASK_ID_ENV, TASK_KEY_ENV } from "../shared/task-env.js";

export { TASK_ID_ENV, TASK_KEY_ENV };

export const TASK_PROOF_CONTEXT = "gatehouse-task-proof/1";

/** A task id as it travels: 1–64 printable ASCII characters without spaces (it is one line of the proof). */
export const TASK_ID_PATTERN = /^[\x21-\x7e]{1,64}$/;
/** A task key: 64 lowercase hex characters (32 random bytes). */
export const TASK_KEY_PATTERN = /^[0-9a-f]{64}$/;

/** What a request says about the task it comes from. */
export interface TaskProof {
  id: string;
  proof: string;
}

/** A fresh task key (32 random bytes, hex). */
export function newTaskKey(): string {
  return randomBytes(32).toString("hex");
}

/** The bytes a proof covers: its context line, the task id, then exactly what the frame's mac covers. */
export function taskProofInput(taskId: string, fields: Omit<MacFields, "direction">): string {
  return `${TASK_PROOF_CONTEXT}\n${taskId}\n${macInput({ ...fields, direction: "request" })}`;
}

/** `hex(HMAC-SHA256(key = task key as UTF-8, message = taskProofInput))`, lowercase. */
export function computeTaskProof(key: string, taskId: string, fields: Omit<MacFields, "direction">): string {
  return createHmac("sha256", key).update(taskProofInput(taskId, fields)).digest("hex");
}

/** Constant-time check of a 64-hex proof (any case). */
export function taskProofMatches(
  key: string,
  taskId: string,
  fields: Omit<MacFields, "direction">,
  proof: string,
): boolean {
  if (proof.length !== 64) return false;
  const expected = createHmac("sha256", key).update(taskProofInput(taskId, fields)).digest();
  const given = Buffer.from(proof, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The task id and key a hook finds in its environment, or null when it runs outside a Gatehouse task
 * (or either value is malformed: then the request is an unverified claim, as before).
 */
export function taskCredentialsFrom(
  env: Readonly<Record<string, string | undefined>>,
): { taskId: string; key: string } | null {
  const taskId = env[TASK_ID_ENV]?.trim();
  const key = env[TASK_KEY_ENV]?.trim();
  if (!taskId || !key || !TASK_ID_PATTERN.test(taskId) || !TASK_KEY_PATTERN.test(key)) return null;
  return { taskId, key };
}
