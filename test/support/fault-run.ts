// Runs the real `gatehouse` command (bin/gatehouse.js over the built dist/) with the step counter of
// fs-steps.ts preloaded (dist/test/support/kill-at-step.js), for the fault-injection suite (issue 30
// item 2): every file-system change under the home is a numbered step, and the process is SIGKILLed
// just before step N, or finds the disk full from step N on. Optionally as uid 65534 (other-user.ts),
// for a read-only E that root would ignore.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GATEHOUSE_BIN, REPO_ROOT } from "./cli.js";
import type { FsStep } from "./fs-steps.js";
import { OTHER_UID } from "./other-user.js";

export interface FaultRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The changes taken, in order (the one a kill stopped before is not among them). */
  steps: FsStep[];
}

export interface FaultOptions {
  env: Record<string, string>;
  /** Steps are the changes under this folder (the test's home). */
  root: string;
  /** Kill before (or make the disk full from) this step; null: record every step of a whole run. */
  stopAt: number | null;
  fault?: "kill" | "enospc";
  cwd?: string;
  /** Run as uid 65534 (the caller makes sure that user owns the home). */
  asOtherUser?: boolean;
  /** Another program than bin/gatehouse.js (a fixture script over dist/). */
  script?: string;
  timeoutMs?: number;
}

/** The compiled preload: under vitest this file is test/support/…, compiled it is dist/test/support/…. */
function preload(): string {
  const root = path.basename(path.dirname(REPO_ROOT)) === "dist" ? path.dirname(REPO_ROOT) : REPO_ROOT;
  return pathToFileURL(path.join(root, "dist/test/support/kill-at-step.js")).href;
}

export async function runWithFault(args: string[], options: FaultOptions): Promise<FaultRun> {
  const logFile = path.join(path.dirname(options.root), `${path.basename(options.root)}.steps.jsonl`);
  await fs.rm(logFile, { force: true });
  const node = [process.execPath, "--import", preload(), options.script ?? GATEHOUSE_BIN, ...args];
  const env = {
    ...options.env,
    GATEHOUSE_STEP_ROOT: options.root,
    GATEHOUSE_STEP_LOG: logFile,
    ...(options.stopAt !== null && { GATEHOUSE_KILL_AT_STEP: String(options.stopAt) }),
    ...(options.fault === "enospc" && { GATEHOUSE_STEP_FAULT: "enospc" }),
  };
  const [file, argv] = options.asOtherUser
    ? ["setpriv", [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "--", ...node]]
    : [node[0]!, node.slice(1)];
  if (options.asOtherUser) {
    // the step log is written by the child: a file the other user may append to
    await fs.writeFile(logFile, "");
    await fs.chown(logFile, OTHER_UID, OTHER_UID);
  }
  const child = spawn(file, argv, {
    env,
    cwd: options.cwd ?? options.root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(timer));
  const steps = (await fs.readFile(logFile, "utf8").catch(() => ""))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FsStep & { stopped?: boolean })
    .filter((s) => !s.stopped);
  await fs.rm(logFile, { force: true });
  return { code, signal, stdout, stderr, steps };
}

/** A step as a person reads it in a failure message. */
export function describeFsStep(step: FsStep | undefined): string {
  if (!step) return "(no step)";
  return `${step.op} ${step.path}${step.to !== undefined ? ` → ${step.to}` : ""}`;
}

/** The names in `dir` a write cut short leaves (`.<file>.gatehouse-<random>` temps, `<file>.lock*`). */
export async function leftovers(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => /\.gatehouse-[0-9a-f]+$/.test(n) || /\.lock($|\.)/.test(n)).sort();
}
