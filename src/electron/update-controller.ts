// Drives electron-updater by the rules of update-policy.ts: configures it (no silent install on quit, no
// downgrade, no pre-release), checks the feed after start and then periodically, and installs only when
// the person asks from the tray and nothing waits. The updater is seen through `UpdaterLike` (the few
// members of electron-updater's `autoUpdater` used here) so tests drive it with a fake.
import type { Logger } from "../core/log.js";
import {
  installBlocker,
  UPDATE_CHECK_INTERVAL_MS,
  UPDATE_FIRST_CHECK_DELAY_MS,
  type BusyState,
  type UpdateMode,
} from "./update-policy.js";

export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowDowngrade: boolean;
  allowPrerelease: boolean;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: "update-available" | "update-downloaded", listener: (info: { version: string }) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

export type UpdateState =
  | { kind: "off"; reason: string }
  | { kind: "idle" }
  /** notify mode: a newer version exists; the person installs it themselves. */
  | { kind: "available"; version: string }
  /** install mode: downloaded and verified on install by the OS updater. */
  | { kind: "downloaded"; version: string };

export interface UpdateController {
  state(): UpdateState;
  /** What stands in the way of installing now (a waiting prompt, a running task), or null. */
  blocker(): string | null;
  /** Asks the feed now (also done on a timer after `start`). */
  check(): Promise<void>;
  start(): void;
  /** Quits into the installer if an update is downloaded and nothing waits; else says why not. */
  install(): { ok: true } | { ok: false; reason: string };
  /** Called as the app begins to quit: install on the way out only if nothing waited at that moment. */
  preparingToQuit(): void;
  stop(): void;
}

export function createUpdateController(options: {
  mode: UpdateMode;
  updater: UpdaterLike | null;
  busy: () => BusyState;
  logger: Logger;
  onChange: () => void;
}): UpdateController {
  const { mode, updater, logger } = options;
  let current: UpdateState =
    mode.mode === "off" || !updater ? { kind: "off", reason: mode.reason } : { kind: "idle" };
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const set = (next: UpdateState) => {
    current = next;
    options.onChange();
  };

  if (updater && mode.mode !== "off") {
    updater.autoDownload = mode.mode === "install";
    // Installing on every quit would restart into a new version behind the person's back, even with a
    // prompt open; preparingToQuit decides it per quit instead.
    updater.autoInstallOnAppQuit = false;
    updater.allowDowngrade = false;
    updater.allowPrerelease = false;
    updater.on("update-available", (info) => {
      logger.info("an update is available", { version: info.version, mode: mode.mode });
      if (mode.mode === "notify") set({ kind: "available", version: info.version });
    });
    updater.on("update-downloaded", (info) => {
      logger.info("an update is downloaded", { version: info.version });
      if (mode.mode === "install") set({ kind: "downloaded", version: info.version });
    });
    updater.on("error", (error) => logger.warn("the update check failed", { error: error.message }));
  }

  const blocker = () => installBlocker(options.busy());

  return {
    state: () => current,
    blocker,
    async check() {
      if (!updater || current.kind === "off") return;
      try {
        await updater.checkForUpdates();
      } catch (error) {
        logger.warn("the update check failed", { error: (error as Error).message });
      }
    },
    start() {
      if (!updater || current.kind === "off") {
        logger.info("updates are off", { reason: mode.reason });
        return;
      }
      const first = setTimeout(() => void this.check(), UPDATE_FIRST_CHECK_DELAY_MS);
      const every = setInterval(() => void this.check(), UPDATE_CHECK_INTERVAL_MS);
      first.unref?.();
      every.unref?.();
      timers.push(first, every);
    },
    install() {
      if (!updater || current.kind !== "downloaded") return { ok: false, reason: "no update is ready" };
      const busy = blocker();
      if (busy) return { ok: false, reason: `not now: ${busy}` };
      logger.info("installing an update", { version: current.version });
      updater.quitAndInstall(false, true);
      return { ok: true };
    },
    preparingToQuit() {
      if (!updater || current.kind !== "downloaded") return;
      updater.autoInstallOnAppQuit = blocker() === null;
    },
    stop() {
      for (const timer of timers.splice(0)) {
        clearTimeout(timer);
        clearInterval(timer);
      }
    },
  };
}
