// Task event bodies (device-protocol.md §6.2) for one run: the envelope and every event a run sends
// (created, text and reasoning deltas, tool blocks, and the terminal completed / incomplete / error).
import { randomBytes } from "node:crypto";

export interface TaskRunIdentity {
  taskId: number;
  subtaskId: number;
  messageId?: unknown;
  executorName?: unknown;
  executorNamespace?: unknown;
  /** `model_config.model_id`, else "". */
  model: string;
  /** `bot[0].shell_type` when present. */
  shellType?: string;
}

export interface TaskRun extends TaskRunIdentity {
  /** `resp_` + 24 random lowercase hex. */
  responseId: string;
  /** Unix seconds. */
  createdAt: number;
}

export function newTaskRun(identity: TaskRunIdentity, now: () => number = Date.now): TaskRun {
  return {
    ...identity,
    responseId: `resp_${randomBytes(12).toString("hex")}`,
    createdAt: Math.floor(now() / 1000),
  };
}

/** Reads the identity fields of a `task:execute` payload; null when task_id / subtask_id are not positive integers. */
export function taskRunIdentity(payload: Record<string, unknown>): TaskRunIdentity | null {
  const taskId = positiveInt(payload.task_id);
  const subtaskId = positiveInt(payload.subtask_id);
  if (taskId === null || subtaskId === null) return null;
  const bot = Array.isArray(payload.bot)
    ? (payload.bot[0] as Record<string, unknown> | undefined)
    : undefined;
  const modelConfig = payload.model_config as Record<string, unknown> | undefined;
  const identity: TaskRunIdentity = {
    taskId,
    subtaskId,
    model: typeof modelConfig?.model_id === "string" ? modelConfig.model_id : "",
  };
  if (payload.message_id !== undefined && payload.message_id !== null)
    identity.messageId = payload.message_id;
  if (payload.executor_name !== undefined && payload.executor_name !== null)
    identity.executorName = payload.executor_name;
  if (payload.executor_namespace !== undefined && payload.executor_namespace !== null) {
    identity.executorNamespace = payload.executor_namespace;
  }
  if (bot && typeof bot.shell_type === "string") identity.shellType = bot.shell_type;
  return identity;
}

export function positiveInt(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  }
  return null;
}

/** §6.2 envelope: the event name equals `event_type`; ids are numbers; optional fields copied when present. */
export function envelope(
  run: TaskRun,
  eventType: string,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    event_type: eventType,
    task_id: run.taskId,
    subtask_id: run.subtaskId,
  };
  if (run.messageId !== undefined) body.message_id = run.messageId;
  if (run.executorName !== undefined) body.executor_name = run.executorName;
  if (run.executorNamespace !== undefined) body.executor_namespace = run.executorNamespace;
  body.data = data;
  return body;
}

export function responseCreated(run: TaskRun): Record<string, unknown> {
  const data: Record<string, unknown> = {
    type: "response.created",
    response: {
      id: run.responseId,
      object: "response",
      created_at: run.createdAt,
      model: run.model,
      status: "in_progress",
      output: [],
    },
  };
  if (run.shellType !== undefined) data.shell_type = run.shellType;
  return envelope(run, "response.created", data);
}

export function responseIncomplete(
  run: TaskRun,
  message: "Task cancelled" | "Task session closed",
): Record<string, unknown> {
  return envelope(run, "response.incomplete", {
    type: "response.incomplete",
    response: {
      id: run.responseId,
      object: "response",
      created_at: run.createdAt,
      model: run.model,
      status: "cancelled",
      output: [],
      error: { code: "cancelled", message },
    },
  });
}

export function taskError(run: TaskRun, message: string, code = "runtime_error"): Record<string, unknown> {
  return envelope(run, "error", { type: "error", code, message });
}

/** `ITEM` of §6.2. */
export function itemId(run: TaskRun): string {
  return `msg_${run.subtaskId}`;
}

/** `offset` = code points of answer text sent before this delta. */
export function outputTextDelta(run: TaskRun, delta: string, offset: number): Record<string, unknown> {
  return envelope(run, "response.output_text.delta", {
    type: "response.output_text.delta",
    item_id: itemId(run),
    output_index: 0,
    content_index: 0,
    delta,
    offset,
  });
}

/** A progress note (workdir fallback, folder change) on the reasoning summary stream. */
export function reasoningSummaryDelta(run: TaskRun, text: string): Record<string, unknown> {
  return envelope(run, "response.reasoning_summary_text.delta", {
    type: "response.reasoning_summary_text.delta",
    item_id: itemId(run),
    output_index: 0,
    content_index: 0,
    delta: text,
  });
}

/** One tool call of the agent, as Gatehouse reports it (docs/decisions.md "Task execution"). */
export interface ToolBlock {
  id: string;
  kind: "tool";
  name: string;
  input: unknown;
  output?: string;
  status: "running" | "completed" | "failed";
}

export function blockEvent(
  run: TaskRun,
  eventType: "response.block.created" | "response.block.updated",
  block: ToolBlock,
): Record<string, unknown> {
  return envelope(run, eventType, { type: eventType, block });
}

export function responseCompleted(run: TaskRun, fullText: string): Record<string, unknown> {
  return envelope(run, "response.completed", {
    type: "response.completed",
    response: {
      id: run.responseId,
      object: "response",
      created_at: run.createdAt,
      model: run.model,
      status: "completed",
      output: [
        {
          type: "message",
          id: itemId(run),
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: fullText, annotations: [] }],
        },
      ],
      usage: null,
      stop_reason: "end_turn",
    },
  });
}
