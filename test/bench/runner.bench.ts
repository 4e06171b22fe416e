// `runner.idle` (bench.md): a headless device connected to a local test backend for 30 s, with the
// production timings (heartbeat every 30 s). The device runs in a child process (this file, started
// with GATEHOUSE_BENCH_CHILD=runner.idle) so its RSS and CPU time are its own; the parent hosts the
// backend and samples /proc (or `ps` elsewhere). Target: RSS ≤ 90 MiB, CPU ≤ 1 %.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { CapabilitySync } from "../../src/core/capabilities/index.js";
import { createLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { WorkdirService } from "../../src/core/workdir/io/service.js";
import { createBackendCommands } from "../../src/device/backend-command.js";
import { DeviceService } from "../../src/device/device-service.js";
import { AuditLog } from "../../src/executor/audit-log.js";
import { gateAndRun } from "../../src/executor/gate.js";
import { secretStoreFor } from "../../src/secrets/secret-store.js";
import { TestBackend } from "../../src/demo-backend/server.js";
import { round, type Benchmark, type BenchResult } from "./harness.js";
import { httpPackageDownloader } from "../../src/device/package-download.js";

const CHILD_FLAG = "GATEHOUSE_BENCH_CHILD";
const IDLE_SECONDS = 30;
const here = fileURLToPath(import.meta.url);

/** The child: the device part of a headless runner, as `gatehouse serve` builds it. */
async function runChild(): Promise<void> {
  const env = process.env;
  const paths = resolvePaths(env);
  const logger = createLogger({ level: "warn" });
  const approvals = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  const audit = new AuditLog({ path: paths.audit });
  const workdir = new WorkdirService({ paths, env, logger });
  await workdir.init();
  const capabilities = new CapabilitySync({
    download: httpPackageDownloader(),
    paths,
    backendUrl: () => env.WEGENT_BACKEND_URL ?? null,
    deviceToken: async () => env.WEGENT_AUTH_TOKEN ?? null,
    logger,
  });
  await capabilities.startup();
  const device = new DeviceService({
    paths,
    env,
    secrets: secretStoreFor(paths, env, logger),
    logger,
    capabilities,
    commands: createBackendCommands({
      runGated: ({ recheckCwd, ...request }) =>
        gateAndRun(request, {
          approvals,
          audit,
          prompt: null,
          baseEnv: env,
          home: paths.home,
          now: Date.now,
          logger,
          recheckCwd,
        }),
      workdir,
      logger,
    }),
  });
  device.onState((state) =>
    process.stdout.write(`${JSON.stringify({ state: state.state, error: state.lastError })}\n`),
  );
  await device.start();
  process.once("SIGTERM", () => {
    void device.stop().then(() => process.exit(0));
  });
}

interface Sample {
  rssBytes: number;
  cpuSeconds: number;
}

const run = promisify(execFile);

async function sample(pid: number): Promise<Sample> {
  if (process.platform === "linux") {
    const [status, stat] = await Promise.all([
      fs.readFile(`/proc/${pid}/status`, "utf8"),
      fs.readFile(`/proc/${pid}/stat`, "utf8"),
    ]);
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return { rssBytes: rssKb * 1024, cpuSeconds: ticks / 100 }; // USER_HZ is 100 on Linux
  }
  const { stdout } = await run("ps", ["-o", "rss=,cputime=", "-p", String(pid)]);
  const [rss = "0", time = "0:0"] = stdout.trim().split(/\s+/);
  const parts = time.split(/[:-]/).map(Number);
  const seconds = parts.reduce((total, part) => total * 60 + part, 0);
  return { rssBytes: Number(rss) * 1024, cpuSeconds: seconds };
}

async function runnerIdle(): Promise<BenchResult> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-bench-idle-"));
  const backend = new TestBackend({
    token: "bench-token",
    installed: { skills: [1336], plugins: [9], mcps: [7] },
  });
  await backend.start();
  const child = spawn(process.execPath, [here], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      [CHILD_FLAG]: "runner.idle",
      WEGENT_BACKEND_URL: backend.url,
      WEGENT_AUTH_TOKEN: backend.token,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let output = "";
    const registered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the device did not register: ${output.trim()}`)),
        20_000,
      );
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
        if (output.includes('"state":"registered"')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`the device exited with ${code}: ${output.trim()}`)));
    });
    await registered;
    // Let the replace sync after registration land: idle means nothing left to do.
    const deadline = Date.now() + 20_000;
    while (!backend.onlineDevice()?.syncAcks.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
    const heartbeats = backend.onlineDevice()?.heartbeats.length ?? 0;
    return {
      name: "runner.idle",
      value: round(peakMiB, 1),
      unit: "MiB peak RSS",
      baseline: null,
      ratio: null,
      target: "RSS ≤ 90 MiB, CPU ≤ 1 %",
      ok: peakMiB <= 90 && cpuPercent <= 1,
      details: {
        cpuPercent: round(cpuPercent, 3),
        endRssMiB: round(end.rssBytes / (1024 * 1024), 1),
        seconds: round(wallSeconds, 1),
        heartbeats,
        registered: backend.onlineDevice() ? "yes" : "no",
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

if (process.env[CHILD_FLAG] === "runner.idle" && process.argv[1] === here) {
  runChild().catch((error: unknown) => {
    process.stderr.write(`runner.idle child failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
