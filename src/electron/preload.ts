// The preload: exposes `window.gatehouse` and nothing else — one method per IPC channel and
// `on(event, listener)` returning an unsubscribe function. A sandboxed preload can require nothing but
// `electron`, so it is bundled (scripts/preload.vite.config.ts → dist/src/electron/preload.cjs) with the
// channel and event lists it imports from src/shared/ipc-channels.ts.
import type { ContextBridge, IpcRenderer, IpcRendererEvent } from "electron";
import { CHANNELS, EVENTS, IPC_EVENT, IPC_INVOKE } from "../shared/ipc-channels.js";

/** The lists the API is built from (exported so the bundle test can read them back). */
export const PRELOAD_CHANNELS = CHANNELS;
export const PRELOAD_EVENTS = EVENTS;

type Listener = (payload: unknown) => void;

/** Builds the API object over an ipcRenderer-like transport (exported for the unit test). */
export function buildGatehouseApi(transport: {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, message: unknown) => void): void;
}): Record<string, unknown> {
  const listeners = new Map<string, Set<Listener>>();
  transport.on(IPC_EVENT, (_event, message) => {
    if (typeof message !== "object" || message === null) return;
    const { event, payload } = message as { event?: unknown; payload?: unknown };
    if (typeof event !== "string") return;
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(payload);
      } catch {
        // one listener's failure must not stop the others
      }
    }
  });
  const api: Record<string, unknown> = {};
  for (const channel of PRELOAD_CHANNELS) {
    api[channel] = (request: unknown) => transport.invoke(IPC_INVOKE, channel, request ?? {});
  }
  api.on = (event: string, listener: Listener) => {
    if (!(PRELOAD_EVENTS as readonly string[]).includes(event) || typeof listener !== "function") {
      return () => undefined;
    }
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  };
  return Object.freeze(api);
}

interface PreloadModules {
  contextBridge: ContextBridge;
  ipcRenderer: IpcRenderer;
}

/** Electron's preload modules, or null outside Electron (the unit tests load this file under Node). */
function electronModules(): PreloadModules | null {
  // Under plain Node, require("electron") would try to download the Electron binary.
  if (typeof process === "undefined" || !process.versions?.electron) return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload can only require
    const loaded: unknown = require("electron");
    if (typeof loaded !== "object" || loaded === null || !("contextBridge" in loaded)) return null;
    return loaded as PreloadModules;
  } catch {
    return null;
  }
}

const electron = electronModules();
if (electron?.contextBridge && electron.ipcRenderer) {
  const { contextBridge, ipcRenderer } = electron;
  contextBridge.exposeInMainWorld(
    "gatehouse",
    buildGatehouseApi({
      invoke: (channel, ...args) => ipcRenderer.invoke(channel, ...args),
      on: (channel, listener) => {
        ipcRenderer.on(channel, (event: IpcRendererEvent, message: unknown) => listener(event, message));
      },
    }),
  );
}
