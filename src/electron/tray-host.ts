// Whether a tray icon will be seen (issue 17 "visible window fallback"). On Linux Electron's tray is a
// StatusNotifierItem, shown only where a host owns `org.kde.StatusNotifierWatcher` on the session bus
// (KDE, XFCE, Cinnamon, Ubuntu's GNOME with its AppIndicator extension …). Plain GNOME has none: the
// icon exists but nobody draws it, and a prompt waiting in the tray menu would be lost. There the app
// also shows its main window (with the tray's menu in its menu bar). GATEHOUSE_TRAY=on|off overrides.
import { execFile } from "node:child_process";

export const STATUS_NOTIFIER_WATCHER = "org.kde.StatusNotifierWatcher";

export type TrayHost = { visible: true; reason: string } | { visible: false; reason: string };

/** Asks the session bus whether `name` has an owner: true/false, or null when no bus tool answered. */
export type NameHasOwner = (name: string) => Promise<boolean | null>;

export async function detectTrayHost(input: {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  nameHasOwner: NameHasOwner;
}): Promise<TrayHost> {
  const override = input.env.GATEHOUSE_TRAY;
  if (override === "off") return { visible: false, reason: "GATEHOUSE_TRAY=off" };
  if (override === "on") return { visible: true, reason: "GATEHOUSE_TRAY=on" };
  if (input.platform !== "linux")
    return { visible: true, reason: `${input.platform} always shows tray icons` };
  const owned = await input.nameHasOwner(STATUS_NOTIFIER_WATCHER);
  if (owned === true) return { visible: true, reason: `${STATUS_NOTIFIER_WATCHER} is on the session bus` };
  if (owned === false) {
    return {
      visible: false,
      reason: `no tray host on the session bus (${STATUS_NOTIFIER_WATCHER}); on GNOME the AppIndicator extension adds one`,
    };
  }
  const desktop = (input.env.XDG_CURRENT_DESKTOP ?? "").split(":").map((d) => d.toLowerCase());
  if (desktop.includes("gnome")) {
    return { visible: false, reason: "GNOME, and the session bus could not be asked about a tray host" };
  }
  return { visible: true, reason: "the session bus could not be asked; assuming a tray" };
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 3_000, encoding: "utf8" }, (error, stdout) =>
      resolve(error ? null : stdout),
    );
  });
}

/** NameHasOwner through `gdbus` (GLib) or else `dbus-send`, whichever is installed. */
export function sessionBusNameHasOwner(env: NodeJS.ProcessEnv = process.env): NameHasOwner {
  return async (name) => {
    const gdbus = await run(
      "gdbus",
      [
        "call",
        "--session",
        "--dest",
        "org.freedesktop.DBus",
        "--object-path",
        "/org/freedesktop/DBus",
        "--method",
        "org.freedesktop.DBus.NameHasOwner",
        name,
      ],
      env,
    );
    if (gdbus !== null) {
      if (/\(true,\)/.test(gdbus)) return true;
      if (/\(false,\)/.test(gdbus)) return false;
    }
    const dbusSend = await run(
      "dbus-send",
      [
        "--session",
        "--print-reply=literal",
        "--dest=org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.NameHasOwner",
        `string:${name}`,
      ],
      env,
    );
    if (dbusSend !== null) {
      if (/boolean true/.test(dbusSend)) return true;
      if (/boolean false/.test(dbusSend)) return false;
    }
    return null;
  };
}
