// What gate.turn's driver (gate-turn-driver.ts) and its two agents (gate-turn-claude.ts,
// gate-turn-codex.ts) share: the Gatehouse set up for the turns, the shape of an agent's part, and
// running one agent CLI to its end.
import { spawn } from "node:child_process";
import type { AppPaths } from "../../src/core/paths.js";
import type { HookLaunch } from "../../src/core/runtime/agent-hook.js";
import type { createServices } from "../../src/services.js";

/** What the driver has set up before an agent's part starts: a running Gatehouse whose allowlist covers `echo`. */
export interface GateTurnSetup {
  /** A temp folder of the driver's user; removed at the end. */
  root: string;
  /** The agent's working folder (in `root`). */
  work: string;
  /** PATH, HOME (in `root`) and LANG: the environment Gatehouse runs with. */
  env: Record<string, string>;
  paths: AppPaths;
  services: ReturnType<typeof createServices>;
  /** How many tool calls one turn makes. */
  calls: number;
  /** What the hooks Gatehouse writes for a task are made from. */
  launch: Omit<HookLaunch, "agentId">;
}

/** One turn's model request times (arrival), or why a call of it did not run. */
export type TurnOutcome = { times: number[] } | { failed: string };

/** An agent's part of gate.turn. */
export interface TurnAgent {
  /** The BenchResult's name. */
  name: string;
  /** `none` (the baseline) first, then the gated configurations. */
  configs: readonly string[];
  /** The configuration whose added time is the BenchResult's value. */
  measured: string;
  unit: string;
  target: string;
  /** The target, in ms added per call. */
  limitMs: number;
  /** One turn of `calls` shell calls in `config`. */
  turn(config: string): Promise<TurnOutcome>;
  close(): Promise<void>;
}

/** Runs an agent CLI to its end; rejects with its stderr when it exits non-zero. */
export function runAgent(
  label: string,
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${label} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}
