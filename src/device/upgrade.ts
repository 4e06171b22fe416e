// `device:upgrade` (issue 31), answered the way Wegent's executor answers it
// (executor/src/local/backend/upgrade.rs): progress and the outcome go out as `device:upgrade_status`
// events (`{device_id, status, message, old_version?, new_version?, error?}`, the statuses Wegent's
// DeviceUpgradeStatusEvent names), and a caller that asked for an ack gets Wegent's result. Tasks running
// make it `busy` unless `force_stop_tasks`, which cancels them first; one upgrade at a time.
//
// What "upgrade" means is the app's: the tray app asks its updater (an update it downloads is installed
// when the person chooses to, from the tray, never behind their back); the headless runner says it cannot
// upgrade itself and how to do it.
import type { TaskEventSink, TaskRegistry } from "./deps.js";

export const UPGRADE_STATUS_EVENT = "device:upgrade_status";

/** What the app's updater found. */
export type UpgradeOutcome =
  | { kind: "latest"; version: string }
  /** A newer version is there; the person at this device installs it (Gatehouse never restarts itself for the backend). */
  | { kind: "ready"; oldVersion: string; newVersion: string; message: string }
  | { kind: "failed"; error: string; oldVersion?: string };

export interface UpgradePort {
  checkAndUpdate(): Promise<UpgradeOutcome>;
}

/** The headless runner's answer: it has no updater. */
export function headlessUpgradePort(version: string): UpgradePort {
  return {
    checkAndUpdate: async () => ({
      kind: "failed",
      oldVersion: version,
      error:
        "the headless runner (gatehouse serve) cannot upgrade itself: update Gatehouse the way it was installed and restart it",
    }),
  };
}

export interface UpgradeContext {
  deviceId: string;
  tasks: TaskRegistry;
  events: TaskEventSink;
  heartbeat(): Promise<unknown>;
  port: UpgradePort;
}

function payloadBool(payload: unknown, key: string, fallback: boolean): boolean {
  const value = (payload as Record<string, unknown> | null)?.[key];
  return typeof value === "boolean" ? value : fallback;
}

/** One upgrade at a time per device connection's owner (the DeviceService). */
export class UpgradeHandler {
  private running = false;

  async run(payload: unknown, ctx: UpgradeContext): Promise<Record<string, unknown>> {
    const status = (
      state: string,
      message: string,
      extra: { old_version?: string; new_version?: string; error?: string } = {},
    ) => ctx.events.emit(UPGRADE_STATUS_EVENT, { device_id: ctx.deviceId, status: state, message, ...extra });
    if (this.running) {
      status("error", "Upgrade already in progress", { error: "Upgrade already in progress" });
      return { success: false, status: "error", error: "Upgrade already in progress" };
    }
    this.running = true;
    try {
      const running = ctx.tasks.snapshot().runningTaskIds;
      if (running.length > 0 && !payloadBool(payload, "force_stop_tasks", false)) {
        status("busy", "Cannot upgrade: tasks are running");
        return {
          success: false,
          status: "busy",
          error: "Cannot upgrade: tasks are running",
          running_task_ids: running,
        };
      }
      if (running.length > 0) {
        for (const taskId of running) ctx.tasks.cancel({ taskId, subtaskId: null }, ctx.events);
        await ctx.heartbeat();
      }
      status("checking", "Checking for updates...");
      const outcome = await ctx.port
        .checkAndUpdate()
        .catch((error: unknown): UpgradeOutcome => ({ kind: "failed", error: (error as Error).message }));
      switch (outcome.kind) {
        case "latest":
          status("skipped", "Already on latest version", {
            old_version: outcome.version,
            new_version: outcome.version,
          });
          return {
            success: true,
            already_latest: true,
            old_version: outcome.version,
            new_version: outcome.version,
            error: null,
          };
        case "ready":
          status("skipped", outcome.message, {
            old_version: outcome.oldVersion,
            new_version: outcome.newVersion,
          });
          return {
            success: false,
            already_latest: false,
            old_version: outcome.oldVersion,
            new_version: outcome.newVersion,
            error: outcome.message,
          };
        case "failed":
          status("error", `Upgrade failed: ${outcome.error}`, {
            error: outcome.error,
            ...(outcome.oldVersion ? { old_version: outcome.oldVersion } : {}),
          });
          return {
            success: false,
            already_latest: false,
            old_version: outcome.oldVersion ?? null,
            new_version: null,
            error: outcome.error,
          };
      }
    } finally {
      this.running = false;
    }
  }
}
