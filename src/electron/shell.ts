// The tray app's wiring, against the small Electron interface (electron-api.ts) so unit tests can run
// it with a fake: the renderer served on the app's own scheme, the IPC router on ipcMain with the sender
// check, events to the windows, the tray kept in step with prompts and the connection (and a visible
// window where no tray can be seen), a native notification and the approval window for every new
// prompt, the production menu, launch at login, updates, reconnect after sleep. No policy lives here.
import path from "node:path";
import { CHANNELS, EVENTS, IPC_INVOKE } from "../ipc/contract.js";
import { promptView } from "../ipc/prompt-view.js";
import { endElevation, runningElevations, startElevation } from "../executor/elevation.js";
import { createRouter, type Router } from "../ipc/router.js";
import type { UiHost, UiServices } from "../ipc/ui-services.js";
import { applicationMenu } from "./app-menu.js";
import { APP_SCHEME, appProtocolHandler } from "./app-protocol.js";
import type { LoginItem } from "./autostart.js";
import type { ElectronLike, MenuItemSpec, TrayLike } from "./electron-api.js";
import { CONTENT_SECURITY_POLICY, isTrustedSender } from "./security.js";
import type { TrayHost } from "./tray-host.js";
import { createUpdateController, type UpdateController, type UpdaterLike } from "./update-controller.js";
import type { UpdateMode } from "./update-policy.js";
import {
  headAndTail,
  trayState,
  type TrayAction,
  type TrayMenuEntry,
  type TrayInput,
  type TrayState,
  type TrayUpdate,
} from "./tray.js";
import { WindowManager, rendererUrl } from "./windows.js";

export interface ShellOptions {
  electron: ElectronLike;
  services: UiServices;
  /** The folder holding `tray/` icons. */
  assetsDir: string;
  /** The compiled preload script (`preload.cjs`). */
  preload: string;
  /** `renderer/dist`: the only folder `app://gatehouse/` serves. */
  rendererDir: string;
  /** The stored launch-at-login setting, applied at start. */
  launchAtLogin: boolean | undefined;
  /**
   * How launch at login is applied (autostart.ts `loginItemFor`); null where it cannot be. Default:
   * Electron's login items on macOS and Windows, nothing on Linux.
   */
  loginItem?: LoginItem | null;
  /** A developer run (app-menu.ts `developerMode`): Reload and DevTools. */
  developer?: boolean;
  /** Whether a tray icon will be seen (tray-host.ts); default: it will. */
  trayHost?: TrayHost;
  /** electron-updater and the policy's mode for this build; default: updates off. */
  updates?: { mode: UpdateMode; updater: UpdaterLike | null };
  /** The OS woke up: reconnect at once. */
  systemResumed?: () => void;
  /** Stops the services; the shell then quits the app. */
  stop: () => Promise<void>;
}

export interface Shell {
  router: Router;
  windows: WindowManager;
  updates: UpdateController;
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
  return menuItems(state.menu, run);
}

function menuItems(entries: TrayMenuEntry[], run: (action: TrayAction) => void): MenuItemSpec[] {
  return entries.map((entry) =>
    entry.separator
      ? { id: entry.id, type: "separator" }
      : {
          id: entry.id,
          label: entry.label,
          enabled: entry.enabled,
          ...(entry.submenu ? { type: "submenu" as const, submenu: menuItems(entry.submenu, run) } : {}),
          ...(entry.action ? { click: () => run(entry.action as TrayAction) } : {}),
        },
  );
}

/** Electron's login items where they work (macOS, Windows); Linux needs autostart.ts. */
function defaultLoginItem(electron: ElectronLike): LoginItem | null {
  if (electron.platform === "linux") return null;
  return async (enabled) => electron.app.setLoginItemSettings({ openAtLogin: enabled });
}

export function startShell(options: ShellOptions): Shell {
  const { electron, services } = options;
  const logger = services.logger.child("shell");
  const developer = options.developer === true;
  const trayHost: TrayHost = options.trayHost ?? { visible: true, reason: "assumed" };
  const loginItem = options.loginItem === undefined ? defaultLoginItem(electron) : options.loginItem;
  let quitting: Promise<void> | null = null;
  let toldStillRunning = false;
  const windows = new WindowManager(electron, {
    preload: options.preload,
    openExternal: (url) => void electron.shell.openExternal(url),
    developer,
    menuBar: !trayHost.visible,
    onClosed: (kind) => {
      // With no tray to come back to, say once that closing the window did not quit the app.
      if (kind !== "main" || trayHost.visible || quitting || toldStillRunning) return;
      toldStillRunning = true;
      notify(
        "Gatehouse is still running",
        "It keeps guarding agents. Start Gatehouse again to open its window.",
      );
    },
  });
  const ownUrl = rendererUrl();

  /** `approval`: it blocks an agent, so it stays until the person acts (macOS: the Info.plist alert style). */
  const notify = (title: string, body: string, how: { approval?: boolean; onClick?: () => void } = {}) => {
    if (!electron.notification.isSupported()) return;
    const note = electron.notification.create(
      how.approval ? { title, body, timeoutType: "never", urgency: "critical" } : { title, body },
    );
    if (how.onClick) note.on("click", how.onClick);
    note.show();
  };

  // The renderer comes only from the built files, on the app's own scheme.
  electron.protocol.handle(
    APP_SCHEME,
    appProtocolHandler(options.rendererDir, (url, reason) =>
      logger.warn("refused a renderer request", { url, reason }),
    ),
  );

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
    setLaunchAtLogin: loginItem,
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

  // ---- updates -----------------------------------------------------------------------------------
  const updates = createUpdateController({
    mode: options.updates?.mode ?? { mode: "off", reason: "no updater was given" },
    updater: options.updates?.updater ?? null,
    busy: () => ({
      pendingPrompts: services.broker.list().length,
      runningTasks: services.tasks?.list().length ?? 0,
    }),
    logger,
    onChange: () => draw(),
  });
  const trayUpdate = (): TrayUpdate | null => {
    const state = updates.state();
    if (state.kind === "available") return { kind: "available", version: state.version };
    if (state.kind === "downloaded")
      return { kind: "downloaded", version: state.version, blocker: updates.blocker() };
    return null;
  };

  // ---- tray and menu ------------------------------------------------------------------------------
  let approvalsInvalid = false;
  let elevated: { agentId: string; until: number }[] = [];
  const trayNow = () => services.now?.() ?? Date.now();
  const trayInput = (): TrayInput => ({
    platform: electron.platform,
    connection: services.device?.state() ?? null,
    pending: services.broker.list().map((p) => {
      const view = promptView(p, services.paths.home);
      return {
        id: view.id,
        agentId: view.agentId,
        commandText: view.commandText,
        danger: view.risks.some((r) => r.level === "danger"),
      };
    }),
    approvalsInvalid,
    tasks: services.tasks?.list() ?? [],
    terminals: services.terminals?.list() ?? [],
    now: trayNow(),
    home: services.paths.home,
    elevated: elevated.filter((e) => e.until > trayNow()),
    update: trayUpdate(),
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
    const template = menuTemplate(next, (action) => void runTrayAction(action));
    tray.setContextMenu(electron.buildMenu(template));
    // Where no tray is seen, its menu is the window's menu bar instead.
    if (!trayHost.visible) setApplicationMenu(template);
    drawn = next;
  };
  const setApplicationMenu = (trayMenu: MenuItemSpec[] | null) => {
    const menu = applicationMenu({ platform: electron.platform, developer, trayMenu });
    electron.setApplicationMenu(menu ? electron.buildMenu(menu) : null);
  };
  if (trayHost.visible) setApplicationMenu(null);
  const refreshTray = async () => {
    const state = await services.approvals.load();
    approvalsInvalid = state.status === "invalid";
    elevated = await runningElevations(services.approvals, trayNow());
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
      windows.showApproval({ focus: false });
      const view = promptView(prompt, services.paths.home);
      const danger = view.risks.find((r) => r.level === "danger");
      notify(
        danger ? "Gatehouse: careful — approval needed" : "Gatehouse: approval needed",
        `${view.agentId} wants to run: ${headAndTail(view.commandText, NOTIFY_COMMAND_CHARS)}${danger ? `\n⚠ ${danger.detail}` : ""}`,
        { approval: true, onClick: () => void windows.showApproval() },
      );
    }
    for (const id of [...known]) if (!pending.some((p) => p.id === id)) known.delete(id);
    if (pending.length === 0) windows.hideApproval();
    draw();
  };
  stops.push(router.subscribe("prompts.changed", onPrompts));
  stops.push(router.subscribe("status.connection", () => draw()));
  if (services.tasks) stops.push(services.tasks.onChange(() => draw()));
  if (services.terminals) stops.push(services.terminals.onChange(() => draw()));
  // Elapsed times and elevated time left in the menu stay roughly current.
  const elapsedTimer = setInterval(() => {
    const open = (services.tasks?.list().length ?? 0) + (services.terminals?.list().length ?? 0);
    if (open > 0 || elevated.length > 0) void refreshTray();
  }, 30_000);
  elapsedTimer.unref?.();
  stops.push(() => clearInterval(elapsedTimer));
  stops.push(router.subscribe("allowlist.changed", () => void refreshTray()));
  if (known.size > 0) windows.showApproval();

  // ---- the app's lifecycle ------------------------------------------------------------------------
  // Windows shows notifications only for an app with an AppUserModelID (the installer's appId).
  if (electron.platform === "win32") electron.app.setAppUserModelId?.(APP_USER_MODEL_ID);
  if (options.launchAtLogin !== undefined && loginItem) {
    loginItem(options.launchAtLogin).catch((error: unknown) =>
      logger.warn("launch at login could not be applied", { error: (error as Error).message }),
    );
  }
  electron.powerMonitor.on("resume", () => options.systemResumed?.());
  electron.app.on("second-instance", () => void windows.showMain());
  electron.app.on("activate", () => void windows.showMain());
  // A tray app keeps running with every window closed.
  electron.app.on("window-all-closed", () => undefined);

  let stopped = false;
  /** `install`: the person chose "Restart to update" (checked by the caller: nothing waited). */
  const quit = (how: { install?: boolean } = {}) => {
    quitting ??= (async () => {
      // Decided before the services stop (which withdraws prompts): install on the way out only if nothing waits now.
      updates.preparingToQuit();
      updates.stop();
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
      if (how.install && updates.install().ok) return;
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
      case "close-terminal":
        services.terminals?.close(action.sessionId);
        draw();
        return;
      case "elevate":
      case "end-elevation": {
        const deps = { approvals: services.approvals, audit: services.audit, now: trayNow };
        try {
          if (action.kind === "elevate")
            await startElevation(deps, { agentId: action.agentId, forMs: action.forMs, by: "tray" });
          else await endElevation(deps, { by: "tray" });
        } catch (error) {
          logger.warn("elevated mode could not be changed from the tray", {
            error: (error as Error).message,
          });
        }
        await refreshTray();
        return;
      }
      case "install-update":
        // Checked again at the click: a prompt may have arrived since the menu was drawn.
        if (updates.state().kind !== "downloaded" || updates.blocker()) {
          draw();
          return;
        }
        await quit({ install: true });
        return;
      case "quit":
        await quit();
        return;
    }
  };

  if (!trayHost.visible) {
    logger.info("no tray icon will be seen: showing the main window", { reason: trayHost.reason });
    windows.showMain();
  }
  updates.start();
  logger.info("tray app ready", { channels: CHANNELS.length, tray: trayHost.reason });
  return { router, windows, updates, trayState: () => drawn, refreshTray, runTrayAction, quit: () => quit() };
}
