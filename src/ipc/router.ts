// The IPC router (architecture.md "IPC between renderer and main"): checks who calls, validates every
// request with its contract schema (invalid → `bad_request`, nothing happens), dispatches to the
// handler, validates the response, and pushes validated events to subscribers. The same router
// serves Electron's ipcMain (src/electron) and the end-to-end tests (Playwright's exposeFunction).
import {
  CONTRACT,
  EVENT_CONTRACT,
  type Channel,
  type EventName,
  type EventPayload,
  type IpcResult,
} from "./contract.js";
import { createEventHub, type EventHub } from "./event-hub.js";
import { allowlistHandlers } from "./handlers/allowlist.js";
import { appHandlers } from "./handlers/app.js";
import { capabilitiesHandlers } from "./handlers/capabilities.js";
import { promptsHandlers } from "./handlers/prompts.js";
import { settingsHandlers } from "./handlers/settings.js";
import { statusHandlers } from "./handlers/status.js";
import { elevationHandlers } from "./handlers/elevation.js";
import { workdirHandlers } from "./handlers/workdir.js";
import type { HandlerContext, Handlers } from "./handlers/types.js";
import type { UiHost, UiServices } from "./ui-services.js";

export interface RouterOptions {
  /** Whether a call comes from one of the app's own windows (Electron: the sender's frame URL and id). */
  isTrustedSender(sender: unknown): boolean;
  host: UiHost;
}

export interface Router {
  handle(channel: string, payload: unknown, sender: unknown): Promise<IpcResult<unknown>>;
  subscribe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** Stops watching the services (files, broker, device); subscribers get nothing more. */
  close(): Promise<void>;
}

function isChannel(name: string): name is Channel {
  return Object.hasOwn(CONTRACT, name);
}

function describeIssues(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 5)
    .map((issue) =>
      issue.path.length ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message,
    )
    .join("; ");
}

export function createRouter(services: UiServices, options: RouterOptions): Router {
  const logger = services.logger.child("ipc");
  const events: EventHub = createEventHub({
    validate: (event, payload) => {
      const parsed = EVENT_CONTRACT[event].safeParse(payload);
      if (!parsed.success) {
        logger.error(`event ${event} does not match its contract; dropped`, {
          issues: describeIssues(parsed.error),
        });
        return null;
      }
      // Events leave for the renderer: redacted (a connection error quoting the token, say).
      return logger.redact(parsed.data);
    },
    logger,
  });
  const ctx: HandlerContext = {
    services,
    host: options.host,
    events,
    logger,
    now: services.now ?? Date.now,
  };
  const handlers: Handlers = {
    ...promptsHandlers(ctx),
    ...allowlistHandlers(ctx),
    ...capabilitiesHandlers(ctx),
    ...workdirHandlers(ctx),
    ...statusHandlers(ctx),
    ...elevationHandlers(ctx),
    ...settingsHandlers(ctx),
    ...appHandlers(ctx),
  };
  const stopSources = events.startSources(services);

  const router: Router = {
    async handle(channel, payload, sender) {
      if (!options.isTrustedSender(sender)) {
        logger.warn("refused an IPC call from an unknown sender", { channel: String(channel).slice(0, 100) });
        return { ok: false, error: { code: "forbidden", message: "This window may not talk to Gatehouse." } };
      }
      if (typeof channel !== "string" || !isChannel(channel)) {
        return {
          ok: false,
          error: { code: "unknown_channel", message: `Unknown channel "${String(channel).slice(0, 100)}".` },
        };
      }
      const contract = CONTRACT[channel];
      const request = contract.request.safeParse(payload ?? {});
      if (!request.success) {
        return {
          ok: false,
          error: {
            code: "bad_request",
            message: `Invalid ${channel} request: ${describeIssues(request.error)}`,
          },
        };
      }
      let value: unknown;
      try {
        const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
        value = await handler(request.data);
      } catch (error) {
        logger.error(`${channel} failed`, { error });
        return {
          ok: false,
          error: { code: "failed", message: `${channel} failed: ${(error as Error).message}` },
        };
      }
      const response = contract.response.safeParse(value);
      if (!response.success) {
        logger.error(`${channel} answered outside its contract`, { issues: describeIssues(response.error) });
        return {
          ok: false,
          error: { code: "bad_response", message: `${channel} gave an answer Gatehouse did not expect.` },
        };
      }
      return { ok: true, value: response.data };
    },
    subscribe: (event, listener) => events.subscribe(event, listener),
    async close() {
      await stopSources();
      events.clear();
    },
  };
  // Every answer leaves for the renderer through here: redacted once (src/core/redact.ts).
  return { ...router, handle: async (...call) => logger.redact(await router.handle(...call)) };
}
