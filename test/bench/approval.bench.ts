// approval.rtt (bench.md): round trip of a signed, rule-decided `approval.request` through the real
// headless runner (`gatehouse serve` in its own process, real gate, real audit log), against a raw
// JSON-line echo in its own process over the same kind of socket, measured in the same run; then
// decided requests per second with 8 clients.
// Each connection may send at most 2 000 requests/s (approval-protocol.md "Limits"), so requests on
// one connection are paced at ≤ 1 900/s for both the server and the echo.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { connectToHome, type ApprovalClient } from "../../src/approval-server/client.js";
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

const ECHO_SERVER = `
const net = require("net");
const server = net.createServer((socket) => {
  let buffer = "";
  socket.setEncoding("utf8");
  socket.on("data", (d) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf("\\n")) !== -1) {
      const frame = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      socket.write(JSON.stringify(frame) + "\\n");
    }
  });
});
server.listen(process.argv[1], () => process.stdout.write("ready\\n"));
`;

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

/** Sequential round trips, paced so that one connection stays under its rate limit. */
async function pacedRtts(roundTrip: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  let last = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const wait = last + MIN_SPACING_MS - performance.now();
    if (wait > 0) await pause(wait);
    const started = performance.now();
    last = started;
    await roundTrip();
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

async function echoRtts(socketPath: string, sample: string): Promise<number[]> {
  const socket = net.connect(socketPath);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.setEncoding("utf8");
  let pending: (() => void) | null = null;
  let buffer = "";
  socket.on("data", (d: string) => {
    buffer += d;
    if (buffer.endsWith("\n")) {
      buffer = "";
      pending?.();
    }
  });
  try {
    return await pacedRtts(
      () =>
        new Promise<void>((resolve) => {
          pending = resolve;
          socket.write(`${sample}\n`);
        }),
    );
  } finally {
    socket.destroy();
  }
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
    const echoSocket = path.join(home, "echo.sock");
    children.push(await startChild(["-e", ECHO_SERVER, echoSocket], env, "ready"));
    children.push(await startChild([GATEHOUSE_BIN, "serve"], env, "Gatehouse is serving"));

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
    const times = await pacedRtts(async () => check(await one.request("approval.request", body)));
    // The same runner answering `ping`: the socket, framing and HMAC alone, without the gate.
    const pings = await pacedRtts(async () => {
      if ((await one.request("ping", {})).status !== "ok") throw new Error("ping failed");
    });
    // The echo gets a line of the same size as a signed request frame.
    const sample = JSON.stringify({
      v: 2,
      type: "approval.request",
      id: "abcdef01-1",
      nonce: "0".repeat(32),
      ts: Date.now(),
      body: JSON.stringify(body),
      mac: "0".repeat(64),
    });
    const baseline = await echoRtts(echoSocket, sample);

    // Throughput: 8 connections, each keeping requests in flight within its rate limit.
    const many = await Promise.all(Array.from({ length: CLIENTS }, () => connect()));
    let decided = 0;
    const t0 = performance.now();
    const deadline = t0 + THROUGHPUT_SECONDS * 1000;
    await Promise.all(
      many.map(async (client) => {
        let sent = 0;
        const started = performance.now();
        const worker = async () => {
          while (performance.now() < deadline) {
            const due = started + (sent * 1000) / PER_CONNECTION_RATE;
            sent++;
            const wait = due - performance.now();
            if (wait > 0) await pause(wait);
            check(await client.request("approval.request", body));
            decided++;
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT_PER_CLIENT }, worker));
      }),
    );
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
      target: "p50 ratio ≤ 2.0; ≥ 10000 decided requests/s with 8 clients",
      ok: ratio <= 2.0 && perSecond >= 10_000,
      details: {
        p99Ms: round(percentile(times, 99), 4),
        pingP50Ms: round(percentile(pings, 50), 4),
        pingRatio: round(percentile(pings, 50) / base50, 2),
        baselineP99Ms: round(percentile(baseline, 99), 4),
        throughputPerSecond: Math.round(perSecond),
        throughputCeilingPerSecond: CLIENTS * PER_CONNECTION_RATE,
        clients: CLIENTS,
        requests: REQUESTS,
      },
    };
  } finally {
    for (const c of clients) c.close();
    for (const child of children) await stopChild(child);
    await fs.rm(home, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [{ name: "approval.rtt", run }];
