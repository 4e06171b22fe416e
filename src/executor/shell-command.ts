// Turns a CommandInput into the program and arguments to spawn (exec-policy.md "Analysing a
// command"): an argv runs as it is, without a shell; a shell string runs with the user's POSIX
// shell, or cmd.exe / PowerShell on Windows.
import fs from "node:fs/promises";
import path from "node:path";
import type { CommandInput } from "../core/policy/types.js";

export interface SpawnTarget {
  file: string;
  args: string[];
  /** cmd.exe needs its command line passed verbatim (Node's own `shell: true` does the same). */
  windowsVerbatimArguments?: boolean;
}

export type SpawnTargetResult = { ok: true; target: SpawnTarget } | { ok: false; message: string };

/**
 * Shells whose syntax the policy's POSIX parser understands. `$SHELL` is used only when it is one of
 * these: running a string that was analysed as POSIX through fish or csh could run something else
 * than what was approved.
 */
const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"]);

export async function posixShell(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const shell = env.SHELL;
  if (shell && path.posix.isAbsolute(shell) && POSIX_SHELLS.has(path.posix.basename(shell))) {
    try {
      await fs.access(shell, fs.constants.X_OK);
      const stat = await fs.stat(shell);
      if (stat.isFile()) return shell;
    } catch {
      // not there or not executable: fall back
    }
  }
  return "/bin/sh";
}

export async function spawnTargetFor(
  command: CommandInput,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): Promise<SpawnTargetResult> {
  if (command.argv) {
    const [file, ...args] = command.argv;
    if (!file) return { ok: false, message: "the argv is empty" };
    return { ok: true, target: { file, args } };
  }
  const text = command.command;
  if (text === undefined || text.trim() === "") return { ok: false, message: "the command is empty" };
  const shell = command.shell ?? (platform === "win32" ? "cmd" : "posix");
  if (shell === "cmd") {
    if (platform !== "win32") return { ok: false, message: "cmd.exe is only available on Windows" };
    const comspec = env.ComSpec ?? env.COMSPEC ?? "cmd.exe";
    return {
      ok: true,
      target: { file: comspec, args: ["/d", "/s", "/c", `"${text}"`], windowsVerbatimArguments: true },
    };
  }
  if (shell === "powershell") {
    const file = platform === "win32" ? "powershell.exe" : "pwsh";
    return { ok: true, target: { file, args: ["-NoProfile", "-Command", text] } };
  }
  if (platform === "win32")
    return { ok: false, message: "a POSIX shell string cannot run on Windows; use cmd or powershell" };
  return { ok: true, target: { file: await posixShell(env), args: ["-c", text] } };
}
