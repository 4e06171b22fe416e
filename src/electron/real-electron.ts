// The real Electron module seen through the shell's small interface (electron-api.ts). Only this file
// and main.ts touch Electron itself; everything else is tested with test/unit/electron/fake-electron.ts.
import type * as Electron from "electron";
import type { BrowserWindowLike, ElectronLike, MenuItemSpec, TrayLike } from "./electron-api.js";

export function realElectron(electron: typeof Electron): ElectronLike {
  const { app, BrowserWindow, Tray, Menu, nativeImage, Notification, shell, clipboard, dialog, ipcMain } =
    electron;
  return {
    app,
    createWindow: (options) => new BrowserWindow(options) as unknown as BrowserWindowLike,
    createTray: (image) => new Tray(image as Electron.NativeImage) as unknown as TrayLike,
    buildMenu: (template: MenuItemSpec[]) =>
      Menu.buildFromTemplate(template as Electron.MenuItemConstructorOptions[]),
    setApplicationMenu: (menu) => Menu.setApplicationMenu(menu as Electron.Menu | null),
    protocol: { handle: (scheme, handler) => electron.protocol.handle(scheme, handler) },
    imageFromPath: (file) => {
      const image = nativeImage.createFromPath(file);
      // macOS menu bar images named *Template are tinted by the system for light and dark menu bars.
      if (/Template(@2x)?\.png$/.test(file)) image.setTemplateImage(true);
      return image;
    },
    notification: {
      isSupported: () => Notification.isSupported(),
      create: (options) => new Notification(options),
    },
    shell: {
      openExternal: (url) => shell.openExternal(url),
      showItemInFolder: (p) => shell.showItemInFolder(p),
      openPath: (p) => shell.openPath(p),
    },
    clipboard: { writeText: (text) => clipboard.writeText(text) },
    dialog: {
      showOpenDialog: (options) =>
        dialog.showOpenDialog(options as Electron.OpenDialogOptions) as Promise<{
          canceled: boolean;
          filePaths: string[];
        }>,
    },
    ipcMain: {
      handle: (channel, handler) => ipcMain.handle(channel, (event, ...args) => handler(event, ...args)),
      removeHandler: (channel) => ipcMain.removeHandler(channel),
    },
    powerMonitor: { on: (event, listener) => electron.powerMonitor.on(event, listener) },
    setResponseHeaders: (headers) => {
      electron.session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
        callback({
          responseHeaders: {
            ...details.responseHeaders,
            ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
          },
        });
      });
    },
    denyPermissions: () => {
      electron.session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) =>
        callback(false),
      );
    },
    platform: process.platform,
  };
}
