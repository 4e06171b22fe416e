// Auto-update policy and controller: off until the build names an HTTPS feed; installs only where the
// update's signature is checked (macOS, Windows with a publisher), else only says a version exists;
// never restarts into an update while a prompt waits or a task runs.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import { createUpdateController } from "../../../src/electron/update-controller.js";
import {
  installBlocker,
  parseUpdateFeed,
  updateMode,
  type BusyState,
  type UpdateFeed,
} from "../../../src/electron/update-policy.js";
import { FakeUpdater } from "./fake-updater.js";

const generic: UpdateFeed = { provider: "generic", url: "https://updates.example.com/gatehouse" };
const base = { packaged: true, feed: generic, updaterInstalled: true } as const;

describe("when the app may update itself", () => {
  it("is off in a development run, without a feed, without electron-updater, or over plain HTTP", () => {
    expect(updateMode({ ...base, platform: "darwin", packaged: false })).toMatchObject({ mode: "off" });
    expect(
      updateMode({ ...base, platform: "darwin", feed: null, noFeedReason: "no update feed is configured" }),
    ).toEqual({ mode: "off", reason: "no update feed is configured" });
    expect(updateMode({ ...base, platform: "darwin", updaterInstalled: false })).toEqual({
      mode: "off",
      reason: "electron-updater is not part of this build",
    });
    expect(
      updateMode({
        ...base,
        platform: "darwin",
        feed: { provider: "generic", url: "http://updates.example.com/" },
      }),
    ).toMatchObject({ mode: "off", reason: expect.stringMatching(/HTTPS/) });
  });

  it("installs on macOS (Squirrel.Mac checks the signature) and on Windows only when the build names its publisher", () => {
    expect(updateMode({ ...base, platform: "darwin" }).mode).toBe("install");
    expect(
      updateMode({ ...base, platform: "win32", feed: { ...generic, publisherName: ["Gatehouse Ltd"] } }).mode,
    ).toBe("install");
    expect(updateMode({ ...base, platform: "win32" })).toMatchObject({
      mode: "notify",
      reason: expect.stringMatching(/publisher/),
    });
    expect(updateMode({ ...base, platform: "win32", feed: { ...generic, publisherName: " " } }).mode).toBe(
      "notify",
    );
  });

  it("Linux packages are never installed by the app: it only says that a new version exists", () => {
    expect(updateMode({ ...base, platform: "linux" })).toMatchObject({ mode: "notify" });
  });

  it("reads the feed electron-builder writes into the app (app-update.yml), and says why when there is none", () => {
    expect(
      parseUpdateFeed("provider: generic\nurl: https://u.example/\nupdaterCacheDirName: gatehouse-updater\n"),
    ).toEqual({
      feed: { provider: "generic", url: "https://u.example/", updaterCacheDirName: "gatehouse-updater" },
    });
    expect(parseUpdateFeed(null)).toMatchObject({
      feed: null,
      reason: expect.stringMatching(/publish: null/),
    });
    expect(parseUpdateFeed("url: https://u.example/\n")).toMatchObject({ feed: null });
    expect(parseUpdateFeed("provider: [")).toMatchObject({
      feed: null,
      reason: expect.stringMatching(/not YAML/),
    });
  });

  it("a waiting prompt or a running task blocks installing, and says which", () => {
    expect(installBlocker({ pendingPrompts: 0, runningTasks: 0 })).toBeNull();
    expect(installBlocker({ pendingPrompts: 1, runningTasks: 0 })).toBe("an approval is waiting");
    expect(installBlocker({ pendingPrompts: 2, runningTasks: 1 })).toBe(
      "2 approvals are waiting and a task is running",
    );
  });
});

function controllerWith(mode: Parameters<typeof createUpdateController>[0]["mode"], busy: BusyState) {
  const updater = new FakeUpdater();
  let changes = 0;
  const controller = createUpdateController({
    mode,
    updater,
    busy: () => busy,
    logger: createLogger({ sink: () => undefined }),
    onChange: () => void changes++,
  });
  return { updater, controller, changes: () => changes };
}

describe("the update controller", () => {
  it("configures electron-updater: download in install mode only, no install on quit, no downgrade, no pre-release", () => {
    const install = controllerWith({ mode: "install", reason: "" }, { pendingPrompts: 0, runningTasks: 0 });
    expect(install.updater).toMatchObject({
      autoDownload: true,
      autoInstallOnAppQuit: false,
      allowDowngrade: false,
      allowPrerelease: false,
    });
    const notify = controllerWith({ mode: "notify", reason: "" }, { pendingPrompts: 0, runningTasks: 0 });
    expect(notify.updater.autoDownload).toBe(false);
  });

  it("when off, it never asks the feed", async () => {
    const { updater, controller } = controllerWith(
      { mode: "off", reason: "no feed" },
      { pendingPrompts: 0, runningTasks: 0 },
    );
    await controller.check();
    controller.start();
    controller.stop();
    expect(updater.checks).toBe(0);
    expect(controller.state()).toEqual({ kind: "off", reason: "no feed" });
  });

  it("a downloaded update is installed when asked and nothing waits", async () => {
    const { updater, controller, changes } = controllerWith(
      { mode: "install", reason: "" },
      { pendingPrompts: 0, runningTasks: 0 },
    );
    await controller.check();
    expect(updater.checks).toBe(1);
    expect(controller.install()).toEqual({ ok: false, reason: "no update is ready" });
    updater.emit("update-downloaded", { version: "1.2.0" });
    expect(changes()).toBe(1);
    expect(controller.state()).toEqual({ kind: "downloaded", version: "1.2.0" });
    expect(controller.install()).toEqual({ ok: true });
    expect(updater.installs).toEqual([{ isSilent: false, isForceRunAfter: true }]);
  });

  it("never installs while a prompt waits — neither when asked nor on quit", () => {
    const busy = { pendingPrompts: 1, runningTasks: 0 };
    const { updater, controller } = controllerWith({ mode: "install", reason: "" }, busy);
    updater.emit("update-downloaded", { version: "1.2.0" });
    expect(controller.install()).toEqual({ ok: false, reason: "not now: an approval is waiting" });
    controller.preparingToQuit();
    expect(updater.autoInstallOnAppQuit).toBe(false);
    expect(updater.installs).toEqual([]);
    busy.pendingPrompts = 0;
    controller.preparingToQuit();
    expect(updater.autoInstallOnAppQuit).toBe(true);
  });

  it("in notify mode a new version is announced and nothing is downloaded or installed", () => {
    const { updater, controller } = controllerWith(
      { mode: "notify", reason: "" },
      { pendingPrompts: 0, runningTasks: 0 },
    );
    updater.emit("update-available", { version: "2.0.0" });
    expect(controller.state()).toEqual({ kind: "available", version: "2.0.0" });
    updater.emit("update-downloaded", { version: "2.0.0" });
    expect(controller.state().kind).toBe("available");
    expect(controller.install()).toMatchObject({ ok: false });
    expect(updater.installs).toEqual([]);
  });

  it("a failed check is logged, not thrown", async () => {
    const lines: string[] = [];
    const updater = new FakeUpdater();
    updater.checkForUpdates = async () => {
      throw new Error("feed unreachable");
    };
    const controller = createUpdateController({
      mode: { mode: "install", reason: "" },
      updater,
      busy: () => ({ pendingPrompts: 0, runningTasks: 0 }),
      logger: createLogger({ sink: (line) => void lines.push(line) }),
      onChange: () => undefined,
    });
    await controller.check();
    expect(lines.join("\n")).toContain("feed unreachable");
  });
});
