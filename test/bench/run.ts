// `npm run bench`: runs every benchmark in test/bench/*.bench.ts (compiled to dist/), prints one JSON
// line per benchmark and a summary line. Never fails the test command; exit 0 unless a bench crashed.
// `npm run bench -- NAME…` runs only the named benchmarks.
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import type { Benchmark, BenchResult } from "./harness.js";

// What runs in this process (the policy benchmarks, the executor) runs the shell parsers as every
// `gatehouse` process does: bin/gatehouse.js sets this flag before anything compiles them.
v8.setFlagsFromString("--liftoff-only");

const here = path.dirname(fileURLToPath(import.meta.url));

async function loadBenchmarks(): Promise<Benchmark[]> {
  const files = (await fs.readdir(here)).filter((f) => f.endsWith(".bench.js")).sort();
  const all: Benchmark[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { benchmarks?: Benchmark[] };
    all.push(...(mod.benchmarks ?? []));
  }
  return all;
}

const only = process.argv.slice(2);
const benchmarks = (await loadBenchmarks()).filter((b) => only.length === 0 || only.includes(b.name));
const results: BenchResult[] = [];
let crashed = 0;
for (const bench of benchmarks) {
  try {
    const result = await bench.run();
    results.push(result);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    crashed++;
    process.stdout.write(`${JSON.stringify({ name: bench.name, error: (error as Error).message })}\n`);
  }
}
const ok = results.filter((r) => r.ok).length;
process.stdout.write(
  `${JSON.stringify({ summary: true, benchmarks: results.length + crashed, met: ok, missed: results.length - ok, crashed })}\n`,
);
process.exitCode = crashed ? 1 : 0;
