// The names the renderer and main speak over Electron IPC: every channel the renderer may call and
// every event main pushes. Plain lists without zod, so the sandboxed preload bundle carries only these;
// src/ipc/contract.ts gives each name its schemas (a name without a contract there fails to compile).

/** The Electron IPC channel names the preload uses (one invoke channel, one event channel). */
export const IPC_INVOKE = "gatehouse:invoke";
export const IPC_EVENT = "gatehouse:event";

/** Every channel the renderer may call. */
export const CHANNELS = [
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
  "capabilities.requestSync",
  "capabilities.cancelSync",
  "capabilities.openFolder",
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
  "settings.setExecEvents",
  "settings.applyPreset",
  "settings.rotateSocketToken",
  "settings.openLogs",
  "device.setPaused",
  "elevation.start",
  "elevation.end",
  "tasks.stop",
  "terminals.close",
  "app.revealPath",
  "app.copyText",
  "app.openExternal",
  "app.pickFolder",
  "app.openMainWindow",
  "app.platform",
] as const;

/** Every event main pushes to the renderer. */
export const EVENTS = [
  "prompts.changed",
  "status.connection",
  "status.tasks",
  "status.terminals",
  "capabilities.progress",
  "capabilities.changed",
  "allowlist.changed",
  "workdir.changed",
  "app.navigate",
] as const;
export type Channel = (typeof CHANNELS)[number];
export type EventName = (typeof EVENTS)[number];
