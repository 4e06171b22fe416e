// Turns a CommandInput into the program and arguments to spawn (exec-policy.md "Analysing a
// command"): an argv runs as it is, without a shell; a POSIX shell string runs under the bash the
// policy analysed it for (absolute path, no startup files, never `$SHELL`); cmd.exe and PowerShell
// are taken from the system folder of the runner's environment, never from a request's.
import type { Env } from "../core/paths.js";
import type { CommandInput } from "../core/policy/types.js";
import { cmdExe, findBash, findPwsh, POSIX_FALLBACK_SHELL, windowsPowerShell } from "./shells.js";

export interface SpawnTarget {
  file: string;
  args: string[];
  /** cmd.exe needs its command line passed verbatim (Node's own `shell: true` does the same). */
  windowsVerbatimArguments?: boolean;
  /** Said to the requester, e.g. that a string ran under /bin/sh because this machine has no bash. */
  note?: string;
}

export type SpawnTargetResult = { ok: true; target: SpawnTarget } | { ok: false; message: string };

export interface ShellChoice {
  /**
   * The bash a POSIX string runs under (what the policy was told); null = this machine has none, so
   * the string (allowed by a person or security=full: the allowlist never covers it) runs under
   * /bin/sh. Undefined = look it up now.
   */
  bash?: string | null;
  /** The runner's own environment: where cmd.exe and PowerShell are (a request cannot move them). */
  baseEnv: Env;
}

/** bash reads neither profile nor rc files; `--` keeps a string that starts with `-` from being an option. */
export function bashArgs(text: string): string[] {
  return ["--noprofile", "--norc", "-c", "--", text];
}

export async function spawnTargetFor(
  command: CommandInput,
  shells: ShellChoice,
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
    return {
      ok: true,
      target: {
        file: cmdExe(shells.baseEnv),
        args: ["/d", "/s", "/c", `"${text}"`],
        windowsVerbatimArguments: true,
      },
    };
  }
  if (shell === "powershell") {
    const file = platform === "win32" ? windowsPowerShell(shells.baseEnv) : await findPwsh();
    if (!file) return { ok: false, message: "PowerShell (pwsh) is not installed in a system folder" };
    return { ok: true, target: { file, args: ["-NoProfile", "-NonInteractive", "-Command", text] } };
  }
  if (platform === "win32")
    return { ok: false, message: "a POSIX shell string cannot run on Windows; use cmd or powershell" };
  const bash = shells.bash === undefined ? await findBash() : shells.bash;
  if (bash) return { ok: true, target: { file: bash, args: bashArgs(text) } };
  return {
    ok: true,
    target: {
      file: POSIX_FALLBACK_SHELL,
      args: ["-c", "--", text],
      note: `this machine has no bash, so the command ran under ${POSIX_FALLBACK_SHELL}`,
    },
  };
}
