// The small slice of Electron's API the shell uses, as an interface: main.ts passes the real module,
// unit tests pass `test/unit/electron/fake-electron.ts`. Only what is used is declared here.

export interface WebContentsLike {
  id: number;
  send(channel: string, ...args: unknown[]): void;
  on(
    event: "will-navigate" | "will-redirect",
    listener: (event: { preventDefault(): void }, url: string) => void,
  ): unknown;
  on(event: "will-attach-webview", listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "deny" | "allow" }): void;
  isDestroyed(): boolean;
}

export interface WindowOptions {
  width: number;
  height: number;
  minWidth?: number;
  minHeight?: number;
  show: boolean;
  title: string;
  alwaysOnTop?: boolean;
  resizable?: boolean;
  minimizable?: boolean;
  maximizable?: boolean;
  fullscreenable?: boolean;
  skipTaskbar?: boolean;
  autoHideMenuBar?: boolean;
  backgroundColor?: string;
  titleBarStyle?: "default" | "hidden" | "hiddenInset";
  webPreferences: {
    preload: string;
    contextIsolation: boolean;
    sandbox: boolean;
    nodeIntegration: boolean;
    nodeIntegrationInWorker: boolean;
    webSecurity: boolean;
    allowRunningInsecureContent: boolean;
    webviewTag: boolean;
    spellcheck: boolean;
    /** DevTools can be opened only in a developer run (app-menu.ts `developerMode`). */
    devTools: boolean;
  };
}

export interface BrowserWindowLike {
  webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  show(): void;
  /** Shows the window without taking the keyboard from the app the person is typing in. */
  showInactive(): void;
  focus(): void;
  hide(): void;
  close(): void;
  isDestroyed(): boolean;
  isVisible(): boolean;
  setAlwaysOnTop(flag: boolean, level?: "floating" | "modal-panel" | "screen-saver"): void;
  /** macOS Spaces / Linux workspaces: the window follows the person to whichever one is active. */
  setVisibleOnAllWorkspaces(visible: boolean, options?: { visibleOnFullScreen?: boolean }): void;
  on(event: "closed" | "ready-to-show", listener: () => void): unknown;
}

export interface MenuItemSpec {
  label?: string;
  type?: "normal" | "separator" | "submenu";
  /** An Electron menu role (copy, paste, quit, …): the OS supplies the action and its shortcut. */
  role?: string;
  enabled?: boolean;
  click?: () => void;
  submenu?: MenuItemSpec[];
  /** Test-facing id (Electron keeps it on the item). */
  id?: string;
}

export interface TrayLike {
  setImage(image: unknown): void;
  setToolTip(text: string): void;
  setTitle(title: string): void;
  setContextMenu(menu: unknown): void;
  on(event: "click", listener: () => void): unknown;
  destroy(): void;
}

export interface NotificationLike {
  show(): void;
  on(event: "click", listener: () => void): unknown;
}

export interface NotificationOptions {
  title: string;
  body: string;
  silent?: boolean;
  /** Windows and Linux: "never" keeps it on screen until the person acts (macOS: Info.plist alert style). */
  timeoutType?: "default" | "never";
  /** Linux: "critical" notifications stay and show over full-screen windows. */
  urgency?: "normal" | "critical" | "low";
}

export interface IpcMainInvokeEventLike {
  sender: { id: number };
  senderFrame: { url: string } | null;
}

export interface ElectronLike {
  app: {
    requestSingleInstanceLock(): boolean;
    quit(): void;
    whenReady(): Promise<unknown>;
    on(
      event: "second-instance" | "window-all-closed" | "before-quit" | "activate",
      listener: (...args: unknown[]) => void,
    ): unknown;
    setLoginItemSettings(settings: { openAtLogin: boolean }): void;
    dock?: { hide(): void } | undefined;
    setAppUserModelId?(id: string): void;
  };
  /** The application menu (menu bar); null removes it. */
  setApplicationMenu(menu: unknown): void;
  /** Serves a privileged custom scheme (registered before `ready`, see app-protocol.ts). */
  protocol: {
    handle(scheme: string, handler: (request: Request) => Promise<Response>): void;
  };
  createWindow(options: WindowOptions): BrowserWindowLike;
  createTray(image: unknown): TrayLike;
  buildMenu(template: MenuItemSpec[]): unknown;
  imageFromPath(path: string): unknown;
  notification: {
    isSupported(): boolean;
    create(options: NotificationOptions): NotificationLike;
  };
  shell: {
    openExternal(url: string): Promise<void>;
    showItemInFolder(path: string): void;
    openPath(path: string): Promise<string>;
  };
  clipboard: { writeText(text: string): void };
  dialog: {
    showOpenDialog(options: {
      title: string;
      properties: string[];
    }): Promise<{ canceled: boolean; filePaths: string[] }>;
  };
  ipcMain: {
    handle(channel: string, handler: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown): void;
    removeHandler(channel: string): void;
  };
  powerMonitor: { on(event: "resume", listener: () => void): unknown };
  /** Adds response headers (the CSP) to every response the app's session loads. */
  setResponseHeaders(headers: Record<string, string>): void;
  /** Denies every permission request (camera, notifications from pages, …). */
  denyPermissions(): void;
  platform: NodeJS.Platform;
}
