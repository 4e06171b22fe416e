// The production menu: no Reload, Force Reload or DevTools in a shipped app on any platform; the Edit
// menu macOS needs for copy and paste; the tray's menu in the menu bar where no tray is seen.
import { describe, expect, it } from "vitest";
import { applicationMenu, developerMode, menuRoles } from "../../../src/electron/app-menu.js";

const DEVELOPER_ROLES = ["reload", "forceReload", "toggleDevTools"];
const PLATFORMS: NodeJS.Platform[] = ["darwin", "win32", "linux"];

describe("the application menu", () => {
  it("a shipped app has no Reload and no DevTools on any platform", () => {
    for (const platform of PLATFORMS) {
      const roles = menuRoles(applicationMenu({ platform, developer: false, trayMenu: null }));
      for (const role of DEVELOPER_ROLES) expect(roles, platform).not.toContain(role);
    }
  });

  it("macOS keeps an app menu with Quit and an Edit menu (⌘C and ⌘V need it); Windows and Linux have no menu bar", () => {
    const mac = menuRoles(applicationMenu({ platform: "darwin", developer: false, trayMenu: null }));
    expect(mac).toEqual(
      expect.arrayContaining(["about", "hide", "quit", "undo", "copy", "paste", "selectAll", "close"]),
    );
    expect(applicationMenu({ platform: "win32", developer: false, trayMenu: null })).toBeNull();
    expect(applicationMenu({ platform: "linux", developer: false, trayMenu: null })).toBeNull();
  });

  it("a developer run adds View with Reload and DevTools", () => {
    for (const platform of PLATFORMS) {
      const roles = menuRoles(applicationMenu({ platform, developer: true, trayMenu: null }));
      expect(roles, platform).toEqual(expect.arrayContaining(DEVELOPER_ROLES));
    }
  });

  it("where no tray is seen, the tray's menu is the menu bar's Gatehouse menu", () => {
    const trayMenu = [{ id: "quit", label: "Quit Gatehouse", click: () => undefined }];
    const menu = applicationMenu({ platform: "linux", developer: false, trayMenu });
    expect(menu).toEqual([{ label: "Gatehouse", submenu: trayMenu }]);
  });

  it("the developer flag counts only in an unpackaged run", () => {
    expect(developerMode({ packaged: false, env: { GATEHOUSE_DEVTOOLS: "1" } })).toBe(true);
    expect(developerMode({ packaged: true, env: { GATEHOUSE_DEVTOOLS: "1" } })).toBe(false);
    expect(developerMode({ packaged: false, env: {} })).toBe(false);
  });
});
