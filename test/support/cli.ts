// Runs the real `gatehouse` command (bin/gatehouse.js over the built dist/) as a child process.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const GATEHOUSE_BIN = path.join(REPO_ROOT, "bin", "gatehouse.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws if it is not). */
  json<T = unknown>(): T;
}

export function runCli(
  args: string[],
  options: {
    env: Record<string, string>;
    input?: string;
    cwd?: string;
    timeoutMs?: number;
    /** Another copy's bin/gatehouse.js (default: this checkout's). */
    bin?: string;
  },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? GATEHOUSE_BIN, ...args], {
      env: options.env,
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, json: <T>() => JSON.parse(stdout) as T });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** `gatehouse exec ARGS` as a user of the temp home runs it: its environment (plus `env`) and its folder. */
export function execInHome(
  t: { env: Record<string, string>; home: string },
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runCli(["exec", ...args], { env: { ...t.env, ...env }, cwd: t.home, timeoutMs: 120_000 });
}

/** The peak RSS (bytes) that `gatehouse exec` prints on stderr under GATEHOUSE_REPORT_RSS=1. */
export function reportedPeakRss(stderr: string): number {
  const match = /gatehouse: maxRSS=(\d+)/.exec(stderr);
  if (!match?.[1]) throw new Error(`gatehouse exec reported no peak RSS: ${stderr.slice(0, 500)}`);
  return Number(match[1]);
}
