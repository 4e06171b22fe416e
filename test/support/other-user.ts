// Another local user, for local-trust attacks: node scripts run as uid/gid 65534 (nobody) through
// `setpriv`. Only root can switch users; elsewhere the attack tests are skipped with the reason.
// A script's arguments are `process.argv[1]`, `process.argv[2]`, … (node -e has no script path).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";

export const OTHER_UID = 65534;

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) ?? null;

/** Why the attacker cannot run here, or null when it can. */
export const otherUserUnavailable: string | null =
  process.platform === "win32"
    ? "POSIX users only"
    : process.getuid?.() !== 0
      ? "needs root to run the attacker as a second uid (uid 65534)"
      : SETPRIV === null
        ? "needs setpriv (util-linux) to run the attacker as a second uid"
        : null;

function argv(script: string, args: string[]): string[] {
  return [
    `--reuid=${OTHER_UID}`,
    `--regid=${OTHER_UID}`,
    "--clear-groups",
    "--",
    process.execPath,
    "-e",
    script,
    "--",
    ...args,
  ];
}

/** Runs a node script as the other user and waits; throws with its stderr when it fails. */
export function runAsOtherUser(script: string, args: string[] = []): string {
  const result = spawnSync(SETPRIV!, argv(script, args), { encoding: "utf8", cwd: "/", env: {} });
  if (result.status !== 0) {
    throw new Error(`the other user's script failed (${result.status}): ${result.stderr}`);
  }
  return result.stdout;
}

/**
 * Runs a node script file as the other user, with exactly `env`, from `cwd`; returns its standard output.
 * Throws with its standard error when it fails.
 */
export function runFileAsOtherUser(
  file: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number },
): string {
  const result = spawnSync(
    SETPRIV!,
    [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "--", process.execPath, file, ...args],
    { encoding: "utf8", cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 << 20 },
  );
  if (result.status !== 0)
    throw new Error(`the other user's script failed (${result.status ?? result.signal}): ${result.stderr}`);
  return result.stdout;
}

/** Starts a node script as the other user (a long-lived squatter). */
export function spawnAsOtherUser(script: string, args: string[] = []): ChildProcess {
  return spawn(SETPRIV!, argv(script, args), { cwd: "/", env: {}, stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Runs a program (an agent CLI) as the other user and waits for it: its status and output. The caller
 * gives the whole environment (HOME in a folder that user owns) and a cwd that user may enter.
 */
export function runProgramAsOtherUser(
  program: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    SETPRIV!,
    [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "--", program, ...args],
    { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
