// Where the shells that run shell strings are (exec-policy.md "Analysing a command"): fixed absolute
// locations, never a PATH lookup and never `$SHELL`, so the program that reads a string is the one the
// policy analysed it for, whatever the runner's or the request's environment says.
import fs from "node:fs";
import path from "node:path";

/** Where bash is looked for, in order (Linux, macOS, the BSDs, NixOS). */
export const BASH_LOCATIONS: readonly string[] = [
  "/bin/bash",
  "/usr/bin/bash",
  "/usr/local/bin/bash",
  "/run/current-system/sw/bin/bash",
];

/** Where shell strings run when this machine has no bash and a person (or security=full) allowed one. */
export const POSIX_FALLBACK_SHELL = "/bin/sh";

const ROOT = 0;
const WRITABLE_BY_OTHERS = 0o022;

/** Owned by root and writable by nobody else: no process of the user (an agent included) can replace it. */
function systemOwned(file: string): boolean {
  const stat = fs.statSync(file);
  return stat.uid === ROOT && (stat.mode & WRITABLE_BY_OTHERS) === 0;
}

/**
 * Synchronous calls on purpose: a few metadata calls on system files cost microseconds each, against
 * a thread-pool round trip each through fs/promises — five of them in a row were ≈ 1 ms of every run
 * on a loaded 2-core machine (issue 12, exec.overhead).
 */
function trustedExecutable(candidate: string): string | null {
  try {
    const real = fs.realpathSync.native(candidate);
    const stat = fs.statSync(real);
    if (!stat.isFile()) return null;
    fs.accessSync(real, fs.constants.X_OK);
    if (!systemOwned(real) || !systemOwned(path.dirname(real))) return null;
    return candidate;
  } catch {
    return null; // missing, not executable, or unreadable: not this one
  }
}

/**
 * The bash shell strings run under: the first of `candidates` that is an executable file owned by
 * root and not writable by group or others (its folder too). Null when there is none (Windows, a
 * minimal container): then a shell string is never covered by the allowlist.
 */
export async function findBash(
  candidates: readonly string[] = BASH_LOCATIONS,
  platform: NodeJS.Platform = process.platform,
): Promise<string | null> {
  if (platform === "win32") return null;
  for (const candidate of candidates) {
    const found = trustedExecutable(candidate);
    if (found) return found;
  }
  return null;
}

/** `%SystemRoot%` from the runner's environment (never a request's), else the usual folder. */
function systemRoot(baseEnv: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = Object.entries(baseEnv).find(([name]) => name.toUpperCase() === "SYSTEMROOT")?.[1];
  return fromEnv && path.win32.isAbsolute(fromEnv) ? fromEnv : "C:\\Windows";
}

export function cmdExe(baseEnv: Readonly<Record<string, string | undefined>>): string {
  return path.win32.join(systemRoot(baseEnv), "System32", "cmd.exe");
}

export function windowsPowerShell(baseEnv: Readonly<Record<string, string | undefined>>): string {
  return path.win32.join(systemRoot(baseEnv), "System32", "WindowsPowerShell", "v1.0", "powershell.exe");
}

/** PowerShell 7 (`pwsh`) outside Windows. */
export const PWSH_LOCATIONS: readonly string[] = [
  "/usr/bin/pwsh",
  "/usr/local/bin/pwsh",
  "/opt/microsoft/powershell/7/pwsh",
];

export async function findPwsh(candidates: readonly string[] = PWSH_LOCATIONS): Promise<string | null> {
  for (const candidate of candidates) {
    const found = trustedExecutable(candidate);
    if (found) return found;
  }
  return null;
}
