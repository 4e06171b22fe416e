// The tray app's wiring with the fake Electron API over the real services in a temp home: IPC with the
// sender check, the tray following prompts, notifications, the approval window, lifecycle events.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestOnce } from "../../../src/approval-server/client.js";
import { createLogger } from "../../../src/core/log.js";
import { AUTOSTART_FILE_NAME, loginItemFor } from "../../../src/electron/autostart.js";
import { startShell, type Shell, type ShellOptions } from "../../../src/electron/shell.js";
import { rendererUrl } from "../../../src/electron/windows.js";
import { IPC_EVENT, IPC_INVOKE } from "../../../src/ipc/contract.js";
import { uiServicesFrom, type UiServices } from "../../../src/ipc/ui-services.js";
import { keytarKeychain } from "../../../src/secrets/keychain.js";
import { createSecretStore } from "../../../src/secrets/secret-store.js";
import { createServices, type Services } from "../../../src/services.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { FakeElectron, type FakeWindow } from "./fake-electron.js";
import { FakeUpdater } from "./fake-updater.js";

const RENDERER = rendererUrl();

let t: TempHome;
let services: Services;
let fake: FakeElectron;
let shell: Shell;
let resumed = 0;
let detachUi: () => void;
let ui: UiServices;
let rendererDir: string;
let autostartDir: string;

/** Another shell over the same services (its own fake Electron); its quit does not stop the services. */
function startOther(electron: FakeElectron, overrides: Partial<ShellOptions> = {}): Shell {
  return startShell({
    electron,
    services: ui,
    assetsDir: "/opt/gatehouse/assets",
    preload: "/opt/gatehouse/dist/src/electron/preload.cjs",
    rendererDir,
    launchAtLogin: undefined,
    stop: async () => undefined,
    ...overrides,
  });
}

beforeEach(async () => {
  t = await makeTempHome("gatehouse-shell-");
  const logger = createLogger({ sink: () => undefined });
  const secrets = createSecretStore({
    paths: t.paths,
    logger,
    keychain: keytarKeychain({
      load: () => {
        throw new Error("no keychain in unit tests");
      },
    }),
  });
  services = createServices({
    env: t.env,
    paths: t.paths,
    logger,
    presenter: null,
    device: { secrets, connect: false },
  });
  await services.approvals.ensure();
  await services.approvals.applyPreset("ask");
  const started = await services.start();
  expect(started.status).toBe("listening");
  detachUi = services.broker.attachUi();
  fake = new FakeElectron("linux");
  resumed = 0;
  rendererDir = path.join(t.home, "app", "renderer", "dist");
  fs.mkdirSync(path.join(rendererDir, "assets"), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><title>Gatehouse</title>");
  fs.writeFileSync(path.join(rendererDir, "assets", "index.js"), "export {};");
  autostartDir = path.join(t.home, ".config", "autostart");
  ui = uiServicesFrom(services, {
    env: t.env,
    logger,
  });
  shell = startShell({
    electron: fake,
    services: ui,
    assetsDir: "/opt/gatehouse/assets",
    preload: "/opt/gatehouse/dist/src/electron/preload.cjs",
    rendererDir,
    launchAtLogin: true,
    loginItem: loginItemFor({
      platform: "linux",
      setLoginItemSettings: () => {
        throw new Error("Electron's login items do nothing on Linux");
      },
      linux: { dir: autostartDir, command: ["/opt/Gatehouse/gatehouse"] },
    }),
    systemResumed: () => void resumed++,
    stop: async () => {
      detachUi();
      await services.stop();
    },
  });
  // The stored setting (on) is applied at start: the entry is written in the background.
  await waitFor(() => fs.existsSync(path.join(autostartDir, AUTOSTART_FILE_NAME)), {
    what: "the autostart entry",
  });
});

afterEach(async () => {
  await shell.quit();
  await t.cleanup();
});

function windowLoading(hash: string): FakeWindow | undefined {
  return fake.windows.find((w) => w.loaded.some((u) => u === `${RENDERER}#${hash}`) && !w.destroyed);
}

function askInBackground(argv: string[]) {
  return requestOnce(
    t.paths,
    "approval.request",
    { argv, cwd: t.home, agentId: "local", timeoutMs: 30_000 },
    { timeoutMs: 30_000 },
  );
}

describe("the tray app's shell", () => {
  it("answers IPC calls from its own windows and refuses any other sender", async () => {
    const main = shell.windows.showMain();
    const win = fake.windows[0]!;
    expect(main).toBe(win);
    expect(win.loaded).toEqual([`${RENDERER}#status`]);
    const own = (await fake.invoke(IPC_INVOKE, ["status.get", {}], {
      senderId: win.webContents.id,
      url: `${RENDERER}#status`,
    })) as { ok: boolean };
    expect(own.ok).toBe(true);

    const stranger = (await fake.invoke(IPC_INVOKE, ["status.get", {}], {
      senderId: 9999,
      url: `${RENDERER}#status`,
    })) as { ok: boolean; error?: { code: string } };
    expect(stranger).toMatchObject({ ok: false, error: { code: "forbidden" } });
    const navigatedAway = (await fake.invoke(IPC_INVOKE, ["status.get", {}], {
      senderId: win.webContents.id,
      url: "https://evil.example/",
    })) as { ok: boolean; error?: { code: string } };
    expect(navigatedAway).toMatchObject({ ok: false, error: { code: "forbidden" } });
  });

  it("sends the CSP with every response and denies every permission request", () => {
    expect(fake.responseHeaders).toEqual({
      "Content-Security-Policy":
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'",
    });
    expect(fake.permissionsDenied).toBe(true);
  });

  it("windows it makes cannot navigate or open windows", () => {
    shell.windows.showMain();
    const win = fake.windows[0]!;
    expect(win.webContents.attempt("will-navigate", "https://evil.example/")).toBe(true);
    expect(win.webContents.windowOpenHandler?.({ url: "https://example.com/" })).toEqual({ action: "deny" });
    expect(fake.opened.external).toEqual(["https://example.com/"]);
  });

  it("a new prompt raises a notification, shows the approval window on top without taking the keyboard, and lists the prompt in the tray; deciding it clears all of that", async () => {
    const reply = askInBackground(["rm", "-rf", "build"]);
    await waitFor(() => fake.notifications.length === 1, { what: "a notification" });
    const note = fake.notifications[0]!;
    expect(note.title).toBe("Gatehouse: careful — approval needed");
    expect(note.body).toBe(
      `local wants to run: rm -rf build\n⚠ deletes ${t.home}/build and everything in it: rm -rf build`,
    );
    expect(note.shown).toBe(true);

    const approval = windowLoading("approval");
    expect(approval?.visible).toBe(true);
    // Keys typed into another app never land in the dialog: only the person's own gesture focuses it.
    expect(approval?.focused).toBe(0);
    expect(approval?.alwaysOnTop).toEqual({ flag: true, level: "floating" });
    expect(approval?.options.alwaysOnTop).toBe(true);

    expect(shell.trayState().icon).toBe("attention");
    expect(fake.tray.tooltip).toContain("1 approval waiting");
    const item = fake.tray.menu.find((m) => m.id?.startsWith("pending:"));
    expect(item?.label).toBe("⚠ rm -rf build — local");

    const id = services.broker.list()[0]!.id;
    const decided = (await fake.invoke(IPC_INVOKE, ["prompts.decide", { id, decision: "allow-once" }], {
      senderId: approval!.webContents.id,
      url: `${RENDERER}#approval`,
    })) as { ok: boolean };
    expect(decided.ok).toBe(true);
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "user",
    });
    await waitFor(() => shell.trayState().icon === "connected" || shell.trayState().icon === "offline", {
      what: "the tray to leave attention",
    });
    expect(fake.tray.menu.some((m) => m.id === "no-pending")).toBe(true);
    expect(approval!.visible).toBe(false);
    // The windows heard about it: the prompt list went out to them (now empty).
    const events = approval!.webContents.sent.filter((s) => s.channel === IPC_EVENT).map((s) => s.args[0]);
    expect(events).toContainEqual({ event: "prompts.changed", payload: { prompts: [] } });
  });

  it("a prompt stays in the tray menu while its window is closed, and the menu item brings the window back", async () => {
    const reply = askInBackground(["touch", "x"]);
    await waitFor(() => windowLoading("approval"), { what: "the approval window" });
    windowLoading("approval")!.close();
    const item = fake.tray.menu.find((m) => m.id?.startsWith("pending:"));
    expect(item).toBeDefined();
    fake.tray.clickItem(item!.id!);
    const again = windowLoading("approval");
    expect(again?.visible).toBe(true);
    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny" });
  });

  it("the notification's click shows the approval window", async () => {
    const reply = askInBackground(["touch", "y"]);
    await waitFor(() => fake.notifications.length === 1, { what: "a notification" });
    windowLoading("approval")!.hide();
    fake.notifications[0]!.click();
    expect(windowLoading("approval")!.visible).toBe(true);
    expect(windowLoading("approval")!.focused).toBe(1);
    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    await reply;
  });

  it("a click on the tray icon opens the main window, or the approval window when something waits", async () => {
    fake.tray.clicks.forEach((c) => c());
    expect(windowLoading("status")?.visible).toBe(true);
    const reply = askInBackground(["touch", "z"]);
    await waitFor(() => services.broker.size === 1, { what: "a pending prompt" });
    windowLoading("approval")?.hide();
    fake.tray.clicks.forEach((c) => c());
    expect(windowLoading("approval")?.visible).toBe(true);
    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    await reply;
  });

  it("on Linux, launch at login is an XDG autostart entry: written at start from the stored setting, removed when turned off", async () => {
    const entry = path.join(autostartDir, AUTOSTART_FILE_NAME);
    expect(fs.readFileSync(entry, "utf8")).toContain('Exec="/opt/Gatehouse/gatehouse"\n');
    shell.windows.showMain();
    const win = fake.windows[0]!;
    const result = (await fake.invoke(IPC_INVOKE, ["settings.setLaunchAtLogin", { enabled: false }], {
      senderId: win.webContents.id,
      url: `${RENDERER}#settings`,
    })) as { ok: boolean };
    expect(result.ok).toBe(true);
    expect(fs.existsSync(entry)).toBe(false);
    expect(fake.loginItems).toEqual([]);
    expect(JSON.parse(fs.readFileSync(t.paths.settings, "utf8")).launchAtLogin).toBe(false);
  });

  it("an autostart entry that cannot be written is reported, and the stored setting stays as it was", async () => {
    shell.windows.showMain();
    const win = fake.windows[0]!;
    const call = (enabled: boolean) =>
      fake.invoke(IPC_INVOKE, ["settings.setLaunchAtLogin", { enabled }], {
        senderId: win.webContents.id,
        url: `${RENDERER}#settings`,
      }) as Promise<{ ok: boolean; value?: { ok: boolean; reason?: string } }>;
    expect((await call(false)).value).toEqual({ ok: true });
    // A symbolic link where the entry goes: the atomic writer refuses to write through it.
    fs.mkdirSync(autostartDir, { recursive: true });
    fs.symlinkSync(path.join(t.home, "elsewhere"), path.join(autostartDir, AUTOSTART_FILE_NAME));
    const refused = await call(true);
    expect(refused.value?.ok).toBe(false);
    expect(refused.value?.reason).toMatch(/^Launch at login could not be turned on: .*symbolic link/);
    expect(JSON.parse(fs.readFileSync(t.paths.settings, "utf8")).launchAtLogin).toBe(false);
    expect(fs.existsSync(path.join(t.home, "elsewhere"))).toBe(false);
  });

  it("on macOS, launch at login uses Electron's login items", async () => {
    const mac = new FakeElectron("darwin");
    const other = startOther(mac, { launchAtLogin: true });
    await waitFor(() => mac.loginItems.length === 1, { what: "the login item" });
    expect(mac.loginItems).toEqual([true]);
    await other.quit();
  });

  it("waking from sleep asks the device to reconnect", () => {
    for (const listener of fake.powerListeners) listener();
    expect(resumed).toBe(1);
  });

  it("a second start of the app shows the main window of the first", () => {
    fake.emitApp("second-instance");
    expect(windowLoading("status")?.visible).toBe(true);
  });

  it("the main window's screen can be chosen from the tray and from IPC", async () => {
    shell.windows.showMain();
    const win = fake.windows[0]!;
    await fake.invoke(IPC_INVOKE, ["app.openMainWindow", { screen: "allowlist" }], {
      senderId: win.webContents.id,
      url: `${RENDERER}#status`,
    });
    expect(win.webContents.sent.at(-1)).toEqual({
      channel: IPC_EVENT,
      args: [{ event: "app.navigate", payload: { screen: "allowlist" } }],
    });
  });

  it("Pause device in the tray pauses the connection and the menu then offers Resume", async () => {
    fake.tray.clickItem("pause");
    await waitFor(() => services.device?.state().state === "paused", { what: "the paused state" });
    await waitFor(() => fake.tray.menu.some((m) => m.id === "resume"), { what: "Resume in the menu" });
  });

  it("the tray's elevate toggle elevates every agent with the time left shown, ends it, and both show in Activity", async () => {
    fake.tray.clickItem("elevate:*:900000");
    await waitFor(() => fake.tray.menu.some((m) => m.id === "end-elevation"), { what: "End elevated mode" });
    const line = fake.tray.menu.find((m) => m.id === "elevated:*");
    expect(line?.label).toMatch(/^⚠ Elevated: every agent, 1[45] min left$/);
    const file = JSON.parse(fs.readFileSync(t.paths.approvals, "utf8"));
    expect(file.elevated["*"].by).toBe("tray");

    fake.tray.clickItem("end-elevation");
    await waitFor(() => fake.tray.menu.some((m) => m.id === "elevate"), { what: "the elevate toggle again" });
    expect(JSON.parse(fs.readFileSync(t.paths.approvals, "utf8")).elevated).toBeUndefined();
    const lines = await services.audit.read({ limit: 10 });
    expect(lines.filter((r) => r.event === "elevation").map((r) => [r.source, r.decision])).toEqual([
      ["elevate:tray", "deny"],
      ["elevate:tray", "allow-once"],
    ]);
  });

  it("the tray elevates one agent for an hour from its Elevate submenu", async () => {
    fake.tray.clickItem("elevate:codex:3600000");
    await waitFor(() => fake.tray.menu.some((m) => m.id === "elevated:codex"), { what: "codex elevated" });
    expect(fake.tray.menu.find((m) => m.id === "elevated:codex")?.label).toMatch(
      /^⚠ Elevated: Codex \(codex\), (1 h|59 min) left$/,
    );
    const file = JSON.parse(fs.readFileSync(t.paths.approvals, "utf8"));
    expect(Object.keys(file.elevated)).toEqual(["codex"]);
    // The icon and the tooltip say it while it lasts (issue 32), and go back when it ends.
    const iconFile = () => path.basename((fake.tray.image as { file: string }).file);
    expect(iconFile()).toMatch(/^(tray-elevated\.png|trayElevatedTemplate\.png|tray-elevated\.ico)$/);
    expect(fake.tray.tooltip).toMatch(
      /⚠ Elevated: Codex \(codex\) \((1 h|59 min) left\) runs everything without asking/,
    );
    fake.tray.clickItem("end-elevation");
    await waitFor(() => fake.tray.menu.some((m) => m.id === "elevate"), { what: "the elevate toggle again" });
    expect(iconFile()).not.toMatch(/levated/);
    expect(fake.tray.tooltip).not.toContain("Elevated");
  });

  it("Quit in the tray stops the services (the socket is removed) and quits the app", async () => {
    const socket = services.approvalServer.address!;
    expect(fs.existsSync(socket)).toBe(true);
    fake.tray.clickItem("quit");
    await waitFor(() => fake.quitCalls === 1, { what: "app.quit" });
    expect(fs.existsSync(socket)).toBe(false);
    expect(fake.tray.destroyed).toBe(true);
    expect(fake.ipcHandlers.size).toBe(0);
  });

  it("quitting from the OS is held until the services have stopped", async () => {
    let prevented = false;
    fake.emitApp("before-quit", { preventDefault: () => void (prevented = true) });
    expect(prevented).toBe(true);
    await waitFor(() => fake.quitCalls === 1, { what: "app.quit after stopping" });
    expect(services.listening()).toBe(false);
    let again = false;
    fake.emitApp("before-quit", { preventDefault: () => void (again = true) });
    expect(again).toBe(false);
  });

  it("on Windows, the app gets its AppUserModelID (notifications need it) and the tray a .ico icon", async () => {
    const windows = new FakeElectron("win32");
    const other = startOther(windows, { assetsDir: "C:\\Gatehouse\\assets" });
    expect(windows.appUserModelId).toBe("dev.gatehouse.app");
    expect((windows.tray.image as { file: string }).file).toMatch(/tray-(connected|offline|attention)\.ico$/);
    expect(windows.loginItems).toEqual([]);
    await other.quit();
  });

  it("windows load the renderer from app://gatehouse/, which serves the built files with the CSP and nothing outside them", async () => {
    shell.windows.showMain();
    expect(fake.windows[0]!.loaded).toEqual(["app://gatehouse/index.html#status"]);
    const page = await fake.request("app://gatehouse/index.html");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect((await fake.request("app://gatehouse/assets/index.js")).status).toBe(200);
    fs.writeFileSync(path.join(t.home, "app", "renderer", "secret.txt"), "s3cret");
    for (const url of [
      "app://gatehouse/../secret.txt",
      "app://gatehouse/..%2fsecret.txt",
      "app://gatehouse/%2e%2e/secret.txt",
    ]) {
      const refused = await fake.request(url);
      expect(refused.status, url).toBeGreaterThanOrEqual(400);
      expect(await refused.text()).not.toContain("s3cret");
    }
  });

  it("a shipped app has no menu bar on Linux and its windows cannot open DevTools", () => {
    shell.windows.showMain();
    shell.windows.showApproval();
    expect(fake.applicationMenu).toBeNull();
    for (const win of fake.windows) expect(win.options.webPreferences.devTools).toBe(false);
  });

  it("a developer run on macOS has the app, Edit and Window menus plus View with Reload and DevTools", async () => {
    const mac = new FakeElectron("darwin");
    const other = startOther(mac, { developer: true });
    expect(mac.applicationMenu?.map((m) => m.label)).toEqual(["Gatehouse", "Edit", "Window", "View"]);
    other.windows.showMain();
    expect(mac.windows[0]!.options.webPreferences.devTools).toBe(true);
    await other.quit();
  });

  it("the approval window follows the person to every Space or workspace, and approval notifications stay until acted on", async () => {
    const reply = askInBackground(["touch", "w"]);
    await waitFor(() => fake.notifications.length === 1, { what: "a notification" });
    expect(windowLoading("approval")?.allWorkspaces).toEqual({ visible: true, visibleOnFullScreen: true });
    expect(fake.notifications[0]!.options).toMatchObject({ timeoutType: "never", urgency: "critical" });
    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    await reply;
  });
});

describe("where no tray icon will be seen (GNOME without AppIndicator)", () => {
  it("the main window opens at start with the tray's menu in its menu bar, which lists prompts and quits", async () => {
    const gnome = new FakeElectron("linux");
    const other = startOther(gnome, { trayHost: { visible: false, reason: "no StatusNotifier host" } });
    const main = gnome.windows.find((w) => w.loaded[0]?.endsWith("#status"));
    expect(main?.visible).toBe(true);
    expect(main?.options.autoHideMenuBar).toBe(false);
    const menuBar = () => gnome.applicationMenu?.find((m) => m.label === "Gatehouse")?.submenu ?? [];
    expect(menuBar().map((i) => i.id)).toEqual(expect.arrayContaining(["open-main", "quit"]));

    const reply = askInBackground(["touch", "v"]);
    await waitFor(() => menuBar().some((i) => i.id?.startsWith("pending:")), {
      what: "the prompt in the menu bar",
    });
    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    await reply;

    main!.close();
    expect(gnome.notifications.map((n) => n.title)).toContain("Gatehouse is still running");
    menuBar().find((i) => i.id === "quit")!.click!();
    await waitFor(() => gnome.quitCalls === 1, { what: "the app to quit from the menu bar" });
    expect(gnome.notifications.filter((n) => n.title === "Gatehouse is still running")).toHaveLength(1);
    await other.quit();
  });
});

describe("updates in the tray", () => {
  it("a downloaded update offers Restart in the tray, is held while a prompt waits, and installs after the services stop", async () => {
    const electron = new FakeElectron("darwin");
    const updater = new FakeUpdater();
    const other = startOther(electron, {
      updates: { mode: { mode: "install", reason: "test" }, updater },
      stop: async () => void updater.events.push("services stopped"),
    });
    const item = () => electron.tray.menu.find((m) => m.id === "update");
    expect(item()).toBeUndefined();
    updater.emit("update-downloaded", { version: "1.2.0" });
    expect(item()).toMatchObject({ label: "Restart to update to 1.2.0", enabled: true });

    const reply = askInBackground(["touch", "u"]);
    await waitFor(() => item()?.enabled === false, { what: "the update item to wait for the prompt" });
    expect(item()?.label).toBe("Update to 1.2.0 once nothing waits (an approval is waiting)");
    await other.runTrayAction({ kind: "install-update" });
    expect(updater.installs).toEqual([]);
    expect(electron.quitCalls).toBe(0);

    services.broker.decide(services.broker.list()[0]!.id, { decision: "deny" });
    await reply;
    await waitFor(() => item()?.enabled === true, { what: "Restart to update again" });
    electron.tray.clickItem("update");
    await waitFor(() => updater.installs.length === 1, { what: "the install" });
    expect(updater.events).toEqual(["services stopped", "install"]);
    expect(electron.quitCalls).toBe(0);
  });
});
