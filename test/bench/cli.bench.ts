// cli.hook and cli.explain (bench.md): CPU time (user + system, the child's own rusage as bash's
// `time` reports it) of one `gatehouse` call, against `node -e 0` measured interleaved in the same
// run. cli.hook: `gatehouse hook claude` on one PreToolUse input for a command an allowlist rule
// covers, asking a running `gatehouse serve` (the case on every Bash tool call); the same hook with no
// Gatehouse running (deciding alone) is reported beside it. cli.hook.codex: `gatehouse hook codex` on
// the same command as Codex sends it (its arguments read back from a one-call transcript), asking the
// same `gatehouse serve`: Codex keeps the command hook (docs/decisions.md "Codex keeps the command
// hook"), so its target is the command hook's, ≤ 2.0× node -e 0 (issue 29). cli.explain: `gatehouse
// policy explain --json -- git status`. Medians of ROUNDS runs each.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalsStore } from "../../src/core/approvals/index.js";
import { resolvePaths } from "../../src/core/paths.js";
import { realProgram } from "../support/programs.js";
import { percentile, round, type Benchmark, type BenchResult } from "./harness.js";

const ROUNDS = 25;
const WARMUP = 3;
const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → bin/gatehouse.js */
const GATEHOUSE_BIN = path.resolve(here, "../../../bin/gatehouse.js");

/** CPU milliseconds of `argv` run to completion with `input` on stdin (bash's `time`: getrusage of the child). */
function cpuMs(argv: string[], inputFile: string, env: Record<string, string>, cwd: string): Promise<number> {
  const script = 'TIMEFORMAT="%3U %3S"; { time "$@" <"$GH_BENCH_INPUT" >/dev/null 2>/dev/null; } 2>&1';
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script, "bash", ...argv], {
      env: { ...env, GH_BENCH_INPUT: inputFile },
      cwd,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", reject);
    child.on("close", () => {
      const match = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(out);
      if (!match) reject(new Error(`no time report from bash: ${out}`));
      else resolve((Number(match[1]) + Number(match[2])) * 1000);
    });
  });
}

async function startServe(env: Record<string, string>, cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [GATEHOUSE_BIN, "serve"], {
    env,
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("Gatehouse is serving")) resolve();
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("exit", (code) => reject(new Error(`gatehouse serve exited with ${code}: ${err}`)));
  });
  return child;
}

interface Measured {
  baseline: number[];
  served: number[];
  alone: number[];
  codex: number[];
  explain: number[];
}

let measured: Promise<Measured> | null = null;

/** The benchmarks share one interleaved run (node -e 0, hook served, hook alone, Codex hook, explain). */
function measure(): Promise<Measured> {
  measured ??= (async () => {
    const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-bench-cli-")));
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
    const aloneHome = path.join(home, "alone");
    await fs.mkdir(aloneHome, { mode: 0o700 });
    const aloneEnv = { ...env, HOME: aloneHome };
    for (const e of [env, aloneEnv]) {
      const paths = resolvePaths(e);
      const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
      await store.ensure();
      await store.applyPreset("ask");
      await store.addEntry("*", { pattern: realProgram("git") });
    }
    const input = path.join(home, "pre-tool-use.json");
    await fs.writeFile(
      input,
      JSON.stringify({
        session_id: "bench",
        cwd: home,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "git status" },
      }),
    );
    // Codex's hook input names the call; its arguments are in the session transcript (codex-cli 0.171).
    const transcript = path.join(home, "rollout.jsonl");
    await fs.writeFile(
      transcript,
      `${JSON.stringify({
        type: "response_item",
        payload: {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify({ cmd: "git status" }),
          call_id: "call_bench",
        },
      })}\n`,
    );
    const codexInput = path.join(home, "codex-pre-tool-use.json");
    await fs.writeFile(
      codexInput,
      JSON.stringify({
        session_id: "bench",
        cwd: home,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "git status" },
        tool_use_id: "call_bench",
        transcript_path: transcript,
      }),
    );
    const empty = path.join(home, "empty");
    await fs.writeFile(empty, "");
    const serve = await startServe(env, home);
    try {
      const node = process.execPath;
      const result: Measured = { baseline: [], served: [], alone: [], codex: [], explain: [] };
      for (let i = 0; i < WARMUP + ROUNDS; i++) {
        const b = await cpuMs([node, "-e", "0"], empty, env, home);
        const s = await cpuMs([node, GATEHOUSE_BIN, "hook", "claude"], input, env, home);
        const a = await cpuMs([node, GATEHOUSE_BIN, "hook", "claude"], input, aloneEnv, home);
        const c = await cpuMs([node, GATEHOUSE_BIN, "hook", "codex"], codexInput, env, home);
        const e = await cpuMs(
          [node, GATEHOUSE_BIN, "policy", "explain", "--json", "--", "git", "status"],
          empty,
          env,
          home,
        );
        if (i < WARMUP) continue;
        result.baseline.push(b);
        result.served.push(s);
        result.alone.push(a);
        result.codex.push(c);
        result.explain.push(e);
      }
      return result;
    } finally {
      const exited = new Promise((resolve) => serve.once("exit", resolve));
      serve.kill("SIGTERM");
      await exited;
      await fs.rm(home, { recursive: true, force: true });
    }
  })();
  return measured;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

function result(name: string, values: number[], baseline: number[], limit: number, extra = {}): BenchResult {
  const value = median(values);
  const base = median(baseline);
  const ratio = value / base;
  return {
    name,
    value: round(value, 1),
    unit: "ms CPU (median)",
    baseline: round(base, 1),
    ratio: round(ratio, 2),
    target: `≤ ${limit.toFixed(1)}× node -e 0`,
    ok: ratio <= limit,
    details: { rounds: values.length, loadAverage1m: round(os.loadavg()[0] ?? 0, 2), ...extra },
  };
}

export const benchmarks: Benchmark[] = [
  {
    name: "cli.hook",
    run: async () => {
      const m = await measure();
      return result("cli.hook", m.served, m.baseline, 2.0, {
        aloneMs: round(median(m.alone), 1),
        aloneRatio: round(median(m.alone) / median(m.baseline), 2),
      });
    },
  },
  {
    name: "cli.hook.codex",
    run: async () => {
      const m = await measure();
      return result("cli.hook.codex", m.codex, m.baseline, 2.0);
    },
  },
  {
    name: "cli.explain",
    run: async () => {
      const m = await measure();
      return result("cli.explain", m.explain, m.baseline, 2.5);
    },
  },
];
