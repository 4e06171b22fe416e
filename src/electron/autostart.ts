// Launch at login on Linux (issue 17): Electron's setLoginItemSettings does nothing there, so the app
// writes an XDG autostart entry (freedesktop "Desktop Application Autostart Specification") to
// `$XDG_CONFIG_HOME/autostart/gatehouse.desktop` (`~/.config/autostart` by default) — atomically — and
// removes it when the person turns the setting off. macOS and Windows keep Electron's login items.
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../core/store/index.js";

export const AUTOSTART_FILE_NAME = "gatehouse.desktop";

/** `$XDG_CONFIG_HOME/autostart` (only an absolute XDG_CONFIG_HOME counts, per the spec), else `~/.config/autostart`. */
export function autostartDir(env: NodeJS.ProcessEnv, home: string): string {
  const configHome = env.XDG_CONFIG_HOME;
  const base = configHome && path.isAbsolute(configHome) ? configHome : path.join(home, ".config");
  return path.join(base, "autostart");
}

export interface AppLaunch {
  /** process.execPath: the app binary (or Electron's, in a development run). */
  execPath: string;
  /** `app.getAppPath()`, passed to Electron in a development run. */
  appPath: string;
  /** process.defaultApp: an unpackaged run (`electron <folder>`). */
  defaultApp: boolean;
  /** $APPIMAGE: the AppImage file (execPath then lies in a mount that exists only while it runs). */
  appImage?: string | undefined;
}

/** The command that starts this app again at login. */
export function autostartCommand(launch: AppLaunch): string[] {
  if (launch.appImage && path.isAbsolute(launch.appImage)) return [launch.appImage];
  return launch.defaultApp ? [launch.execPath, launch.appPath] : [launch.execPath];
}

/**
 * One argument quoted for an Exec key: the spec's quoting (double quotes; `"`, `` ` ``, `$` and `\`
 * escaped with `\`), `%` doubled (field codes), then the string-value escaping of `\` on top.
 */
export function desktopExecArgument(arg: string): string {
  // eslint-disable-next-line no-control-regex -- a line break or control character cannot be written safely
  if (/[\u0000-\u001f\u007f]/.test(arg)) {
    throw new Error(
      `the path ${JSON.stringify(arg)} contains a control character; it cannot go into an autostart entry`,
    );
  }
  const quoted = `"${arg.replace(/(["`$\\])/g, "\\$1").replace(/%/g, "%%")}"`;
  return quoted.replace(/\\/g, "\\\\");
}

export function autostartEntry(command: string[]): string {
  return [
    "[Desktop Entry]",
    "Type=Application",
    "Version=1.0",
    "Name=Gatehouse",
    "Comment=Keeps you at the gate of everything AI coding agents run on this computer",
    `Exec=${command.map(desktopExecArgument).join(" ")}`,
    "Terminal=false",
    "Categories=Development;",
    "X-GNOME-Autostart-enabled=true",
    "",
  ].join("\n");
}

/** Writes (atomically) or removes the autostart entry in `dir`. */
export async function setLinuxAutostart(enabled: boolean, dir: string, command: string[]): Promise<void> {
  const file = path.join(dir, AUTOSTART_FILE_NAME);
  if (enabled) {
    // 0644 like every other autostart entry; a new ~/.config or autostart folder is the user's only.
    await writeFileAtomic(file, autostartEntry(command), { mode: 0o644, dirMode: 0o700 });
  } else {
    await fs.rm(file, { force: true });
  }
}

/** How the shell turns launch at login on and off on this platform. */
export type LoginItem = (enabled: boolean) => Promise<void>;

export function loginItemFor(input: {
  platform: NodeJS.Platform;
  setLoginItemSettings: (settings: { openAtLogin: boolean }) => void;
  /** Linux: where the entry goes and what it runs; null where that cannot be known. */
  linux: { dir: string; command: string[] } | null;
}): LoginItem | null {
  if (input.platform === "linux") {
    const linux = input.linux;
    return linux ? (enabled) => setLinuxAutostart(enabled, linux.dir, linux.command) : null;
  }
  return async (enabled) => input.setLoginItemSettings({ openAtLogin: enabled });
}
