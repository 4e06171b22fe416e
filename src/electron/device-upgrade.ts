// What `device:upgrade` means for the tray app (issue 31): its updater is asked for the newest version
// (electron-updater, under update-policy.ts's mode); a newer one is reported as ready for the person,
// who installs it from the tray when nothing waits (update-controller.ts). The backend never restarts
// this app, and never installs behind the person's back. The port is bound once the updater is known,
// after the services started.
import type { UpgradeOutcome, UpgradePort } from "../device/upgrade.js";
import type { UpdaterLike } from "./update-controller.js";
import type { UpdateMode } from "./update-policy.js";

export interface LateUpgradePort extends UpgradePort {
  bind(port: UpgradePort): void;
}

/** A port the composition root gets before the updater exists; answers "not ready" until bound. */
export function lateUpgradePort(): LateUpgradePort {
  let target: UpgradePort | null = null;
  return {
    bind: (port) => void (target = port),
    checkAndUpdate: () =>
      target
        ? target.checkAndUpdate()
        : Promise.resolve({ kind: "failed", error: "the tray app's updater is not ready yet; try again" }),
  };
}

export function trayUpgradePort(input: {
  mode: UpdateMode;
  updater: UpdaterLike | null;
  version: string;
}): UpgradePort {
  return {
    async checkAndUpdate(): Promise<UpgradeOutcome> {
      const { mode, updater, version } = input;
      if (mode.mode === "off" || !updater)
        return {
          kind: "failed",
          oldVersion: version,
          error: `updates are off in this build: ${mode.reason}`,
        };
      let result: unknown;
      try {
        result = await updater.checkForUpdates();
      } catch (error) {
        return {
          kind: "failed",
          oldVersion: version,
          error: `the update check failed: ${(error as Error).message}`,
        };
      }
      const checked = result as { isUpdateAvailable?: unknown; updateInfo?: { version?: unknown } } | null;
      const latest = typeof checked?.updateInfo?.version === "string" ? checked.updateInfo.version : null;
      const newer =
        typeof checked?.isUpdateAvailable === "boolean" ? checked.isUpdateAvailable : latest !== version;
      if (!latest || !newer) return { kind: "latest", version };
      const how =
        mode.mode === "install"
          ? "is being downloaded; the person at this device installs it from the tray menu"
          : "is available; the person at this device installs it";
      return {
        kind: "ready",
        oldVersion: version,
        newVersion: latest,
        message: `Gatehouse ${latest} ${how}`,
      };
    },
  };
}
