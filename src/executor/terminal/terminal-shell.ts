// Which program a terminal runs: the user's shell, as Wegent's executor starts it (`$SHELL`, else the
// login shell; `%COMSPEC%` on Windows), as an absolute real path. This is what the gate decides on
// (an allowlist entry names it) and what the prompt shows; the shell is started without arguments.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Env } from "../../core/paths.js";

export interface TerminalShell {
  /** The path as configured (`$SHELL`, the login shell, `%COMSPEC%`). */
  given: string;
  /** Its real path: what allowlist entries match. */
  real: string;
}

function loginShell(): string | null {
  try {
    const shell = os.userInfo().shell;
    return shell && shell.trim() !== "" ? shell : null;
  } catch {
    return null;
  }
}

/** The shell a terminal starts, or why there is none. */
export async function terminalShell(
  env: Env,
  platform: NodeJS.Platform = process.platform,
): Promise<{ ok: true; shell: TerminalShell } | { ok: false; error: string }> {
  const candidates =
    platform === "win32"
      ? [env.COMSPEC, env.ComSpec, "C:\\Windows\\System32\\cmd.exe"]
      : [env.SHELL, loginShell(), "/bin/sh"];
  const api = platform === "win32" ? path.win32 : path.posix;
  for (const candidate of candidates) {
    const given = candidate?.trim();
    // A relative $SHELL would be looked up on PATH, which a request can change: absolute only.
    if (!given || !api.isAbsolute(given)) continue;
    try {
      const real = await fs.realpath(given);
      if ((await fs.stat(real)).isFile()) return { ok: true, shell: { given, real } };
    } catch {
      // not there: the next candidate
    }
  }
  return { ok: false, error: "No shell found on this device ($SHELL is not set to an existing program)" };
}
