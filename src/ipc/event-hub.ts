// Events main pushes to the renderer: subscribers per event, and the sources that feed them (the prompt
// broker, the device connection, capability sync progress, the skill catalogue watcher, the approvals
// file, the workdir service). Each payload is checked against its contract before it goes out.
import type { Logger } from "../core/log.js";
import type { EventName, EventPayload, SyncProgress } from "./contract.js";
import { watchFile } from "./file-watch.js";
import { promptView } from "./prompt-view.js";
import type { UiServices } from "./ui-services.js";

type Listener = (payload: unknown) => void;

export interface EventHub {
  subscribe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** The sync running now (its latest progress), or null. */
  currentProgress(): SyncProgress | null;
  /** Subscribes to the services; returns the function that stops all of it. */
  startSources(services: UiServices): () => Promise<void>;
  clear(): void;
}

export function createEventHub(options: {
  validate: (event: EventName, payload: unknown) => unknown;
  logger: Logger;
}): EventHub {
  const listeners = new Map<EventName, Set<Listener>>();
  let progress: SyncProgress | null = null;

  const hub: EventHub = {
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const wrapped = listener as Listener;
      set.add(wrapped);
      return () => void set.delete(wrapped);
    },
    emit(event, payload) {
      const set = listeners.get(event);
      if (!set || set.size === 0) return;
      const checked = options.validate(event, payload);
      if (checked === null) return;
      for (const listener of [...set]) {
        try {
          listener(checked);
        } catch (error) {
          options.logger.warn(`an ${event} subscriber failed`, { error });
        }
      }
    },
    currentProgress: () => progress,
    startSources(services) {
      const stops: Array<() => void | Promise<void>> = [];
      stops.push(
        services.broker.on(() =>
          hub.emit("prompts.changed", {
            prompts: services.broker.list().map((p) => promptView(p, services.paths.home)),
          }),
        ),
      );
      if (services.device)
        stops.push(services.device.onState((state) => hub.emit("status.connection", state)));
      if (services.capabilities) {
        stops.push(
          services.capabilities.onProgress((event) => {
            progress = event.phase === "done" ? null : { ...event };
            hub.emit("capabilities.progress", { ...event });
            if (event.phase === "done")
              hub.emit("capabilities.changed", { reason: "sync", version: Date.now() });
          }),
        );
      }
      if (services.skills) {
        stops.push(
          services.skills.watch((version) => hub.emit("capabilities.changed", { reason: "files", version })),
        );
      }
      stops.push(watchFile(services.approvals.path, () => hub.emit("allowlist.changed", {})));
      if (services.workdir)
        stops.push(services.workdir.onChange((change) => hub.emit("workdir.changed", { change })));
      const tasks = services.tasks;
      if (tasks) stops.push(tasks.onChange(() => hub.emit("status.tasks", { tasks: tasks.list() })));
      const terminals = services.terminals;
      if (terminals)
        stops.push(terminals.onChange(() => hub.emit("status.terminals", { terminals: terminals.list() })));
      return async () => {
        for (const stop of stops.splice(0)) await stop();
      };
    },
    clear() {
      listeners.clear();
    },
  };
  return hub;
}
