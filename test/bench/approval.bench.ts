// approval.rtt (bench.md): round trip of a signed, rule-decided `approval.request` through the real
// server and gate, against a raw JSON-line echo over the same kind of socket measured in the same run;
// then decided requests per second with 8 clients.
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { connectToHome, type ApprovalClient } from "../../src/approval-server/client.js";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { silentLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { createServices } from "../../src/services.js";
import { percentile, round, type Benchmark, type BenchResult } from "./harness.js";

const REQUESTS = 5_000;
const WARMUP = 500;
const CLIENTS = 8;
const THROUGHPUT_REQUESTS = 40_000;
const IN_FLIGHT_PER_CLIENT = 32;

async function realPathOf(name: string): Promise<string> {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(path.delimiter)) {
    try {
      const candidate = path.join(dir, name);
      await fs.access(candidate, fs.constants.X_OK);
      return await fs.realpath(candidate);
    } catch {
      // next folder
    }
  }
  throw new Error(`${name} not found on PATH`);
}

/** The baseline: a server that parses each JSON line and writes one back, nothing else. */
async function echoRtts(dir: string, sample: string): Promise<number[]> {
  const socketPath = path.join(dir, "echo.sock");
  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      buffer += d;
      let i: number;
      while ((i = buffer.indexOf("\n")) !== -1) {
        const frame = JSON.parse(buffer.slice(0, i)) as object;
        buffer = buffer.slice(i + 1);
        socket.write(`${JSON.stringify(frame)}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
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
  const times: number[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      pending = resolve;
      socket.write(`${sample}\n`);
    });
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return times.sort((a, b) => a - b);
}

async function run(): Promise<BenchResult> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-bench-")));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
  const paths = resolvePaths(env);
  const echo = await realPathOf("echo");
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  await store.addEntry("*", { pattern: echo });
  const services = await createServices({ env, paths, logger: silentLogger });
  const started = await services.start();
  if (started.status !== "listening") throw new Error(started.message);
  const clients: ApprovalClient[] = [];
  try {
    const connect = async () => {
      const connected = await connectToHome(paths);
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
      return connected.client;
    };
    const body = { argv: ["echo", "hello"], cwd: home };
    const one = await connect();
    const times: number[] = [];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const t0 = performance.now();
      const result = await one.request("approval.request", body);
      if (result.status !== "ok" || result.body.decision !== "allow-once")
        throw new Error(`unexpected reply ${JSON.stringify(result)}`);
      if (i >= WARMUP) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);

    // Same-size line for the echo: a signed frame as the client sends it.
    const sample = JSON.stringify({
      v: 1,
      type: "approval.request",
      id: "abcdef01-1",
      nonce: "0".repeat(32),
      ts: Date.now(),
      body: JSON.stringify(body),
      mac: "0".repeat(64),
    });
    const baseline = await echoRtts(home, sample);

    const many = await Promise.all(Array.from({ length: CLIENTS }, () => connect()));
    const perClient = THROUGHPUT_REQUESTS / CLIENTS;
    const t0 = performance.now();
    await Promise.all(
      many.map(async (client) => {
        let sent = 0;
        const worker = async () => {
          while (sent < perClient) {
            sent++;
            const result = await client.request("approval.request", body);
            if (result.status !== "ok") throw new Error(`unexpected reply ${JSON.stringify(result)}`);
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT_PER_CLIENT }, worker));
      }),
    );
    const perSecond = THROUGHPUT_REQUESTS / ((performance.now() - t0) / 1000);

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
        baselineP99Ms: round(percentile(baseline, 99), 4),
        throughputPerSecond: Math.round(perSecond),
        clients: CLIENTS,
        requests: REQUESTS,
      },
    };
  } finally {
    for (const c of clients) c.close();
    await services.stop();
    await fs.rm(home, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [{ name: "approval.rtt", run }];
