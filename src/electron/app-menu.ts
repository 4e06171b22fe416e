// The application menu (issue 17 "Production menu"). Electron's default menu offers Reload, Force
// Reload and Toggle Developer Tools to anyone; a shipped Gatehouse has none of them. macOS keeps an app
// menu, Edit (without it ⌘C/⌘V do nothing in text fields) and Window; Windows and Linux have no menu
// bar — except where no tray can be shown, where the tray's own menu becomes the window's menu bar. A
// developer run adds a View menu with Reload and DevTools.
import type { MenuItemSpec } from "./electron-api.js";

/** Reload and DevTools only for `npm start` with GATEHOUSE_DEVTOOLS=1; a packaged app never has them. */
export function developerMode(input: { packaged: boolean; env: NodeJS.ProcessEnv }): boolean {
  return !input.packaged && input.env.GATEHOUSE_DEVTOOLS === "1";
}

export interface AppMenuInput {
  platform: NodeJS.Platform;
  developer: boolean;
  /** The tray's menu when no tray is shown (tray-host.ts), else null. */
  trayMenu: MenuItemSpec[] | null;
}

const separator: MenuItemSpec = { type: "separator" };

function macAppMenu(): MenuItemSpec {
  return {
    label: "Gatehouse",
    submenu: [
      { role: "about" },
      separator,
      { role: "hide" },
      { role: "hideOthers" },
      { role: "unhide" },
      separator,
      { role: "quit" },
    ],
  };
}

function editMenu(): MenuItemSpec {
  return {
    label: "Edit",
    submenu: [
      { role: "undo" },
      { role: "redo" },
      separator,
      { role: "cut" },
      { role: "copy" },
      { role: "paste" },
      { role: "selectAll" },
    ],
  };
}

function windowMenu(): MenuItemSpec {
  return { label: "Window", submenu: [{ role: "minimize" }, { role: "close" }] };
}

function developerMenu(): MenuItemSpec {
  return {
    label: "View",
    submenu: [{ role: "reload" }, { role: "forceReload" }, { role: "toggleDevTools" }],
  };
}

/** The menu template, or null for no menu bar at all. */
export function applicationMenu(input: AppMenuInput): MenuItemSpec[] | null {
  const menus: MenuItemSpec[] = [];
  if (input.platform === "darwin") menus.push(macAppMenu());
  if (input.trayMenu) menus.push({ label: "Gatehouse", submenu: input.trayMenu });
  if (input.platform === "darwin") menus.push(editMenu(), windowMenu());
  if (input.developer) menus.push(developerMenu());
  return menus.length > 0 ? menus : null;
}

/** Every role anywhere in a menu (the tests look for the ones that must not ship). */
export function menuRoles(menu: MenuItemSpec[] | null): string[] {
  if (!menu) return [];
  return menu.flatMap((item) => [...(item.role ? [item.role] : []), ...menuRoles(item.submenu ?? null)]);
}
