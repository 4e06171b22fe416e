// device:upgrade in the tray app: the updater is asked; a newer version is reported as ready for the
// person (never installed for the backend), none as already latest, updates off as a failure that says why.
import { describe, expect, it } from "vitest";
import { lateUpgradePort, trayUpgradePort } from "../../../src/electron/device-upgrade.js";
import { FakeUpdater } from "./fake-updater.js";

class FeedUpdater extends FakeUpdater {
  constructor(private readonly latest: string | null) {
    super();
  }
  override async checkForUpdates(): Promise<unknown> {
    await super.checkForUpdates();
    return this.latest ? { updateInfo: { version: this.latest } } : null;
  }
}

describe("device:upgrade in the tray app", () => {
  it("reports a newer version as ready for the person and installs nothing", async () => {
    const updater = new FeedUpdater("0.2.0");
    const port = trayUpgradePort({ mode: { mode: "install", reason: "feed" }, updater, version: "0.1.0" });
    expect(await port.checkAndUpdate()).toEqual({
      kind: "ready",
      oldVersion: "0.1.0",
      newVersion: "0.2.0",
      message:
        "Gatehouse 0.2.0 is being downloaded; the person at this device installs it from the tray menu",
    });
    expect(updater.checks).toBe(1);
    expect(updater.installs).toEqual([]);
  });

  it("says it is already on the latest version when the feed has nothing newer", async () => {
    const port = trayUpgradePort({
      mode: { mode: "notify", reason: "feed" },
      updater: new FeedUpdater("0.1.0"),
      version: "0.1.0",
    });
    expect(await port.checkAndUpdate()).toEqual({ kind: "latest", version: "0.1.0" });
  });

  it("fails with the reason when updates are off, and before the updater is known", async () => {
    const off = trayUpgradePort({
      mode: { mode: "off", reason: "no feed in this build" },
      updater: null,
      version: "0.1.0",
    });
    expect(await off.checkAndUpdate()).toEqual({
      kind: "failed",
      oldVersion: "0.1.0",
      error: "updates are off in this build: no feed in this build",
    });
    const late = lateUpgradePort();
    expect((await late.checkAndUpdate()).kind).toBe("failed");
    late.bind(off);
    expect(await late.checkAndUpdate()).toMatchObject({
      error: "updates are off in this build: no feed in this build",
    });
  });
});
