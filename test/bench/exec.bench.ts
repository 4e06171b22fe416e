// exec.overhead and exec.flood (bench.md, issue 12: the flood against a bare Node pipe reader and cat). Each measures its baseline in the same run, interleaved with
// the measured runs so that load on a shared machine hits both alike.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { silentLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { AuditLog } from "../../src/executor/audit-log.js";
import { gateAndRun, type GateDeps, type GateRunRequest } from "../../src/executor/gate.js";
import { UsageRecorder } from "../../src/executor/usage-recorder.js";
import { percentile, round, type Benchmark, type BenchResult } from "./harness.js";
import { realProgram } from "../support/programs.js";

const OVERHEAD_RUNS = 400;
const OVERHEAD_WARMUP = 40;
const FLOOD_BYTES = 1024 * 1024 * 1024;
const FLOOD_ROUNDS = 3;
const MiB = 1024 * 1024;

/** The checkout's root (this file runs from dist/test/bench). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) || path.basename(dir) === "dist")
    dir = path.dirname(dir);
  return dir;
}

interface Home {
  home: string;
  env: Record<string, string>;
  deps: GateDeps;
  /** Waits for the background work (usage notes, audit lines) of the runs so far. */
  settle(): Promise<void>;
  cleanup(): Promise<void>;
}

async function makeHome(
  entries: string[],
  settings: { security: "allowlist" | "full"; ask: "off" },
): Promise<Home> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-exec-bench-")));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const approvals = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await approvals.ensure();
  await approvals.setAgentSettings("defaults", settings);
  for (const name of entries) await approvals.addEntry("*", { pattern: realProgram(name) });
  const background: Promise<void>[] = [];
  const usage = new UsageRecorder(approvals, silentLogger);
  return {
    home,
    env,
    deps: {
      approvals,
      audit: new AuditLog({ path: paths.audit }),
      prompt: null,
      baseEnv: env,
      home,
      now: Date.now,
      logger: silentLogger,
      // As a service would: usage notes are written after the result, awaited before shutdown.
      background: (work) => background.push(work),
      usage,
    },
    settle: async () => {
      await Promise.all(background.splice(0));
    },
    cleanup: async () => {
      await Promise.all(background);
      await fs.rm(home, { recursive: true, force: true });
    },
  };
}

function spawnAndWait(
  file: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  detached = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, detached, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const request = (cwd: string): GateRunRequest => ({
  command: { argv: ["true"] },
  agentId: "bench",
  sessionKey: "bench",
  source: "bench",
  cwd,
});

/** p50 of `true` through the gate and of a bare awaited spawn, interleaved, after a warm-up. */
async function overheadPhase(h: Home): Promise<{ gate: number[]; raw: number[]; rawDetached: number[] }> {
  const gate: number[] = [];
  const raw: number[] = [];
  const rawDetached: number[] = [];
  for (let i = 0; i < OVERHEAD_WARMUP + OVERHEAD_RUNS; i++) {
    const a = await timed(() => spawnAndWait("true", [], h.env, h.home));
    // What the process group alone costs (the executor spawns detached to kill whole trees).
    const d = await timed(() => spawnAndWait("true", [], h.env, h.home, true));
    const b = await timed(async () => {
      const result = await gateAndRun(request(h.home), h.deps);
      if (result.exitCode !== 0)
        throw new Error(`gate did not run true: ${result.decision} ${result.reason}`);
    });
    if (i < OVERHEAD_WARMUP) continue;
    raw.push(a);
    rawDetached.push(d);
    gate.push(b);
  }
  await h.settle();
  return { gate, raw, rawDetached };
}

async function overhead(): Promise<BenchResult> {
  // The common case: allowlist mode, `true` covered by a rule, so each run also records its use (a
  // locked, fsynced rewrite of the approvals file, in the background) and two audit lines. Then
  // security=full with no allowlist: the executor's own cost (policy, spawn, capture, audit).
  const covered = await makeHome(["true"], { security: "allowlist", ask: "off" });
  const full = await makeHome([], { security: "full", ask: "off" });
  try {
    const rule = await overheadPhase(covered);
    const bare = await overheadPhase(full);
    const p50 = median(rule.gate);
    const baseline = median(rule.raw);
    const ratio = p50 / baseline;
    return {
      name: "exec.overhead",
      value: round(p50),
      unit: "ms (p50)",
      baseline: round(baseline),
      ratio: round(ratio),
      target: "p50 ratio ≤ 1.3",
      ok: ratio <= 1.3,
      details: {
        runs: OVERHEAD_RUNS,
        p99: round(
          percentile(
            [...rule.gate].sort((x, y) => x - y),
            99,
          ),
        ),
        detachedSpawnP50: round(median(rule.rawDetached)),
        ratioVsDetachedSpawn: round(p50 / median(rule.rawDetached)),
        fullModeP50: round(median(bare.gate)),
        fullModeBaselineP50: round(median(bare.raw)),
        fullModeRatio: round(median(bare.gate) / median(bare.raw)),
      },
    };
  } finally {
    await covered.cleanup();
    await full.cleanup();
  }
}

/** Runs `gatehouse exec --json` in a fresh process and returns its peak RSS in bytes. */
async function cliPeakRss(home: Home, args: string[]): Promise<number> {
  const bin = path.join(repoRoot(), "bin", "gatehouse.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "exec", "--json", ...args], {
      cwd: home.home,
      env: { ...home.env, GATEHOUSE_REPORT_RSS: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", () => {
      const match = /gatehouse: maxRSS=(\d+)/.exec(stderr);
      if (match?.[1]) resolve(Number(match[1]));
      else reject(new Error(`gatehouse exec reported no peak RSS: ${stderr.slice(0, 500)}`));
    });
  });
}

async function flood(): Promise<BenchResult> {
  const h = await makeHome([], { security: "full", ask: "off" });
  const size = String(FLOOD_BYTES);
  try {
    const gate: number[] = [];
    const cat: number[] = [];
    const nodeReader: number[] = [];
    for (let i = 0; i < FLOOD_ROUNDS; i++) {
      // The floor for any Node implementation: spawn and drain the same pipe, nothing else.
      nodeReader.push(await timed(() => spawnAndWait("head", ["-c", size, "/dev/zero"], h.env, h.home)));
      cat.push(
        await timed(() =>
          spawnAndWait("sh", ["-c", `head -c ${size} /dev/zero | cat > /dev/null`], h.env, h.home),
        ),
      );
      gate.push(
        await timed(async () => {
          const result = await gateAndRun(
            {
              command: { argv: ["head", "-c", size, "/dev/zero"] },
              agentId: "bench",
              sessionKey: "bench",
              source: "bench",
              cwd: h.home,
              timeoutMs: 120_000,
            },
            h.deps,
          );
          if (result.exitCode !== 0 || result.stdoutBytes !== FLOOD_BYTES || !result.truncated) {
            throw new Error(`flood run went wrong: exit ${result.exitCode}, ${result.stdoutBytes} bytes`);
          }
        }),
      );
    }
    const rssIdle = await cliPeakRss(h, ["--", "true"]);
    const rssFlood = await cliPeakRss(h, ["--timeout", "120", "--", "head", "-c", size, "/dev/zero"]);
    const growthMiB = (rssFlood - rssIdle) / MiB;
    const value = median(gate);
    const baseline = median(nodeReader);
    const ratio = value / baseline;
    const catRatio = value / median(cat);
    return {
      name: "exec.flood",
      value: round(value),
      unit: "ms (median of 3)",
      baseline: round(baseline),
      ratio: round(ratio),
      target: "≤ 1.2× a bare Node pipe reader (≤ 1.5× cat); peak RSS growth ≤ 32 MiB",
      ok: ratio <= 1.2 && catRatio <= 1.5 && growthMiB <= 32,
      details: {
        bytes: FLOOD_BYTES,
        baselineIs: "bare Node pipe reader",
        catMs: round(median(cat)),
        ratioVsCat: round(catRatio),
        // Each round's own ratio: the load on a shared machine moves between rounds, less within one.
        ratioVsCatByRound: gate.map((ms, i) => round(ms / (cat[i] ?? ms))).join(" "),
        peakRssGrowthMiB: round(growthMiB, 1),
        cliPeakRssIdleMiB: round(rssIdle / MiB, 1),
        cliPeakRssFloodMiB: round(rssFlood / MiB, 1),
        loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
      },
    };
  } finally {
    await h.cleanup();
  }
}

export const benchmarks: Benchmark[] = [
  { name: "exec.overhead", run: overhead },
  { name: "exec.flood", run: flood },
];
