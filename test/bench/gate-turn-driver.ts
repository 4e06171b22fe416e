// The measuring side of gate.turn and gate.turn.codex (gate-turn.bench.ts starts it as uid 65534 with the
// agent's name, `claude` or `codex`, so every `echo` the turns run, runs as that user, in a temp folder
// it owns). A real agent turn of N `echo` shell calls against the scripted model endpoint, in each of the
// agent's configurations (gate-turn-claude.ts, gate-turn-codex.ts), interleaved round by round; `none`
// is always the baseline (no hook, the call pre-allowed). A Gatehouse runs in this process, as it does
// beside a task. The gap between two model requests holds exactly one tool call (hook + echo + the
// agent's own work); the figure is the median gap of a configuration minus the baseline's. Prints one
// BenchResult line.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { createLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { createServices } from "../../src/services.js";
import { realProgram } from "../support/programs.js";
import { claudeTurns } from "./gate-turn-claude.js";
import { codexTurns } from "./gate-turn-codex.js";
import { percentile, round, type BenchResult } from "./harness.js";
import type { GateTurnSetup, TurnAgent } from "./gate-turn-shared.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → bin/gatehouse.js */
const REPO = path.resolve(here, "../../..");
const GATEHOUSE_BIN = path.join(REPO, "bin", "gatehouse.js");
const CALLS = Number(process.env.GH_GATE_TURN_CALLS ?? 10);
const ROUNDS = Number(process.env.GH_GATE_TURN_ROUNDS ?? 8);
const PROMPT_TIMEOUT_MS = 120_000;
const AGENTS = { claude: claudeTurns, codex: codexTurns } as const;

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Each configuration's gaps over ROUNDS rounds, the order rotated each round; failed turns are counted, not measured. */
async function interleave(agent: TurnAgent): Promise<{ gaps: number[][]; failures: number[] }> {
  const gaps = agent.configs.map((): number[] => []);
  const failures = agent.configs.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotated each round: no configuration always runs first (or after the same one).
    for (let k = 0; k < agent.configs.length; k++) {
      const i = (k + round) % agent.configs.length;
      const config = agent.configs[i]!;
      const outcome = await agent.turn(config);
      // Only turns where every call ran count: a refused call is not what is measured.
      if ("failed" in outcome) {
        failures[i]!++;
        process.stderr.write(`${agent.name}: a ${config} turn failed: ${outcome.failed}\n`);
        continue;
      }
      for (let t = 1; t < outcome.times.length; t++) gaps[i]!.push(outcome.times[t]! - outcome.times[t - 1]!);
    }
  }
  return { gaps, failures };
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? "claude";
  if (!(which in AGENTS)) throw new Error(`unknown agent ${which}: say claude or codex`);
  const load1Start = os.loadavg()[0]!;
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

  const setup: GateTurnSetup = {
    root,
    work,
    env,
    paths,
    services,
    calls: CALLS,
    launch: {
      gatehouseCommand: [process.execPath, GATEHOUSE_BIN],
      workdir: work,
      promptTimeoutMs: PROMPT_TIMEOUT_MS,
    },
  };
  const agent = await AGENTS[which as keyof typeof AGENTS](setup);
  const { gaps, failures } = await interleave(agent);
  await agent.close();
  await services.stop();
  await fs.rm(root, { recursive: true, force: true });

  const at = (config: string) => agent.configs.indexOf(config);
  const base = median(gaps[at("none")]!);
  const added = (config: string) => round(median(gaps[at(config)]!) - base, 1);
  const details: Record<string, number | string> = { calls: CALLS, rounds: ROUNDS };
  for (const config of agent.configs) {
    details[`gap${capitalised(config)}Ms`] = round(median(gaps[at(config)]!), 1);
    if (config !== "none") details[`added${capitalised(config)}Ms`] = added(config);
  }
  const result: BenchResult = {
    name: agent.name,
    value: added(agent.measured),
    unit: agent.unit,
    baseline: round(base, 1),
    ratio: null,
    target: agent.target,
    ok: gaps[at(agent.measured)]!.length > 0 && added(agent.measured) <= agent.limitMs,
    details: {
      ...details,
      gapsCounted: gaps.map((g) => g.length).join("/"),
      failedTurns: failures.join("/"),
      configs: agent.configs.join("/"),
      load1Start: round(load1Start, 2),
      load1: round(os.loadavg()[0]!, 2),
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
