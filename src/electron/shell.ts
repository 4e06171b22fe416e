// The tray app's wiring, against the small Electron interface (electron-api.ts) so unit tests can run
// it with a fake: the IPC router on ipcMain with the sender check, events to the windows, the tray kept
// in step with prompts and the connection, a native notification and the approval window for every new
// prompt, launch at login, reconnect after sleep, one instance per user. No policy lives here.
import path from "node:path";
import { CHANNELS, EVENTS, IPC_INVOKE } from "../ipc/contract.js";
import { promptView } from "../ipc/prompt-view.js";
import { createRouter, type Router } from "../ipc/router.js";
import type { UiHost, UiServices } from "../ipc/ui-services.js";
import type { ElectronLike, MenuItemSpec, TrayLike } from "./electron-api.js";
import { CONTENT_SECURITY_POLICY, isTrustedSender } from "./security.js";
import { trayState, type TrayAction, type TrayInput, type TrayState } from "./tray.js";
import { WindowManager, rendererUrl } from "./windows.js";

export interface ShellOptions {
  electron: ElectronLike;
  services: UiServices;
  /** The folder holding `tray/` icons. */
  assetsDir: string;
  /** The compiled preload script (`preload.cjs`). */
  preload: string;
  /** `renderer/dist/index.html`. */
  rendererIndex: string;
  /** The stored launch-at-login setting, applied at start. */
  launchAtLogin: boolean | undefined;
  /** The OS woke up: reconnect at once. */
  systemResumed?: () => void;
  /** Stops the services; the shell then quits the app. */
  stop: () => Promise<void>;
}

export interface Shell {
  router: Router;
  windows: WindowManager;
  /** The tray as last drawn (for tests and diagnostics). */
  trayState(): TrayState;
  /** Redraws the tray from the services' state now. */
  refreshTray(): Promise<void>;
  /** Runs a tray menu action (what a click on the item does). */
  runTrayAction(action: TrayAction): Promise<void>;
  quit(): Promise<void>;
}

const NOTIFY_COMMAND_CHARS = 120;
/** electron-builder.yml `appId`. */
export const APP_USER_MODEL_ID = "dev.gatehouse.app";

function menuTemplate(state: TrayState, run: (action: TrayAction) => void): MenuItemSpec[] {
  return state.menu.map((entry) =>
    entry.separator
      ? { id: entry.id, type: "separator" }
      : {
          id: entry.id,
          label: entry.label,
          enabled: entry.enabled,
          ...(entry.action ? { click: () => run(entry.action as TrayAction) } : {}),
        },
  );
}

export function startShell(options: ShellOptions): Shell {
  const { electron, services } = options;
  const logger = services.logger.child("shell");
  const windows = new WindowManager(electron, {
    preload: options.preload,
    rendererIndex: options.rendererIndex,
    openExternal: (url) => void electron.shell.openExternal(url),
  });
  const ownUrl = rendererUrl(options.rendererIndex);

  const host: UiHost = {
    revealPath: (p) => electron.shell.showItemInFolder(p),
    openPath: (p) => electron.shell.openPath(p),
    copyText: (text) => electron.clipboard.writeText(text),
    openExternal: (url) => electron.shell.openExternal(url),
    pickFolder: async (title) => {
      const picked = await electron.dialog.showOpenDialog({
        title,
        properties: ["openDirectory", "createDirectory"],
      });
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
    setLaunchAtLogin: (enabled) => electron.app.setLoginItemSettings({ openAtLogin: enabled }),
    openMainWindow: (screen) => void windows.showMain(screen),
  };

  const router = createRouter(services, {
    isTrustedSender: (event) => isTrustedSender(event, windows.ownIds(), ownUrl),
    host,
  });

  electron.setResponseHeaders({ "Content-Security-Policy": CONTENT_SECURITY_POLICY });
  electron.denyPermissions();
  electron.ipcMain.handle(IPC_INVOKE, (event, channel, payload) =>
    router.handle(String(channel), payload, event),
  );
  const stops = EVENTS.map((event) =>
    router.subscribe(event, (payload) => windows.broadcast(event, payload)),
  );

  // ---- tray --------------------------------------------------------------------------------------
  let approvalsInvalid = false;
  const trayInput = (): TrayInput => ({
    platform: electron.platform,
    connection: services.device?.state() ?? null,
    pending: services.broker.list().map((p) => {
      const view = promptView(p);
      return { id: view.id, agentId: view.agentId, commandText: view.commandText };
    }),
    approvalsInvalid,
    tasks: services.tasks?.list() ?? [],
    now: Date.now(),
    home: services.paths.home,
  });
  let drawn = trayState(trayInput());
  const tray: TrayLike = electron.createTray(
    electron.imageFromPath(path.join(options.assetsDir, "tray", drawn.iconFile)),
  );
  const draw = () => {
    const next = trayState(trayInput());
    if (next.iconFile !== drawn.iconFile) {
      tray.setImage(electron.imageFromPath(path.join(options.assetsDir, "tray", next.iconFile)));
    }
    tray.setToolTip(next.tooltip);
    if (electron.platform === "darwin") tray.setTitle(next.title);
    tray.setContextMenu(electron.buildMenu(menuTemplate(next, (action) => void runTrayAction(action))));
    drawn = next;
  };
  const refreshTray = async () => {
    const state = await services.approvals.load();
    approvalsInvalid = state.status === "invalid";
    draw();
  };
  draw();
  void refreshTray();
  tray.on("click", () => {
    // Windows and Linux: a click opens what needs the person first.
    if (services.broker.list().length > 0) windows.showApproval();
    else windows.showMain();
  });

  // ---- prompts: notification + approval window for each new one, tray in step -------------------
  const known = new Set(services.broker.list().map((p) => p.id));
  const onPrompts = () => {
    const pending = services.broker.list();
    for (const prompt of pending) {
      if (known.has(prompt.id)) continue;
      known.add(prompt.id);
      windows.showApproval();
      if (electron.notification.isSupported()) {
        const view = promptView(prompt);
        const text = view.commandText.replace(/\s+/g, " ");
        const note = electron.notification.create({
          title: "Gatehouse: approval needed",
          body: `${view.agentId} wants to run: ${text.length > NOTIFY_COMMAND_CHARS ? `${text.slice(0, NOTIFY_COMMAND_CHARS - 1)}…` : text}`,
        });
        note.on("click", () => void windows.showApproval());
        note.show();
      }
    }
    for (const id of [...known]) if (!pending.some((p) => p.id === id)) known.delete(id);
    if (pending.length === 0) windows.hideApproval();
    draw();
  };
  stops.push(router.subscribe("prompts.changed", onPrompts));
  stops.push(router.subscribe("status.connection", () => draw()));
  if (services.tasks) stops.push(services.tasks.onChange(() => draw()));
  // Elapsed times in the menu stay roughly current while tasks run.
  const elapsedTimer = setInterval(() => {
    if ((services.tasks?.list().length ?? 0) > 0) draw();
  }, 30_000);
  elapsedTimer.unref?.();
  stops.push(() => clearInterval(elapsedTimer));
  stops.push(router.subscribe("allowlist.changed", () => void refreshTray()));
  if (known.size > 0) windows.showApproval();

  // ---- the app's lifecycle ------------------------------------------------------------------------
  // Windows shows notifications only for an app with an AppUserModelID (the installer's appId).
  if (electron.platform === "win32") electron.app.setAppUserModelId?.(APP_USER_MODEL_ID);
  if (options.launchAtLogin !== undefined)
    electron.app.setLoginItemSettings({ openAtLogin: options.launchAtLogin });
  electron.powerMonitor.on("resume", () => options.systemResumed?.());
  electron.app.on("second-instance", () => void windows.showMain());
  electron.app.on("activate", () => void windows.showMain());
  // A tray app keeps running with every window closed.
  electron.app.on("window-all-closed", () => undefined);

  let quitting: Promise<void> | null = null;
  let stopped = false;
  const quit = () => {
    quitting ??= (async () => {
      for (const stop of stops.splice(0)) stop();
      electron.ipcMain.removeHandler(IPC_INVOKE);
      windows.closeAll();
      tray.destroy();
      await router.close();
      try {
        await options.stop();
      } catch (error) {
        logger.error("stopping the services failed", { error });
      }
      stopped = true;
      electron.app.quit();
    })();
    return quitting;
  };

  // Quitting from the OS (Cmd+Q, log out) stops the services first: the socket is removed, prompts withdrawn.
  electron.app.on("before-quit", (...args: unknown[]) => {
    if (stopped) return;
    (args[0] as { preventDefault?: () => void } | undefined)?.preventDefault?.();
    void quit();
  });

  const runTrayAction = async (action: TrayAction): Promise<void> => {
    switch (action.kind) {
      case "open-approval":
        windows.showApproval();
        return;
      case "open-main":
        windows.showMain();
        return;
      case "pause":
        await services.device?.pause();
        draw();
        return;
      case "resume":
        await services.device?.resume();
        draw();
        return;
      case "stop-task":
        await services.tasks?.stop?.(action.taskId, action.subtaskId);
        draw();
        return;
      case "quit":
        await quit();
        return;
    }
  };

  logger.info("tray app ready", { channels: CHANNELS.length });
  return { router, windows, trayState: () => drawn, refreshTray, runTrayAction, quit };
}
