// A small, named fake of the Electron API the shell uses (src/electron/electron-api.ts), for unit tests
// where no Electron binary exists. It records what the shell asked for — windows and their options,
// URLs loaded, navigation handlers, the tray's image/tooltip/title/menu, the application menu,
// notifications, IPC and protocol handlers, the hook mode's app calls — and lets a test fire the events
// Electron would (a navigation, a menu click, a second instance, a request on the app's scheme).
import type {
  BrowserWindowLike,
  ElectronLike,
  IpcMainInvokeEventLike,
  MenuItemSpec,
  NotificationLike,
  NotificationOptions,
  TrayLike,
  WebContentsLike,
  WindowOptions,
} from "../../../src/electron/electron-api.js";

type Handler = (...args: unknown[]) => unknown;
type NavigationHandler = (event: { preventDefault(): void }, url: string) => void;

export class FakeWebContents implements WebContentsLike {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  readonly handlers = new Map<string, NavigationHandler[]>();
  windowOpenHandler: ((details: { url: string }) => { action: "deny" | "allow" }) | null = null;
  destroyed = false;

  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  on(event: "will-navigate" | "will-redirect", listener: NavigationHandler): this;
  on(event: "will-attach-webview", listener: (event: { preventDefault(): void }) => void): this;
  on(event: string, listener: NavigationHandler): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), listener]);
    return this;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "deny" | "allow" }): void {
    this.windowOpenHandler = handler;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** Fires `will-navigate` (or another such event) as Chromium would; true when a handler prevented it. */
  attempt(
    event: "will-navigate" | "will-redirect" | "will-attach-webview",
    url = "https://example.com/",
  ): boolean {
    let prevented = false;
    const e = { preventDefault: () => void (prevented = true) };
    for (const handler of this.handlers.get(event) ?? []) handler(e, url);
    return prevented;
  }
}

export class FakeWindow implements BrowserWindowLike {
  readonly webContents = new FakeWebContents();
  readonly loaded: string[] = [];
  visible = false;
  focused = 0;
  destroyed = false;
  alwaysOnTop: { flag: boolean; level?: string } | null = null;
  allWorkspaces: { visible: boolean; visibleOnFullScreen?: boolean } | null = null;
  private readonly listeners = new Map<string, Array<() => void>>();

  constructor(readonly options: WindowOptions) {}

  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
  }
  show(): void {
    this.visible = true;
  }
  showInactive(): void {
    this.visible = true;
  }
  focus(): void {
    this.focused++;
  }
  hide(): void {
    this.visible = false;
  }
  close(): void {
    this.destroyed = true;
    this.webContents.destroyed = true;
    for (const listener of this.listeners.get("closed") ?? []) listener();
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isVisible(): boolean {
    return this.visible;
  }
  setAlwaysOnTop(flag: boolean, level?: "floating" | "modal-panel" | "screen-saver"): void {
    this.alwaysOnTop = { flag, ...(level ? { level } : {}) };
  }
  setVisibleOnAllWorkspaces(visible: boolean, options?: { visibleOnFullScreen?: boolean }): void {
    this.allWorkspaces = { visible, ...options };
  }
  on(event: "closed" | "ready-to-show", listener: () => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
}

export class FakeTray implements TrayLike {
  image: unknown;
  tooltip = "";
  title = "";
  menu: MenuItemSpec[] = [];
  destroyed = false;
  readonly clicks: Array<() => void> = [];
  constructor(image: unknown) {
    this.image = image;
  }
  setImage(image: unknown): void {
    this.image = image;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setTitle(title: string): void {
    this.title = title;
  }
  setContextMenu(menu: unknown): void {
    this.menu = (menu as { template: MenuItemSpec[] }).template;
  }
  on(_event: "click", listener: () => void): this {
    this.clicks.push(listener);
    return this;
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** Clicks the menu item with this id, as a person would. */
  clickItem(id: string): void {
    const all = (items: MenuItemSpec[]): MenuItemSpec[] =>
      items.flatMap((i) => [i, ...(i.submenu ? all(i.submenu) : [])]);
    const item = all(this.menu).find((i) => i.id === id);
    if (!item?.click)
      throw new Error(`no clickable menu item ${id} in ${this.menu.map((i) => i.id).join(", ")}`);
    item.click();
  }
}

export interface FakeNotification extends NotificationLike {
  title: string;
  body: string;
  options: NotificationOptions;
  shown: boolean;
  click(): void;
}

export class FakeElectron implements ElectronLike {
  readonly windows: FakeWindow[] = [];
  trays: FakeTray[] = [];
  readonly notifications: FakeNotification[] = [];
  readonly ipcHandlers = new Map<string, (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown>();
  readonly appListeners = new Map<string, Handler[]>();
  readonly powerListeners: Array<() => void> = [];
  readonly loginItems: boolean[] = [];
  readonly opened: { external: string[]; revealed: string[]; paths: string[] } = {
    external: [],
    revealed: [],
    paths: [],
  };
  readonly clipboardTexts: string[] = [];
  responseHeaders: Record<string, string> | null = null;
  permissionsDenied = false;
  quitCalls = 0;
  singleInstanceRequests = 0;
  exitCodes: number[] = [];
  paths: Record<string, string> = { userData: "/home/user/.config/Gatehouse" };
  hardwareAccelerationDisabled = false;
  /** The application menu's template as last set (null: no menu bar); undefined until set. */
  applicationMenu: MenuItemSpec[] | null | undefined = undefined;
  readonly protocolHandlers = new Map<string, (request: Request) => Promise<Response>>();
  singleInstance = true;
  nextFolder: string | null = null;

  constructor(readonly platform: NodeJS.Platform = "linux") {}

  app = {
    requestSingleInstanceLock: () => {
      this.singleInstanceRequests++;
      return this.singleInstance;
    },
    exit: (code = 0) => void this.exitCodes.push(code),
    getPath: (name: string) => {
      const value = this.paths[name];
      if (!value) throw new Error(`no fake path ${name}`);
      return value;
    },
    setPath: (name: string, value: string) => void (this.paths[name] = value),
    disableHardwareAcceleration: () => void (this.hardwareAccelerationDisabled = true),
    quit: () => {
      this.quitCalls++;
    },
    whenReady: async () => undefined,
    on: (event: string, listener: Handler) => {
      this.appListeners.set(event, [...(this.appListeners.get(event) ?? []), listener]);
      return this.app;
    },
    setLoginItemSettings: (settings: { openAtLogin: boolean }) =>
      void this.loginItems.push(settings.openAtLogin),
    setAppUserModelId: (id: string) => void (this.appUserModelId = id),
  };
  appUserModelId: string | null = null;

  createWindow(options: WindowOptions): FakeWindow {
    const win = new FakeWindow(options);
    this.windows.push(win);
    return win;
  }
  createTray(image: unknown): FakeTray {
    const tray = new FakeTray(image);
    this.trays.push(tray);
    return tray;
  }
  buildMenu(template: MenuItemSpec[]): unknown {
    return { template };
  }
  setApplicationMenu(menu: unknown): void {
    this.applicationMenu = menu === null ? null : (menu as { template: MenuItemSpec[] }).template;
  }
  protocol = {
    handle: (scheme: string, handler: (request: Request) => Promise<Response>) =>
      void this.protocolHandlers.set(scheme, handler),
  };
  /** Requests `url` on a registered custom scheme, as a page in a window would. */
  async request(url: string, method = "GET"): Promise<Response> {
    const scheme = url.slice(0, url.indexOf(":"));
    const handler = this.protocolHandlers.get(scheme);
    if (!handler) throw new Error(`no protocol handler for ${scheme}`);
    return handler(new Request(url, { method }));
  }
  imageFromPath(file: string): unknown {
    return { file };
  }
  notification = {
    isSupported: () => true,
    create: (options: NotificationOptions): FakeNotification => {
      const clicks: Array<() => void> = [];
      const note: FakeNotification = {
        title: options.title,
        body: options.body,
        options,
        shown: false,
        show: () => void (note.shown = true),
        on: (_event: "click", listener: () => void) => clicks.push(listener),
        click: () => clicks.forEach((c) => c()),
      };
      this.notifications.push(note);
      return note;
    },
  };
  shell = {
    openExternal: async (url: string) => void this.opened.external.push(url),
    showItemInFolder: (p: string) => void this.opened.revealed.push(p),
    openPath: async (p: string) => {
      this.opened.paths.push(p);
      return "";
    },
  };
  clipboard = { writeText: (text: string) => void this.clipboardTexts.push(text) };
  dialog = {
    showOpenDialog: async () =>
      this.nextFolder ? { canceled: false, filePaths: [this.nextFolder] } : { canceled: true, filePaths: [] },
  };
  ipcMain = {
    handle: (channel: string, handler: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown) =>
      void this.ipcHandlers.set(channel, handler),
    removeHandler: (channel: string) => void this.ipcHandlers.delete(channel),
  };
  powerMonitor = { on: (_event: "resume", listener: () => void) => this.powerListeners.push(listener) };
  setResponseHeaders(headers: Record<string, string>): void {
    this.responseHeaders = headers;
  }
  denyPermissions(): void {
    this.permissionsDenied = true;
  }

  /** Fires an app event (`second-instance`, `before-quit`, …) with the given arguments. */
  emitApp(event: string, ...args: unknown[]): void {
    for (const listener of this.appListeners.get(event) ?? []) listener(...args);
  }
  /** Calls the ipcMain handler as a renderer in `win` (or a stranger) would. */
  invoke(channel: string, args: unknown[], from: { senderId: number; url: string | null }): unknown {
    const handler = this.ipcHandlers.get(channel);
    if (!handler) throw new Error(`no ipcMain handler for ${channel}`);
    return handler(
      { sender: { id: from.senderId }, senderFrame: from.url === null ? null : { url: from.url } },
      ...args,
    );
  }
  get tray(): FakeTray {
    const tray = this.trays[this.trays.length - 1];
    if (!tray) throw new Error("no tray was created");
    return tray;
  }
}
