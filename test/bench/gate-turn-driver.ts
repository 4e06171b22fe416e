// The measuring side of gate.turn (gate-turn.bench.ts starts it as uid 65534, so every `echo` the turns
// run, runs as that user, in a temp folder it owns). A real Claude Code turn of N `echo` Bash calls
// against the scripted Messages API, in three configurations interleaved round by round:
//   none    — no hook, Bash pre-allowed in the settings (the baseline);
//   command — the command hook Gatehouse writes (`gatehouse hook claude`), a Gatehouse running;
//   http    — the runner's HTTP hook Gatehouse writes, served by that same running Gatehouse;
//   floor   — the same HTTP hook settings against a 127.0.0.1 server that answers allow at once.
// The gap between two model requests holds exactly one tool call (hook + echo + Claude's own work); the
// figure is the median gap of a configuration minus the baseline's. Prints one BenchResult line.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { createLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { claudeTaskSettings } from "../../src/core/runtime/index.js";
import { createServices } from "../../src/services.js";
import { claudeHookOutput } from "../../src/shared/claude-hook-output.js";
import { realProgram } from "../support/programs.js";
import { startScriptedAnthropic } from "../support/scripted-anthropic.js";
import { percentile, round, type BenchResult } from "./harness.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → bin/gatehouse.js and node_modules/.bin/claude */
const REPO = path.resolve(here, "../../..");
const GATEHOUSE_BIN = path.join(REPO, "bin", "gatehouse.js");
const CLAUDE = process.env.GH_CLAUDE_BIN ?? path.join(REPO, "node_modules", ".bin", "claude");
const CALLS = Number(process.env.GH_GATE_TURN_CALLS ?? 10);
const ROUNDS = Number(process.env.GH_GATE_TURN_ROUNDS ?? 8);
const PROMPT_TIMEOUT_MS = 120_000;

type Config = "none" | "command" | "http" | "floor";
const CONFIGS: Config[] = ["none", "command", "http", "floor"];

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

async function main(): Promise<void> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-gate-turn-")));
  const home = path.join(root, "home");
  const work = path.join(root, "work");
  await fs.mkdir(home, { mode: 0o700 });
  await fs.mkdir(work);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "allowlist", ask: "off", askFallback: "deny" });
  await store.addEntry("*", { pattern: realProgram("echo") });

  const services = createServices({ env, paths, logger: createLogger({ level: "error", sink: () => {} }) });
  const started = await services.start();
  if (started.status !== "listening") throw new Error(`Gatehouse did not start: ${started.message}`);
  await services.httpHook.start();

  let times: number[] = [];
  const api = await startScriptedAnthropic((request) => {
    times.push(performance.now());
    const n = request.messages.filter(
      (m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    ).length;
    return n < CALLS
      ? { toolUse: { name: "Bash", input: { command: `echo call-${n}` } } }
      : { text: "Done." };
  });

  const launch = {
    gatehouseCommand: [process.execPath, GATEHOUSE_BIN],
    workdir: work,
    promptTimeoutMs: PROMPT_TIMEOUT_MS,
  };
  const settingsFile = (config: Config) => path.join(root, `settings-${config}.json`);
  await fs.writeFile(settingsFile("none"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
  await fs.writeFile(settingsFile("command"), JSON.stringify(claudeTaskSettings(launch)));
  const grant = services.httpHook.grant();
  const agentEnv = {
    ...env,
    SHELL: "/bin/bash",
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "scripted-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  grant.bind({
    verified: { taskId: "bench", runtime: "claude-code", agent: "claude-code" },
    workdir: work,
    promptTimeoutMs: PROMPT_TIMEOUT_MS,
    env: agentEnv,
  });
  await fs.writeFile(
    settingsFile("http"),
    JSON.stringify(claudeTaskSettings(launch, { url: grant.url, token: grant.token })),
    { mode: 0o600 },
  );

  // The floor: what an HTTP hook costs Claude Code when the answer costs nothing.
  const floor = http.createServer((req, res) => {
    req.resume().on("end", () => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(claudeHookOutput({ allow: true, reason: "floor" }));
    });
  });
  await new Promise<void>((resolve) => floor.listen(0, "127.0.0.1", resolve));
  const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/hook/floor`;
  await fs.writeFile(
    settingsFile("floor"),
    JSON.stringify(claudeTaskSettings(launch, { url: floorUrl, token: "f".repeat(64) })),
  );

  const gaps: Record<Config, number[]> = { none: [], command: [], http: [], floor: [] };
  const failures: Record<Config, number> = { none: 0, command: 0, http: 0, floor: 0 };
  const runTurn = (config: Config) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        CLAUDE,
        ["-p", "Run the commands.", "--setting-sources", "user", "--settings", settingsFile(config)],
        { cwd: work, env: agentEnv, stdio: ["ignore", "ignore", "pipe"] },
      );
      let err = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`claude (${config}) exited ${code}: ${err}`)),
      );
    });

  for (let round = 0; round < ROUNDS; round++) {
    // Rotated each round: no configuration always runs first (or after the same one).
    const order = CONFIGS.map((_, i) => CONFIGS[(i + round) % CONFIGS.length]!);
    for (const config of order) {
      times = [];
      const before = api.requests.length;
      await runTurn(config);
      // Only runs where every call ran count: a refused call is not what is measured.
      // Every tool result of the conversation, as the last request carries them.
      const last = api.requests
        .slice(before)
        .filter((r) => Array.isArray(r.tools) && r.tools.length > 0)
        .at(-1);
      const results = (last?.messages ?? []).flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
      );
      if (results.length !== CALLS || results.some((r) => r.is_error === true)) {
        failures[config]++;
        const errors = results.filter((r) => r.is_error === true).map((r) => JSON.stringify(r.content));
        process.stderr.write(
          `gate.turn: a ${config} turn had ${results.length} results, errors ${errors.join(" | ")}\n`,
        );
        continue;
      }
      for (let i = 1; i < times.length; i++) gaps[config].push(times[i]! - times[i - 1]!);
    }
  }
  await api.close();
  floor.closeAllConnections();
  floor.close();
  await services.stop();
  await fs.rm(root, { recursive: true, force: true });

  const base = median(gaps.none);
  const added = (config: Config) => round(median(gaps[config]) - base, 1);
  const result: BenchResult = {
    name: "gate.turn",
    value: added("http"),
    unit: "ms added per tool call (runner's HTTP hook, median)",
    baseline: round(base, 1),
    ratio: null,
    target: "Claude Code <= +25 ms per call over no hook (median, >= 8 rounds)",
    ok: gaps.http.length > 0 && added("http") <= 25,
    details: {
      calls: CALLS,
      rounds: ROUNDS,
      gapNoneMs: round(base, 1),
      gapCommandMs: round(median(gaps.command), 1),
      gapHttpMs: round(median(gaps.http), 1),
      addedCommandMs: added("command"),
      addedHttpMs: added("http"),
      gapFloorMs: round(median(gaps.floor), 1),
      addedFloorMs: added("floor"),
      gapsCounted: CONFIGS.map((c) => gaps[c].length).join("/"),
      failedTurns: CONFIGS.map((c) => failures[c]).join("/"),
      load1: round(os.loadavg()[0]!, 2),
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
