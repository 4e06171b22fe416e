// Whether a tray icon will be seen: the rule (StatusNotifier host on the session bus, GNOME without one,
// GATEHOUSE_TRAY overrides) and the real question asked of a private D-Bus session (dbus-daemon here).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  detectTrayHost,
  sessionBusNameHasOwner,
  STATUS_NOTIFIER_WATCHER,
} from "../../../src/electron/tray-host.js";

const answering = (owned: boolean | null) => async (name: string) => {
  expect(name).toBe(STATUS_NOTIFIER_WATCHER);
  return owned;
};

describe("whether a tray icon will be seen", () => {
  it("macOS and Windows always show one", async () => {
    for (const platform of ["darwin", "win32"] as const) {
      expect(await detectTrayHost({ platform, env: {}, nameHasOwner: answering(false) })).toMatchObject({
        visible: true,
      });
    }
  });

  it("on Linux, a StatusNotifier host on the session bus shows it; none (plain GNOME) means the window fallback", async () => {
    expect(await detectTrayHost({ platform: "linux", env: {}, nameHasOwner: answering(true) })).toMatchObject(
      {
        visible: true,
      },
    );
    const none = await detectTrayHost({
      platform: "linux",
      env: { XDG_CURRENT_DESKTOP: "GNOME" },
      nameHasOwner: answering(false),
    });
    expect(none.visible).toBe(false);
    expect(none.reason).toMatch(/AppIndicator/);
  });

  it("when the bus cannot be asked, GNOME means no tray and other desktops are assumed to have one", async () => {
    const gnome = { XDG_CURRENT_DESKTOP: "ubuntu:GNOME" };
    expect(
      (await detectTrayHost({ platform: "linux", env: gnome, nameHasOwner: answering(null) })).visible,
    ).toBe(false);
    const kde = { XDG_CURRENT_DESKTOP: "KDE" };
    expect(
      (await detectTrayHost({ platform: "linux", env: kde, nameHasOwner: answering(null) })).visible,
    ).toBe(true);
  });

  it("GATEHOUSE_TRAY=on|off decides without asking", async () => {
    const never = async () => {
      throw new Error("the bus must not be asked");
    };
    expect(
      await detectTrayHost({ platform: "linux", env: { GATEHOUSE_TRAY: "off" }, nameHasOwner: never }),
    ).toEqual({
      visible: false,
      reason: "GATEHOUSE_TRAY=off",
    });
    expect(
      (await detectTrayHost({ platform: "linux", env: { GATEHOUSE_TRAY: "on" }, nameHasOwner: never }))
        .visible,
    ).toBe(true);
  });
});

const hasDbus = spawnSync("dbus-daemon", ["--version"], { stdio: "ignore" }).status === 0;
if (!hasDbus) console.warn("Skipping the session-bus tests: dbus-daemon is not installed");

describe.skipIf(!hasDbus)("asking a real session bus", () => {
  let daemon: ChildProcess;
  let address: string;

  beforeAll(async () => {
    daemon = spawn("dbus-daemon", ["--session", "--nofork", "--print-address=1"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    address = await new Promise<string>((resolve, reject) => {
      let text = "";
      daemon.stdout!.setEncoding("utf8").on("data", (d: string) => {
        text += d;
        if (text.includes("\n")) resolve(text.trim());
      });
      daemon.on("error", reject);
    });
  });
  afterAll(() => {
    daemon.kill();
  });

  it("the bus itself owns org.freedesktop.DBus, and nobody owns the StatusNotifier watcher on a bare session", async () => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", DBUS_SESSION_BUS_ADDRESS: address };
    const ask = sessionBusNameHasOwner(env);
    expect(await ask("org.freedesktop.DBus")).toBe(true);
    expect(await ask(STATUS_NOTIFIER_WATCHER)).toBe(false);
    expect(await detectTrayHost({ platform: "linux", env, nameHasOwner: ask })).toMatchObject({
      visible: false,
    });
  });

  it("dbus-send answers where gdbus is not installed", async () => {
    const which = spawnSync("sh", ["-c", "command -v dbus-send"], { encoding: "utf8" }).stdout.trim();
    if (!which) return void console.warn("dbus-send is not installed: only gdbus was asked");
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bin-"));
    try {
      fs.symlinkSync(which, path.join(bin, "dbus-send"));
      const ask = sessionBusNameHasOwner({ PATH: bin, DBUS_SESSION_BUS_ADDRESS: address });
      expect(await ask("org.freedesktop.DBus")).toBe(true);
      expect(await ask(STATUS_NOTIFIER_WATCHER)).toBe(false);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it("with no bus to ask (and no bus tools on PATH), the answer is unknown rather than a guess", async () => {
    const ask = sessionBusNameHasOwner({ PATH: "/nonexistent", DBUS_SESSION_BUS_ADDRESS: address });
    expect(await ask(STATUS_NOTIFIER_WATCHER)).toBeNull();
  });
});
