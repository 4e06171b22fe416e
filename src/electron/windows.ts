// The app's two windows, made on demand: the approval window (small, always on top, on every Space or
// workspace) and the main window. Both load the built renderer from the app's own scheme
// (app-protocol.ts), with hardened web preferences, no navigation and no new windows; the manager knows
// their webContents ids for the IPC sender check.
import { IPC_EVENT, type EventName, type EventPayload, type Screen } from "../ipc/contract.js";
import { appPageUrl } from "./app-protocol.js";
import type { BrowserWindowLike, ElectronLike, WindowOptions } from "./electron-api.js";
import { hardenWebContents, webPreferences } from "./security.js";

export type WindowKind = "approval" | "main";

export function approvalWindowOptions(preload: string, developer = false): WindowOptions {
  return {
    width: 560,
    height: 640,
    minWidth: 440,
    minHeight: 400,
    show: false,
    title: "Gatehouse — approval needed",
    alwaysOnTop: true,
    resizable: true,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    skipTaskbar: false,
    autoHideMenuBar: true,
    webPreferences: webPreferences(preload, developer),
  };
}

/** `menuBar`: with no tray, the main window shows its menu bar (the tray's menu lives there). */
export function mainWindowOptions(preload: string, developer = false, menuBar = false): WindowOptions {
  return {
    width: 1120,
    height: 780,
    minWidth: 760,
    minHeight: 520,
    show: false,
    title: "Gatehouse",
    autoHideMenuBar: !menuBar,
    webPreferences: webPreferences(preload, developer),
  };
}

/** The renderer's page URL (what the sender check accepts), without a hash. */
export function rendererUrl(): string {
  return appPageUrl();
}

export interface WindowManagerOptions {
  preload: string;
  openExternal: (url: string) => void;
  /** A developer run: DevTools allowed (app-menu.ts `developerMode`). */
  developer?: boolean;
  /** No tray is shown: the main window keeps its menu bar visible. */
  menuBar?: boolean;
  /** Told when a window is closed by the person or the app. */
  onClosed?: (kind: WindowKind) => void;
}

export class WindowManager {
  private readonly windows = new Map<WindowKind, BrowserWindowLike>();

  constructor(
    private readonly electron: ElectronLike,
    private readonly options: WindowManagerOptions,
  ) {}

  /** Ids of the webContents of the app's own live windows. */
  ownIds(): Set<number> {
    const ids = new Set<number>();
    for (const win of this.windows.values()) {
      if (!win.isDestroyed() && !win.webContents.isDestroyed()) ids.add(win.webContents.id);
    }
    return ids;
  }

  get(kind: WindowKind): BrowserWindowLike | null {
    const win = this.windows.get(kind);
    return win && !win.isDestroyed() ? win : null;
  }

  /**
   * Shows the approval window (creating it), on top of other apps. `focus: false` (a new prompt) leaves
   * the keyboard where it is, so keys typed into another app never land in the dialog; the person's own
   * gesture (tray, notification) focuses it.
   */
  showApproval(options: { focus?: boolean } = {}): BrowserWindowLike {
    const win =
      this.get("approval") ??
      this.create(
        "approval",
        approvalWindowOptions(this.options.preload, this.options.developer),
        "approval",
      );
    win.setAlwaysOnTop(true, "floating");
    // A prompt must reach the person on whichever Space (macOS) or workspace (Linux) they are on.
    if (this.electron.platform !== "win32")
      win.setVisibleOnAllWorkspaces(true, { visibleOnFullScreen: true });
    if (options.focus === false) {
      if (!win.isVisible()) win.showInactive();
      return win;
    }
    win.show();
    win.focus();
    return win;
  }

  /** Shows the main window (creating it) at a screen. */
  showMain(screen?: Screen): BrowserWindowLike {
    const existing = this.get("main");
    if (existing) {
      if (screen) existing.webContents.send(IPC_EVENT, { event: "app.navigate", payload: { screen } });
      existing.show();
      existing.focus();
      return existing;
    }
    const win = this.create(
      "main",
      mainWindowOptions(this.options.preload, this.options.developer, this.options.menuBar),
      screen ?? "status",
    );
    win.show();
    win.focus();
    return win;
  }

  /** Hides the approval window once nothing waits (a new prompt shows it again). */
  hideApproval(): void {
    const win = this.get("approval");
    if (win?.isVisible()) win.hide();
  }

  /** Sends an event to every live window. */
  broadcast<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const win of this.windows.values()) {
      if (!win.isDestroyed() && !win.webContents.isDestroyed())
        win.webContents.send(IPC_EVENT, { event, payload });
    }
  }

  closeAll(): void {
    for (const win of this.windows.values()) if (!win.isDestroyed()) win.close();
    this.windows.clear();
  }

  private create(kind: WindowKind, options: WindowOptions, hash: string): BrowserWindowLike {
    const win = this.electron.createWindow(options);
    hardenWebContents(win.webContents, this.options.openExternal);
    this.windows.set(kind, win);
    win.on("closed", () => {
      if (this.windows.get(kind) === win) this.windows.delete(kind);
      this.options.onClosed?.(kind);
    });
    void win.loadURL(appPageUrl(hash));
    return win;
  }
}
