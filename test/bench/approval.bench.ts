// approval.rtt (bench.md): round trip of a signed, rule-decided `approval.request` through the real
// headless runner (`gatehouse serve` in its own process, real gate, real audit log), against a signed
// echo in its own process over the same kind of socket, answered through the same client code
// (signing requests, verifying replies: signed-echo.ts), measured in the same run; then decided
// requests per second with 8 clients for a few seconds. approval.sustained: 8 clients for 20 s
// (GATEHOUSE_BENCH_SUSTAINED_SECONDS=60 for the full minute), then
// a clean shutdown; every decision must have its audit line and no reply may be `busy`.
// Each connection may send at most 2 000 requests/s (approval-protocol.md "Limits"), so requests on
// one connection are paced at ≤ 1 900/s for both the server and the echo.
import { spawn, type ChildProcess } from "node:child_process";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import {
  connectApprovalClient,
  connectToHome,
  readSocketCredentials,
  type ApprovalClient,
} from "../../src/approval-server/client.js";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { resolvePaths } from "../../src/core/paths.js";
import { percentile, round, type Benchmark, type BenchResult } from "./harness.js";
import { realProgram } from "../support/programs.js";

const REQUESTS = 5_000;
const WARMUP = 500;
const CLIENTS = 8;
const THROUGHPUT_SECONDS = 4;
const IN_FLIGHT_PER_CLIENT = 16;
const PER_CONNECTION_RATE = 1_900;
const MIN_SPACING_MS = 1_000 / PER_CONNECTION_RATE;

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → bin/gatehouse.js */
const GATEHOUSE_BIN = path.resolve(here, "../../../bin/gatehouse.js");

const SIGNED_ECHO = path.join(here, "signed-echo.js");
/**
 * approval.sustained runs 20 s by default so that `npm run bench` keeps each bench under a minute;
 * GATEHOUSE_BENCH_SUSTAINED_SECONDS=60 gives the full 60 s.
 */
const SUSTAINED_SECONDS = Number(process.env.GATEHOUSE_BENCH_SUSTAINED_SECONDS ?? 20);
/** The signed echo's run at the same load (its rate is steady within seconds). */
const ECHO_SUSTAINED_SECONDS = 10;

function startChild(args: string[], env: NodeJS.ProcessEnv, readyText: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes(readyText)) resolve(child);
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("exit", (code) => reject(new Error(`child exited with ${code}: ${err}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Requests to one target before the paced round trips move on to the next (see pacedRtts). */
const BLOCK = 50;

/**
 * Sequential round trips, paced so that one connection stays under its rate limit: after a warm-up of
 * each target, the targets take turns in blocks of BLOCK requests, so that what else the machine is
 * doing over the run (other processes, the host's load) falls on every target alike rather than on
 * whichever ran in a quieter second. Returns each target's times, sorted.
 */
async function pacedRtts(targets: (() => Promise<void>)[]): Promise<number[][]> {
  const times: number[][] = targets.map(() => []);
  let last = 0;
  const paced = async (roundTrip: () => Promise<void>, into: number[] | null) => {
    const wait = last + MIN_SPACING_MS - performance.now();
    if (wait > 0) await pause(wait);
    const started = performance.now();
    last = started;
    await roundTrip();
    into?.push(performance.now() - started);
  };
  for (const roundTrip of targets) for (let i = 0; i < WARMUP; i++) await paced(roundTrip, null);
  for (let done = 0; done < REQUESTS; done += BLOCK)
    for (const [index, roundTrip] of targets.entries())
      for (let i = 0; i < BLOCK; i++) await paced(roundTrip, times[index]!);
  return times.map((list) => list.sort((a, b) => a - b));
}

async function run(): Promise<BenchResult> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-bench-")));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const echo = realProgram("echo");
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  await store.addEntry("*", { pattern: echo });

  const children: ChildProcess[] = [];
  const clients: ApprovalClient[] = [];
  try {
    children.push(await startChild([GATEHOUSE_BIN, "serve"], env, "Gatehouse is serving"));
    const credentials = await readSocketCredentials(paths);
    if (credentials.status !== "ok") throw new Error(credentials.reason);
    const echoSocket = path.join(paths.executorHome, "echo.sock");
    children.push(await startChild([SIGNED_ECHO, echoSocket, credentials.token], env, "ready"));

    const connect = async () => {
      const connected = await connectToHome(paths, { timeoutMs: 60_000 });
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
      return connected.client;
    };
    const body = { argv: ["echo", "hello"], cwd: home };
    const check = (result: Awaited<ReturnType<ApprovalClient["request"]>>) => {
      if (result.status !== "ok" || (result.body as { decision?: string }).decision !== "allow-once") {
        throw new Error(`unexpected reply ${JSON.stringify(result)}`);
      }
    };

    const one = await connect();
    // The same client code against the signed echo: the same request, signed and verified alike.
    const echoed = await connectApprovalClient({ socketPath: echoSocket, token: credentials.token });
    if (echoed.status !== "connected") throw new Error(echoed.reason);
    clients.push(echoed.client);
    const [times, pings, baseline] = (await pacedRtts([
      async () => check(await one.request("approval.request", body)),
      // The same runner answering `ping`: the socket, framing and HMAC alone, without the gate.
      async () => {
        if ((await one.request("ping", {})).status !== "ok") throw new Error("ping failed");
      },
      async () => check(await echoed.client.request("approval.request", body)),
    ])) as [number[], number[], number[]];

    // Throughput: 8 connections, each keeping requests in flight within its rate limit.
    const many = await Promise.all(Array.from({ length: CLIENTS }, () => connect()));
    const t0 = performance.now();
    const { counts, firstOther } = await drive(many, THROUGHPUT_SECONDS, body);
    if (counts.other + counts.busy + counts.rateLimited > 0)
      throw new Error(`unexpected reply ${firstOther}`);
    const decided = counts.decided;
    const perSecond = decided / ((performance.now() - t0) / 1000);

    const p50 = percentile(times, 50);
    const base50 = percentile(baseline, 50);
    const ratio = p50 / base50;
    return {
      name: "approval.rtt",
      value: round(p50, 4),
      unit: "ms (p50)",
      baseline: round(base50, 4),
      ratio: round(ratio, 2),
      target: "p50 ratio ≤ 2.0 (signed echo)",
      ok: ratio <= 2.0,
      details: {
        p99Ms: round(percentile(times, 99), 4),
        pingP50Ms: round(percentile(pings, 50), 4),
        pingRatio: round(percentile(pings, 50) / base50, 2),
        baselineP99Ms: round(percentile(baseline, 99), 4),
        throughputPerSecond: Math.round(perSecond),
        throughputCeilingPerSecond: CLIENTS * PER_CONNECTION_RATE,
        clients: CLIENTS,
        requests: REQUESTS,
        loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
      },
    };
  } finally {
    for (const c of clients) c.close();
    for (const child of children) await stopChild(child);
    await fs.rm(home, { recursive: true, force: true });
  }
}

/** user + system seconds of a process (Linux /proc), or null elsewhere. */
async function cpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Keeps every generation of the audit log that rotation moves aside (a hard link to each new
 * `audit.jsonl.1`), so the lines can all be counted at the end; returns the count function.
 */
function keepAuditGenerations(folder: string): { stop(): void; countLines(): Promise<number> } {
  const seen = new Set<number>();
  const keep = () => {
    try {
      const rotated = path.join(folder, "audit.jsonl.1");
      const { ino } = fsSync.statSync(rotated);
      if (seen.has(ino)) return;
      seen.add(ino);
      fsSync.linkSync(rotated, path.join(folder, `kept-audit-${ino}.jsonl`));
    } catch {
      // not rotated yet
    }
  };
  const watcher = fsSync.watch(folder, () => keep());
  return {
    stop: () => watcher.close(),
    async countLines() {
      keep();
      let lines = 0;
      for (const name of await fs.readdir(folder)) {
        if (name !== "audit.jsonl" && !name.startsWith("kept-audit-")) continue;
        const text = await fs.readFile(path.join(folder, name), "utf8");
        for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
      }
      return lines;
    },
  };
}

/** Requests from `clients` at up to PER_CONNECTION_RATE each, IN_FLIGHT_PER_CLIENT at a time, for `seconds`. */
async function drive(
  clients: ApprovalClient[],
  seconds: number,
  body: object,
): Promise<{
  counts: { decided: number; busy: number; rateLimited: number; other: number };
  firstOther: string;
}> {
  const counts = { decided: 0, busy: 0, rateLimited: 0, other: 0 };
  let firstOther = "";
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      // Send slots at least 1/PER_CONNECTION_RATE apart, never in the past: a client that fell behind
      // does not catch up in a burst, which would break the server's per-connection limit (and after
      // ten refusals the server closes the connection).
      let lastSlot = -Infinity;
      const worker = async () => {
        while (performance.now() < deadline) {
          const due = Math.max(lastSlot + 1000 / PER_CONNECTION_RATE, performance.now());
          lastSlot = due;
          const wait = due - performance.now();
          if (wait > 0) await pause(wait);
          const result = await client.request("approval.request", body);
          if (result.status === "ok" && (result.body as { decision?: string }).decision === "allow-once")
            counts.decided++;
          else if (result.status === "error" && result.code === "busy") counts.busy++;
          else if (result.status === "error" && result.code === "rate_limited") counts.rateLimited++;
          else {
            counts.other++;
            firstOther ||= JSON.stringify(result).slice(0, 300);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT_PER_CLIENT }, worker));
    }),
  );
  return { counts, firstOther };
}

async function sustained(): Promise<BenchResult> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-bench-sustained-")));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  await store.addEntry("*", { pattern: realProgram("echo") });
  const clients: ApprovalClient[] = [];
  let serve: ChildProcess | null = null;
  let echo: ChildProcess | null = null;
  const generations = keepAuditGenerations(paths.executorHome);
  try {
    serve = await startChild([GATEHOUSE_BIN, "serve"], env, "Gatehouse is serving");
    for (let i = 0; i < CLIENTS; i++) {
      const connected = await connectToHome(paths, { timeoutMs: 60_000 });
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
    }
    const body = { argv: ["echo", "hello"], cwd: home };
    const cpuBefore = await cpuSeconds(serve.pid!);
    const t0 = performance.now();
    const { counts, firstOther } = await drive(clients, SUSTAINED_SECONDS, body);
    const seconds = (performance.now() - t0) / 1000;
    const cpuAfter = await cpuSeconds(serve.pid!);
    for (const c of clients.splice(0)) c.close();
    await stopChild(serve); // a clean shutdown: every audit line must be on disk after it
    serve = null;
    const lines = await generations.countLines();
    const perSecond = counts.decided / seconds;
    // The same clients against the signed echo (transport + crypto only): what this machine's client
    // side and sockets can carry at all, measured in the same run.
    const credentials = await readSocketCredentials(paths);
    if (credentials.status !== "ok") throw new Error(credentials.reason);
    const echoSocket = path.join(paths.executorHome, "echo.sock");
    echo = await startChild([SIGNED_ECHO, echoSocket, credentials.token], env, "ready");
    for (let i = 0; i < CLIENTS; i++) {
      const connected = await connectApprovalClient({ socketPath: echoSocket, token: credentials.token });
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
    }
    const echoSeconds = Math.min(SUSTAINED_SECONDS, ECHO_SUSTAINED_SECONDS);
    const echoCpuBefore = await cpuSeconds(echo.pid!);
    const echoStart = performance.now();
    const echoed = await drive(clients, echoSeconds, body);
    const echoPerSecond = echoed.counts.decided / ((performance.now() - echoStart) / 1000);
    const echoCpuAfter = await cpuSeconds(echo.pid!);
    const lost = counts.decided - lines;
    return {
      name: "approval.sustained",
      value: Math.round(perSecond),
      unit: "decided/s",
      baseline: Math.round(echoPerSecond),
      ratio: round(perSecond / echoPerSecond, 2),
      target: `≥ 10000 decided/s for ${SUSTAINED_SECONDS} s with 8 clients, 0 busy, 0 lost audit lines`,
      ok: perSecond >= 10_000 && counts.busy === 0 && lost === 0 && counts.other === 0,
      details: {
        seconds: round(seconds, 1),
        decided: counts.decided,
        busy: counts.busy,
        rateLimited: counts.rateLimited,
        otherReplies: counts.other,
        ...(firstOther ? { firstOther } : {}),
        auditLines: lines,
        lostAuditLines: lost,
        offeredPerSecond: CLIENTS * PER_CONNECTION_RATE,
        signedEchoPerSecond: Math.round(echoPerSecond),
        ...(cpuBefore !== null && cpuAfter !== null
          ? {
              serverCpuPercent: round(((cpuAfter - cpuBefore) / seconds) * 100, 1),
              serverCpuUsPerDecision: round(((cpuAfter - cpuBefore) * 1e6) / Math.max(1, counts.decided), 1),
            }
          : {}),
        ...(echoCpuBefore !== null && echoCpuAfter !== null
          ? {
              signedEchoCpuUsPerReply: round(
                ((echoCpuAfter - echoCpuBefore) * 1e6) / Math.max(1, echoed.counts.decided),
                1,
              ),
            }
          : {}),
        loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
      },
    };
  } finally {
    generations.stop();
    for (const c of clients) c.close();
    if (serve) await stopChild(serve);
    if (echo) await stopChild(echo);
    await fs.rm(home, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  { name: "approval.rtt", run },
  { name: "approval.sustained", run: sustained },
];
