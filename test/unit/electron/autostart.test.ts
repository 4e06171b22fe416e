// Launch at login on Linux: an XDG autostart entry written atomically into a real temp folder, quoted
// by the Desktop Entry rules, removed when turned off.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AUTOSTART_FILE_NAME,
  autostartCommand,
  autostartDir,
  autostartEntry,
  desktopExecArgument,
  loginItemFor,
  setLinuxAutostart,
} from "../../../src/electron/autostart.js";
import { waitFor } from "../../support/wait-for.js";

let base: string;
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-autostart-"));
});
afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

/** GLib's `gio launch` reads desktop entries as a desktop session does (libglib2.0-bin). */
const gio = spawnSync("gio", ["version"], { stdio: "ignore" }).status === 0;
if (!gio) console.warn("Skipping the gio launch test: gio (libglib2.0-bin) is not installed");

/** The Exec line's arguments as a desktop environment reads them: string unescaping, then unquoting. */
function execArguments(line: string): string[] {
  const value = line.replace(/\\\\/g, "\\");
  const args: string[] = [];
  const quoted = /"((?:[^"\\]|\\.)*)"/g;
  for (const match of value.matchAll(quoted)) {
    args.push((match[1] ?? "").replace(/\\(.)/g, "$1").replace(/%%/g, "%"));
  }
  return args;
}

describe("the Linux autostart entry", () => {
  it("goes to $XDG_CONFIG_HOME/autostart, else ~/.config/autostart (a relative XDG_CONFIG_HOME does not count)", () => {
    expect(autostartDir({ XDG_CONFIG_HOME: "/cfg" }, "/home/a")).toBe("/cfg/autostart");
    expect(autostartDir({}, "/home/a")).toBe("/home/a/.config/autostart");
    expect(autostartDir({ XDG_CONFIG_HOME: "cfg" }, "/home/a")).toBe("/home/a/.config/autostart");
  });

  it("starts the AppImage file, the packaged binary, or Electron with the app folder", () => {
    const launch = { execPath: "/tmp/.mount_Gate/gatehouse", appPath: "/x/app.asar", defaultApp: false };
    expect(autostartCommand({ ...launch, appImage: "/home/a/Apps/Gatehouse.AppImage" })).toEqual([
      "/home/a/Apps/Gatehouse.AppImage",
    ]);
    expect(autostartCommand({ ...launch, execPath: "/opt/Gatehouse/gatehouse" })).toEqual([
      "/opt/Gatehouse/gatehouse",
    ]);
    expect(autostartCommand({ execPath: "/e/electron", appPath: "/src/gh", defaultApp: true })).toEqual([
      "/e/electron",
      "/src/gh",
    ]);
  });

  it("quotes paths with spaces, quotes, $, backticks, backslashes and % so they read back unchanged", () => {
    const odd = '/home/a b/My "Apps"/$HOME/`x`/back\\slash/100%/Gatehouse';
    const entry = autostartEntry([odd, "/src/app dir"]);
    const line = entry.split("\n").find((l) => l.startsWith("Exec="))!;
    expect(execArguments(line.slice("Exec=".length))).toEqual([odd, "/src/app dir"]);
    expect(desktopExecArgument("/opt/Gatehouse/gatehouse")).toBe('"/opt/Gatehouse/gatehouse"');
    expect(() => desktopExecArgument("/tmp/a\nExec=evil")).toThrow(/control character/);
  });

  it("is a valid desktop entry that starts the app without a terminal", () => {
    const entry = autostartEntry(["/opt/Gatehouse/gatehouse"]);
    expect(entry.split("\n")).toEqual(
      expect.arrayContaining([
        "[Desktop Entry]",
        "Type=Application",
        "Name=Gatehouse",
        'Exec="/opt/Gatehouse/gatehouse"',
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
      ]),
    );
  });

  it("turning it on writes the file (creating the folder), turning it off removes it, twice is harmless", async () => {
    const dir = path.join(base, ".config", "autostart");
    const file = path.join(dir, AUTOSTART_FILE_NAME);
    await setLinuxAutostart(true, dir, ["/opt/Gatehouse/gatehouse"]);
    expect(fs.readFileSync(file, "utf8")).toContain('Exec="/opt/Gatehouse/gatehouse"');
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    expect(fs.statSync(path.join(base, ".config")).mode & 0o777).toBe(0o700);
    await setLinuxAutostart(true, dir, ["/opt/Gatehouse/gatehouse"]);
    expect(fs.readdirSync(dir)).toEqual([AUTOSTART_FILE_NAME]);
    await setLinuxAutostart(false, dir, []);
    expect(fs.existsSync(file)).toBe(false);
    await setLinuxAutostart(false, dir, []);
  });

  it("refuses to write through a symbolic link planted where the entry goes", async () => {
    const dir = path.join(base, "autostart");
    fs.mkdirSync(dir);
    const target = path.join(base, "bashrc");
    fs.writeFileSync(target, "original\n");
    fs.symlinkSync(target, path.join(dir, AUTOSTART_FILE_NAME));
    await expect(setLinuxAutostart(true, dir, ["/opt/Gatehouse/gatehouse"])).rejects.toThrow(/symbolic link/);
    expect(fs.readFileSync(target, "utf8")).toBe("original\n");
  });

  it("Linux uses the entry; macOS and Windows use Electron's login items; Linux without a known command cannot", async () => {
    const seen: boolean[] = [];
    const setLoginItemSettings = (s: { openAtLogin: boolean }) => void seen.push(s.openAtLogin);
    const dir = path.join(base, "a");
    await loginItemFor({ platform: "linux", setLoginItemSettings, linux: { dir, command: ["/g"] } })!(true);
    expect(fs.existsSync(path.join(dir, AUTOSTART_FILE_NAME))).toBe(true);
    await loginItemFor({ platform: "darwin", setLoginItemSettings, linux: null })!(true);
    await loginItemFor({ platform: "win32", setLoginItemSettings, linux: null })!(false);
    expect(seen).toEqual([true, false]);
    expect(loginItemFor({ platform: "linux", setLoginItemSettings, linux: null })).toBeNull();
  });

  it.skipIf(!gio)("GLib launches the entry with the odd path and the argument intact", async () => {
    // (No % here: GLib checks that the program exists before it expands %% to %.)
    const folder = path.join(base, 'Apps "new"', "$HOME `x` back\\slash");
    fs.mkdirSync(folder, { recursive: true });
    const program = path.join(folder, "Gatehouse");
    const out = path.join(base, "argv.txt");
    fs.writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${out}'\n`, { mode: 0o755 });
    const dir = path.join(base, "autostart");
    await setLinuxAutostart(true, dir, [program, "/src/app dir"]);
    execFileSync("gio", ["launch", path.join(dir, AUTOSTART_FILE_NAME)], { timeout: 10_000 });
    await waitFor(() => fs.existsSync(out), { what: "the program GLib launched" });
    expect(fs.readFileSync(out, "utf8")).toBe(`${program}\n/src/app dir\n`);
  });
});
