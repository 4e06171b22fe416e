// The `task:execute` payload fields the runtime launch reads (device-protocol.md §6.1, §8.1). The
// schema is loose: every other field the backend sends survives untouched for the other readers
// (workdir resolver, event stream). Only the fields read here are type-checked.
import { z } from "zod";
import { describeZodError } from "../store/index.js";
import type { RuntimeKind } from "./launch-spec.js";
import { isRecord } from "../../shared/is-record.js";

/** A positive integer, or a string of decimal digits holding one. */
const TaskIdSchema = z
  .union([z.number(), z.string().trim().regex(/^\d+$/, "expected a positive integer")])
  .transform((value) => Number(value))
  .refine((n) => Number.isSafeInteger(n) && n > 0, "expected a positive integer");

const optionalText = z.string().nullish();

export const BotSchema = z.looseObject({
  shell_type: optionalText,
  mcp_servers: z.unknown().optional(),
  mcpServers: z.unknown().optional(),
});
export type Bot = z.infer<typeof BotSchema>;

export const TaskPayloadSchema = z.looseObject({
  task_id: TaskIdSchema,
  subtask_id: TaskIdSchema,
  bot: z.array(BotSchema).nullish(),
  mode: optionalText,
  system_prompt: optionalText,
  prompt: z.union([z.string(), z.array(z.unknown())]).nullish(),
  /** Gatehouse extension (docs/device-protocol-task-policy.md): tighten the task's exec policy. */
  security: z.enum(["deny", "allowlist", "full"]).nullish(),
  ask: z.enum(["off", "on-miss", "always"]).nullish(),
  mcp_servers: z.unknown().optional(),
  project_id: z.unknown().optional(),
  projectId: z.unknown().optional(),
  workspace: z.unknown().optional(),
  standalone_chat_workspace: z.unknown().optional(),
  standaloneChatWorkspace: z.unknown().optional(),
  auth_token: optionalText,
  backend_url: optionalText,
  device_id: optionalText,
  new_session: z.boolean().nullish(),
});
export type TaskPayload = z.infer<typeof TaskPayloadSchema>;

export type TaskPayloadResult = { ok: true; payload: TaskPayload } | { ok: false; error: string };

export function parseTaskPayload(raw: unknown): TaskPayloadResult {
  const parsed = TaskPayloadSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `Invalid task payload: ${describeZodError(parsed.error)}` };
  return { ok: true, payload: parsed.data };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function idText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return "";
}

export interface ProjectInfo {
  /** The first present of the four id fields, as a trimmed string ("" when none). */
  projectId: string;
  standaloneChat: boolean;
  isProjectTask: boolean;
}

/** §8.1: the project id and whether the task is a project task. */
export function projectInfo(payload: Record<string, unknown>): ProjectInfo {
  const project = isRecord(payload.workspace) ? payload.workspace.project : undefined;
  const candidates = [
    payload.project_id,
    payload.projectId,
    isRecord(project) ? project.project_id : undefined,
    isRecord(project) ? project.projectId : undefined,
  ];
  const first = candidates.find(present);
  const projectId = idText(first);
  const standaloneChat =
    payload.standalone_chat_workspace === true || payload.standaloneChatWorkspace === true;
  const isProjectTask = projectId !== "" && (projectId !== "0" || standaloneChat);
  return { projectId, standaloneChat, isProjectTask };
}

export type ShellTypeResult = { ok: true; runtime: RuntimeKind } | { ok: false; error: string };

/** `bot[0].shell_type`: `ClaudeCode` → claude-code, `Codex` → codex (case and `-`/`_` ignored). */
export function runtimeForShellType(payload: TaskPayload): ShellTypeResult {
  const raw = payload.bot?.[0]?.shell_type;
  const key = (raw ?? "").toLowerCase().replace(/[-_\s]/g, "");
  if (key === "claudecode") return { ok: true, runtime: "claude-code" };
  if (key === "codex") return { ok: true, runtime: "codex" };
  return { ok: false, error: `Unsupported shell type: ${raw?.trim() ? raw : "(none)"}` };
}

export interface PromptText {
  text: string;
  /** Content parts that are not text (images, files): not passed to the CLI. */
  skippedParts: number;
}

/** The prompt as text: a string as is; a content list's text parts joined by blank lines. */
export function promptText(prompt: TaskPayload["prompt"]): PromptText {
  if (typeof prompt === "string") return { text: prompt, skippedParts: 0 };
  if (!prompt) return { text: "", skippedParts: 0 };
  const texts: string[] = [];
  let skippedParts = 0;
  for (const part of prompt) {
    if (typeof part === "string") texts.push(part);
    else if (isRecord(part) && typeof part.text === "string") texts.push(part.text);
    else skippedParts += 1;
  }
  return { text: texts.join("\n\n"), skippedParts };
}
