// The preload (sandboxed, so CommonJS and nothing but `electron`): exposes `window.gatehouse` and
// nothing else — one method per IPC channel and `on(event, listener)` returning an unsubscribe
// function. The lists below must equal CHANNELS and EVENTS in src/ipc/contract.ts (a unit test checks).
import type { ContextBridge, IpcRenderer, IpcRendererEvent } from "electron";

export const PRELOAD_CHANNELS = [
  "prompts.list",
  "prompts.decide",
  "allowlist.get",
  "allowlist.setSettings",
  "allowlist.addEntry",
  "allowlist.updateEntry",
  "allowlist.deleteEntry",
  "allowlist.duplicateEntry",
  "allowlist.checkEntry",
  "allowlist.explain",
  "allowlist.preview",
  "capabilities.get",
  "workdir.get",
  "workdir.addRoot",
  "workdir.removeRoot",
  "workdir.removeBinding",
  "workdir.addRepo",
  "workdir.removeRepo",
  "workdir.check",
  "status.get",
  "activity.list",
  "settings.get",
  "settings.setBackendUrl",
  "settings.setToken",
  "settings.clearToken",
  "settings.setLaunchAtLogin",
  "settings.applyPreset",
  "settings.rotateSocketToken",
  "settings.openLogs",
  "device.setPaused",
  "tasks.stop",
  "app.revealPath",
  "app.copyText",
  "app.openExternal",
  "app.pickFolder",
  "app.openMainWindow",
] as const;

export const PRELOAD_EVENTS = [
  "prompts.changed",
  "status.connection",
  "status.tasks",
  "capabilities.progress",
  "capabilities.changed",
  "allowlist.changed",
  "workdir.changed",
  "app.navigate",
] as const;

const INVOKE = "gatehouse:invoke";
const EVENT = "gatehouse:event";

type Listener = (payload: unknown) => void;

/** Builds the API object over an ipcRenderer-like transport (exported for the unit test). */
export function buildGatehouseApi(transport: {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, message: unknown) => void): void;
}): Record<string, unknown> {
  const listeners = new Map<string, Set<Listener>>();
  transport.on(EVENT, (_event, message) => {
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
    api[channel] = (request: unknown) => transport.invoke(INVOKE, channel, request ?? {});
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
