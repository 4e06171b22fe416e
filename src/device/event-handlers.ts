// Backend → device events (device-protocol.md §6). Frames over budget were replaced by a
// `RejectedFrame` before any parsing (frame-budget.ts); every other payload is checked with its schema
// before anything happens; slow work (sync, commands) runs off the socket handler so heartbeats keep
// flowing.
import type { Socket } from "socket.io-client";
import type { Logger } from "../core/log.js";
import { describeZodError } from "../core/store/index.js";
import { capCommandAck } from "./ack-size.js";
import { notRunAck } from "./backend-command.js";
import type { LiveSession } from "./connection.js";
import type { CapabilitiesPort, CommandAck, CommandPort, TaskEventSink, TaskRegistry } from "./deps.js";
import { isRejectedFrame, shortText } from "./frame-budget.js";
import {
  CloseSessionPayloadSchema,
  TaskCancelPayloadSchema,
  TaskExecutePayloadSchema,
} from "./event-schemas.js";

export const HANDLED_EVENTS = new Set([
  "device:sync_capabilities",
  "device:execute_command",
  "task:execute",
  "task:cancel",
  "task:close-session",
  "runtime:rpc",
]);

export const RUNTIME_UNAVAILABLE = {
  success: false,
  code: "runtime_unavailable",
  error: "Runtime work handler is not available",
} as const;

export interface HandlerDeps {
  capabilities: CapabilitiesPort;
  commands: CommandPort;
  tasks: TaskRegistry;
  taskEvents: TaskEventSink;
  logger: Logger;
  /** Work running off the socket handler, so the service can wait for it (stop, tests). */
  track?: (kind: "sync" | "command" | "session", work: Promise<unknown>) => void;
}

type Ack = (response: unknown) => void;

/**
 * Socket.IO passes the ack callback as the last argument when the sender asked for one. Every ack
 * leaves the process through here, so it is redacted here (a sync error quoting the token, say).
 */
function splitAckRedacted(args: unknown[], logger: Logger): { payload: unknown; ack: Ack | undefined } {
  const last = args[args.length - 1];
  if (typeof last !== "function") return { payload: args[0], ack: undefined };
  const ack: Ack = (response) => (last as Ack)(logger.redact(response));
  return { payload: args.length > 1 ? args[0] : undefined, ack };
}

/**
 * Registers `handle` for `event`. A payload that broke the frame budget never reaches it (the sender
 * gets `refusal` at once), and nothing it throws escapes into Socket.IO, where it would surface as an
 * uncaught exception in a timer.
 */
function guardedOn(
  socket: Socket,
  logger: Logger,
  event: string,
  refusal: (error: string) => unknown,
  handle: (payload: unknown, ack: Ack | undefined) => void,
): void {
  socket.on(event, (...args: unknown[]) => {
    const { payload, ack } = splitAckRedacted(args, logger);
    if (isRejectedFrame(payload)) {
      logger.warn(`Refused a ${event} event: ${payload.reason}`);
      ack?.(refusal(`Refused ${event}: ${payload.reason}`));
      return;
    }
    try {
      handle(payload, ack);
    } catch (error) {
      logger.error(`Handling ${event} failed unexpectedly`, { error });
      ack?.(refusal(`Gatehouse could not handle ${event}: ${(error as Error).message}`));
    }
  });
}

const failure = (error: string) => ({ success: false, error });

export function attachEventHandlers(socket: Socket, session: LiveSession, deps: HandlerDeps): void {
  const logger = deps.logger.child("events");
  const on = (
    event: string,
    refusal: (error: string) => unknown,
    handle: (payload: unknown, ack: Ack | undefined) => void,
  ) => guardedOn(socket, logger, event, refusal, handle);

  on("device:sync_capabilities", failure, (payload, ack) => {
    const work = (async () => {
      let result: unknown;
      try {
        result = await deps.capabilities.applySync(payload);
      } catch (error) {
        logger.error("Capability sync failed unexpectedly", { error });
        result = failure((error as Error).message);
      }
      ack?.(result);
      if (session.isLive()) await session.heartbeat(); // carries the new full report (§7.9 step 7)
    })();
    deps.track?.("sync", work);
  });

  on(
    "device:execute_command",
    (error) => notRunAck(error),
    (payload, ack) => {
      const work = (async () => {
        let result: CommandAck;
        try {
          result = await deps.commands.execute(payload);
        } catch (error) {
          logger.error("A backend command failed unexpectedly", { error });
          result = notRunAck(`Failed to start command: ${(error as Error).message}`);
        }
        ack?.(capCommandAck(result));
      })();
      deps.track?.("command", work);
    },
  );

  on("task:execute", failure, (payload) => {
    const parsed = TaskExecutePayloadSchema.safeParse(payload);
    if (!parsed.success) {
      logger.warn(`Dropped an invalid task:execute request: ${describeZodError(parsed.error)}`);
      return;
    }
    deps.tasks.execute(parsed.data, deps.taskEvents);
  });

  on("task:cancel", failure, (payload) => {
    const parsed = TaskCancelPayloadSchema.safeParse(payload);
    if (!parsed.success) {
      logger.warn(`Dropped an invalid task:cancel request: ${describeZodError(parsed.error)}`);
      return;
    }
    const subtask = parsed.data.subtask_id;
    deps.tasks.cancel(
      {
        taskId: String(parsed.data.task_id).trim(),
        subtaskId: subtask === undefined || subtask === null ? null : String(subtask).trim(),
      },
      deps.taskEvents,
    );
  });

  on("task:close-session", failure, (payload, ack) => {
    const parsed = CloseSessionPayloadSchema.safeParse(payload);
    if (!parsed.success) {
      ack?.(failure("task_id is required"));
      return;
    }
    const work = (async () => {
      try {
        await deps.tasks.closeSession(String(parsed.data.task_id).trim(), deps.taskEvents);
      } catch (error) {
        logger.error("Closing a task session failed", { error });
      }
      if (session.isLive()) await session.heartbeat(); // a failure is only counted (§6.4)
      ack?.({ success: true });
    })();
    deps.track?.("session", work);
  });

  on(
    "runtime:rpc",
    () => RUNTIME_UNAVAILABLE,
    (_payload, ack) => ack?.(RUNTIME_UNAVAILABLE),
  );

  socket.onAny((event: string, ...args: unknown[]) => {
    if (HANDLED_EVENTS.has(event)) return;
    const name = shortText(String(event), 100);
    logger.debug(`Ignored unsupported backend event ${name}`);
    const { ack } = splitAckRedacted(args, logger);
    try {
      ack?.(failure(`Unsupported event: ${name}`));
    } catch (error) {
      logger.error("Answering an unsupported event failed", { error });
    }
  });
}
