// gate.turn (bench.md): what the gate adds to each tool call of a real Claude Code turn. The turns run as
// uid 65534 (setpriv) when this runs as root, so the `echo` calls never run as root: the measuring side
// is gate-turn-driver.ts, started as that user, printing one BenchResult line. GH_GATE_TURN_CALLS (10)
// and GH_GATE_TURN_ROUNDS (8) change the size; GH_CLAUDE_BIN another Claude Code.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, BenchResult } from "./harness.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const DRIVER = path.join(here, "gate-turn-driver.js");
const OTHER_UID = 65534;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) ?? null;

function runDriver(): Promise<BenchResult> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot && SETPRIV === null) throw new Error("gate.turn needs setpriv to run its turns as uid 65534");
  const argv = asRoot
    ? [
        SETPRIV!,
        `--reuid=${OTHER_UID}`,
        `--regid=${OTHER_UID}`,
        "--clear-groups",
        "--",
        process.execPath,
        DRIVER,
      ]
    : [process.execPath, DRIVER];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: "/",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ...pick("GH_GATE_TURN_CALLS", "GH_GATE_TURN_ROUNDS", "GH_CLAUDE_BIN"),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line) reject(new Error(`gate.turn's driver failed (${code}): ${err.slice(-2000)}`));
      else resolve(JSON.parse(line) as BenchResult);
    });
  });
}

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]!]] : [])));
}

export const benchmarks: Benchmark[] = [{ name: "gate.turn", run: runDriver }];
