// Backend → device events (device-protocol.md §6), one table: schema, handler and acks per event
// (`DEVICE_EVENTS`); registration and the list of supported events both come from it. Frames over
// budget were replaced by a `RejectedFrame` before any parsing (frame-budget.ts); every other payload
// is checked with its schema before anything happens; slow work (sync, commands) runs off the socket
// handler so heartbeats keep flowing.
import type { Socket } from "socket.io-client";
import type { z } from "zod";
import type { Logger } from "../core/log.js";
import { describeZodError } from "../core/store/index.js";
import { capCommandAck } from "./ack-size.js";
import { notRunAck } from "./backend-command.js";
import type { LiveSession } from "./connection.js";
import type {
  CapabilitiesPort,
  CommandAck,
  CommandPort,
  TaskEventSink,
  TaskRegistry,
  TerminalConnection,
  TerminalPort,
  WorkspaceFilesPort,
} from "./deps.js";
import { isRejectedFrame, shortText } from "./frame-budget.js";
import {
  controlSessionId,
  inputData,
  replyAck,
  resizeOf,
  terminalStartedAck,
  terminalStartRequest,
} from "./terminal-events.js";
import {
  isWorkspaceCommandKey,
  workspaceAck,
  workspaceErrorAck,
  workspaceRequest,
} from "./workspace-command.js";
import {
  CloseSessionPayloadSchema,
  TaskCancelPayloadSchema,
  TaskErrorPayloadSchema,
  TaskExecutePayloadSchema,
} from "./event-schemas.js";
import type { UpgradeHandler, UpgradePort } from "./upgrade.js";

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
  /** The `workspace_*` commands (absent: refused with an answer). */
  workspaceFiles?: WorkspaceFilesPort;
  /** Terminal sessions (absent: refused with an answer). */
  terminals?: TerminalPort;
  /** What `device:upgrade` asks of the app (the tray's updater; the headless runner's refusal). */
  upgrade?: { port: UpgradePort; handler: UpgradeHandler };
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

const TASK_EXECUTE = {
  schema: TaskExecutePayloadSchema,
  refusal: failure,
  handle(payload: Record<string, unknown>, _ack: Ack | undefined, { deps }: EventContext) {
    deps.tasks.execute(payload, deps.taskEvents);
  },
} as unknown as DeviceEvent<unknown>;

/** A `workspace_*` command: answered natively, never through the exec policy (it runs nothing). */
async function answerWorkspaceCommand(
  payload: unknown,
  ack: Ack | undefined,
  deps: HandlerDeps,
  logger: Logger,
): Promise<void> {
  const started = performance.now();
  const request = workspaceRequest(payload);
  let reply: unknown;
  if (typeof request === "string") reply = workspaceErrorAck(request);
  else if (!deps.workspaceFiles) reply = workspaceErrorAck("Workspace file commands are not available");
  else {
    try {
      reply = workspaceAck(await deps.workspaceFiles.run(request), (performance.now() - started) / 1000);
    } catch (error) {
      logger.error("A workspace file command failed unexpectedly", { error });
      reply = workspaceErrorAck(`Workspace file operation failed: ${(error as Error).message}`);
    }
  }
  ack?.(reply);
}

/** What a handler works with: the live session (for the heartbeat after a sync) and the ports. */
interface EventContext {
  session: LiveSession;
  deps: HandlerDeps;
  logger: Logger;
  /** This connection, as the terminals it opens see it. */
  terminal: TerminalConnection;
}

const NO_TERMINALS = "Session handler is not available";

/** A terminal control event (`terminal:attach|input|resize|close`): session id first, as Wegent checks. */
function terminalControl(
  run: (terminals: TerminalPort, sessionId: string, payload: unknown, ctx: EventContext) => unknown,
) {
  return event<unknown>({
    schema: null,
    refusal: failure,
    handle(payload, ack, ctx) {
      const terminals = ctx.deps.terminals;
      if (!terminals) return ack?.(failure(NO_TERMINALS));
      const sessionId = controlSessionId(payload);
      if (!sessionId) return ack?.(failure("session_id is required"));
      // Run first: `ack?.(run())` would skip the run when the backend asked for no ack (input, resize).
      const reply = run(terminals, sessionId, payload, ctx);
      ack?.(reply);
    },
  });
}

/** One backend → device event: its payload schema, its handler and the acks it answers with. */
interface DeviceEvent<T> {
  /** Checked before `handle` runs; `null` when the port behind it validates (sync, commands). */
  schema: z.ZodType<T> | null;
  /** The ack for a payload refused before handling: over the frame budget, invalid, or a throw. */
  refusal: (error: string) => unknown;
  /** Error text acked for a payload the schema refused; without it such a payload is dropped. */
  invalidAck?: string;
  handle: (payload: T, ack: Ack | undefined, ctx: EventContext) => void;
}

const event = <T>(spec: DeviceEvent<T>) => spec as unknown as DeviceEvent<unknown>;

/**
 * Every backend event the device handles (device-protocol.md §6). Registration and the list of
 * supported events both come from this table: an event not in it is answered "Unsupported event".
 */
export const DEVICE_EVENTS = {
  "device:sync_capabilities": event({
    schema: null,
    refusal: failure,
    handle(payload, ack, { session, deps, logger }) {
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
    },
  }),

  "device:execute_command": event({
    schema: null,
    refusal: (error) => notRunAck(error),
    handle(payload, ack, { deps, logger }) {
      if (isWorkspaceCommandKey((payload as { command_key?: unknown } | null)?.command_key)) {
        const work = answerWorkspaceCommand(payload, ack, deps, logger);
        deps.track?.("command", work);
        return;
      }
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
  }),

  "task:execute": TASK_EXECUTE,

  /** The legacy name of task:execute (Wegent's executor registers both to one handler). */
  "chat:message": TASK_EXECUTE,

  "task:error": event({
    schema: TaskErrorPayloadSchema,
    refusal: failure,
    handle(payload, _ack, { deps, logger }) {
      const subtask = payload.subtask_id;
      const message = shortText(payload.error?.trim() || "The backend could not dispatch the task", 2000);
      logger.warn(`The backend reported a dispatch error for task ${String(payload.task_id)}`);
      deps.tasks.dispatchError?.(
        {
          taskId: String(payload.task_id).trim(),
          subtaskId: subtask === undefined || subtask === null ? null : String(subtask).trim(),
        },
        message,
        deps.taskEvents,
      );
    },
  }),

  "device:upgrade": event<unknown>({
    schema: null,
    refusal: failure,
    handle(payload, ack, { session, deps, logger }) {
      const upgrade = deps.upgrade;
      if (!upgrade) return ack?.(failure("Upgrade handler is not available"));
      const work = (async () => {
        let reply: unknown;
        try {
          reply = await upgrade.handler.run(payload, {
            deviceId: session.config.deviceId,
            tasks: deps.tasks,
            events: deps.taskEvents,
            heartbeat: () => (session.isLive() ? session.heartbeat() : Promise.resolve(false)),
            port: upgrade.port,
          });
        } catch (error) {
          logger.error("An upgrade request failed unexpectedly", { error });
          reply = failure(`Upgrade failed: ${(error as Error).message}`);
        }
        ack?.(reply);
      })();
      deps.track?.("session", work);
    },
  }),

  /** Wegent runs a script the backend names here, outside any gate: Gatehouse refuses it, with its reasons. */
  "device:run_extension": event<unknown>({
    schema: null,
    refusal: failure,
    handle(_payload, ack) {
      const message =
        "Gatehouse does not run device extensions: device:run_extension runs a script the backend names, outside the exec policy. Send it as a device:execute_command, which the exec policy decides.";
      ack?.({ success: false, message, error: message });
    },
  }),

  "task:cancel": event({
    schema: TaskCancelPayloadSchema,
    refusal: failure,
    handle(payload, _ack, { deps }) {
      const subtask = payload.subtask_id;
      deps.tasks.cancel(
        {
          taskId: String(payload.task_id).trim(),
          subtaskId: subtask === undefined || subtask === null ? null : String(subtask).trim(),
        },
        deps.taskEvents,
      );
    },
  }),

  "task:close-session": event({
    schema: CloseSessionPayloadSchema,
    refusal: failure,
    invalidAck: "task_id is required",
    handle(payload, ack, { session, deps, logger }) {
      const work = (async () => {
        try {
          await deps.tasks.closeSession(String(payload.task_id).trim(), deps.taskEvents);
        } catch (error) {
          logger.error("Closing a task session failed", { error });
        }
        if (session.isLive()) await session.heartbeat(); // a failure is only counted (§6.4)
        ack?.({ success: true });
      })();
      deps.track?.("session", work);
    },
  }),

  "device:start_terminal_session": event<unknown>({
    schema: null,
    refusal: failure,
    handle(payload, ack, { deps, logger, terminal }) {
      const terminals = deps.terminals;
      if (!terminals) return ack?.(failure(NO_TERMINALS));
      const request = terminalStartRequest(payload);
      if ("error" in request) return ack?.(failure(request.error));
      const work = (async () => {
        let reply: unknown;
        try {
          const started = await terminals.start(request, terminal);
          reply = started.ok ? terminalStartedAck(request, started.path) : failure(started.error);
        } catch (error) {
          logger.error("Starting a terminal failed unexpectedly", { error });
          reply = failure(`Failed to start terminal: ${(error as Error).message}`);
        }
        ack?.(reply);
      })();
      deps.track?.("session", work);
    },
  }),

  "terminal:attach": terminalControl((terminals, id, _payload, ctx) =>
    replyAck(terminals.attach(id, ctx.terminal)),
  ),

  "terminal:input": terminalControl((terminals, id, payload, ctx) => {
    const data = inputData(payload);
    if (data === null) return failure("data is required");
    return replyAck(terminals.input(id, data, ctx.terminal));
  }),

  "terminal:resize": terminalControl((terminals, id, payload, ctx) => {
    const { rows, cols } = resizeOf(payload);
    return replyAck(terminals.resize(id, rows, cols, ctx.terminal));
  }),

  "terminal:close": terminalControl((terminals, id, _payload, ctx) =>
    replyAck(terminals.close(id, ctx.terminal)),
  ),

  "runtime:rpc": event({
    schema: null,
    refusal: () => RUNTIME_UNAVAILABLE,
    handle(_payload, ack) {
      ack?.(RUNTIME_UNAVAILABLE);
    },
  }),
} satisfies Record<string, DeviceEvent<unknown>>;

export type DeviceEventName = keyof typeof DEVICE_EVENTS;

/** The events answered by a handler; derived from the table, never kept by hand. */
export const HANDLED_EVENTS: ReadonlySet<string> = new Set(Object.keys(DEVICE_EVENTS));

export function attachEventHandlers(socket: Socket, session: LiveSession, deps: HandlerDeps): void {
  const logger = deps.logger.child("events");
  // Terminal events leave the process through here: redacted like every other event.
  const terminal: TerminalConnection = {
    emit: (name, body) => {
      if (session.isLive() && socket.connected) socket.emit(name, logger.redact(body));
    },
    isLive: () => session.isLive() && socket.connected,
  };
  session.onEnd(() => deps.terminals?.connectionEnded(terminal));
  const ctx: EventContext = { session, deps, logger, terminal };
  for (const [name, spec] of Object.entries(DEVICE_EVENTS) as [DeviceEventName, DeviceEvent<unknown>][]) {
    guardedOn(socket, logger, name, spec.refusal, (payload, ack) => {
      if (!spec.schema) return spec.handle(payload, ack, ctx);
      const parsed = spec.schema.safeParse(payload);
      if (parsed.success) return spec.handle(parsed.data, ack, ctx);
      logger.warn(`Dropped an invalid ${name} request: ${describeZodError(parsed.error)}`);
      if (spec.invalidAck !== undefined) ack?.(failure(spec.invalidAck));
    });
  }

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
