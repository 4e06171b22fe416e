// `runner.idle` (bench.md, issue 12): the real headless runner (`gatehouse serve`, approval socket
// listening, device connected to a local test backend, production timings: heartbeat every 30 s)
// left alone for 30 s with no client on the socket. The parent hosts the backend and samples /proc
// (or `ps` elsewhere): peak RSS, CPU, and wake-ups — the voluntary context switches of the runner's
// main thread (each is one return from an idle wait of its event loop: a timer, a socket, a finished
// file operation); all threads' switches are reported beside them. Target: RSS ≤ 90 MiB, CPU ≤ 1 %,
// ≤ 1 wake-up/s.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { resolvePaths } from "../../src/core/paths.js";
import { TestBackend } from "../../src/demo-backend/server.js";
import { round, type Benchmark, type BenchResult } from "./harness.js";

const IDLE_SECONDS = 30;
/** dist/test/bench → bin/gatehouse.js */
const GATEHOUSE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/gatehouse.js");

interface Sample {
  rssBytes: number;
  cpuSeconds: number;
  /** Voluntary context switches of the main thread; null where unknown. */
  wakeUps: number | null;
  /** Voluntary + involuntary context switches summed over every thread; null where unknown. */
  switches: number | null;
}

const run = promisify(execFile);

async function mainThreadWakeUps(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/task/${pid}/status`, "utf8");
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

async function threadSwitches(pid: number): Promise<number> {
  let total = 0;
  for (const tid of await fs.readdir(`/proc/${pid}/task`)) {
    const status = await fs.readFile(`/proc/${pid}/task/${tid}/status`, "utf8").catch(() => "");
    total += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    total += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return total;
}

async function sample(pid: number): Promise<Sample> {
  if (process.platform === "linux") {
    const [status, stat, wakeUps, switches] = await Promise.all([
      fs.readFile(`/proc/${pid}/status`, "utf8"),
      fs.readFile(`/proc/${pid}/stat`, "utf8"),
      mainThreadWakeUps(pid),
      threadSwitches(pid),
    ]);
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return { rssBytes: rssKb * 1024, cpuSeconds: ticks / 100, wakeUps, switches }; // USER_HZ is 100 on Linux
  }
  const { stdout } = await run("ps", ["-o", "rss=,cputime=", "-p", String(pid)]);
  const [rss = "0", time = "0:0"] = stdout.trim().split(/\s+/);
  const parts = time.split(/[:-]/).map(Number);
  const seconds = parts.reduce((total, part) => total * 60 + part, 0);
  return { rssBytes: Number(rss) * 1024, cpuSeconds: seconds, wakeUps: null, switches: null };
}

async function runnerIdle(): Promise<BenchResult> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-bench-idle-")));
  const backend = new TestBackend({
    token: "bench-token",
    installed: { skills: [1336], plugins: [9], mcps: [7] },
  });
  await backend.start();
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    WEGENT_BACKEND_URL: backend.url,
    WEGENT_AUTH_TOKEN: backend.token,
  };
  const paths = resolvePaths(env);
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  const child = spawn(process.execPath, [GATEHOUSE_BIN, "serve"], {
    env,
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
  try {
    // Registered and the replace sync after registration acknowledged: idle means nothing left to do.
    const deadline = Date.now() + 30_000;
    while (!backend.onlineDevice()?.syncAcks.length) {
      if (child.exitCode !== null) throw new Error(`gatehouse serve exited: ${output.trim().slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`the runner did not register: ${output.trim().slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the sync's own writes settle
    const pid = child.pid!;
    const start = await sample(pid);
    const startedAt = process.hrtime.bigint();
    let peakRss = start.rssBytes;
    for (let second = 0; second < IDLE_SECONDS; second++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      peakRss = Math.max(peakRss, (await sample(pid)).rssBytes);
    }
    const end = await sample(pid);
    const wallSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const cpuPercent = ((end.cpuSeconds - start.cpuSeconds) / wallSeconds) * 100;
    const peakMiB = peakRss / (1024 * 1024);
    const perSecond = (a: number | null, b: number | null) =>
      a !== null && b !== null ? (b - a) / wallSeconds : null;
    const wakeUps = perSecond(start.wakeUps, end.wakeUps);
    const switches = perSecond(start.switches, end.switches);
    return {
      name: "runner.idle",
      value: round(peakMiB, 1),
      unit: "MiB peak RSS",
      baseline: null,
      ratio: null,
      target: "RSS ≤ 90 MiB, CPU ≤ 1 %, ≤ 1 wake-up/s",
      ok: peakMiB <= 90 && cpuPercent <= 1 && (wakeUps === null || wakeUps <= 1),
      details: {
        cpuPercent: round(cpuPercent, 3),
        ...(wakeUps !== null ? { wakeUpsPerSecond: round(wakeUps, 2) } : {}),
        ...(switches !== null ? { allThreadsSwitchesPerSecond: round(switches, 2) } : {}),
        endRssMiB: round(end.rssBytes / (1024 * 1024), 1),
        seconds: round(wallSeconds, 1),
        heartbeats: backend.onlineDevice()?.heartbeats.length ?? 0,
        registered: backend.onlineDevice() ? "yes" : "no",
        loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
      },
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    await backend.close();
    await fs.rm(home, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [{ name: "runner.idle", run: runnerIdle }];
