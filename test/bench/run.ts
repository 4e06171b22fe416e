// `npm run bench`: runs every benchmark in test/bench/*.bench.ts (compiled to dist/), prints one JSON
// line per benchmark and a summary line. Never fails the test command; exit 0 unless a bench crashed.
// `npm run bench -- NAME…` runs only the named benchmarks.
// Each benchmark file runs in a fresh Node process of its own: what one leaves behind (a heap grown
// by a 1 GiB flood, children still being reaped, timers, compiled code shaped by other work) is not
// charged to the next. The benchmarks of one file share that process (cli.hook and cli.explain share
// one interleaved run).
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import type { Benchmark, BenchResult } from "./harness.js";

// What runs in this process (the policy benchmarks, the executor) runs the shell parsers as every
// `gatehouse` process does: bin/gatehouse.js sets this flag before anything compiles them.
v8.setFlagsFromString("--liftoff-only");

const here = path.dirname(fileURLToPath(import.meta.url));
const thisFile = fileURLToPath(import.meta.url);
/** `--file=NAME.bench.js`: this process is the one running that file's benchmarks. */
const FILE_OPTION = "--file=";

async function benchmarksOf(file: string): Promise<Benchmark[]> {
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { benchmarks?: Benchmark[] };
  return mod.benchmarks ?? [];
}

type Line = BenchResult | { name: string; error: string };

/** Runs one file's benchmarks here, printing a line for each. */
async function runHere(file: string, only: string[]): Promise<void> {
  for (const bench of (await benchmarksOf(file)).filter((b) => only.length === 0 || only.includes(b.name))) {
    let line: Line;
    try {
      line = await bench.run();
    } catch (error) {
      line = { name: bench.name, error: (error as Error).message };
    }
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

/** Runs one file's benchmarks in a child process; relays and returns their lines. */
function runInChild(file: string, only: string[]): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [thisFile, `${FILE_OPTION}${file}`, ...only], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines: Line[] = [];
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      buffered += text;
      let end: number;
      while ((end = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        process.stdout.write(`${line}\n`);
        if (line.startsWith("{")) lines.push(JSON.parse(line) as Line);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) lines.push({ name: file, error: `the benchmark process exited with ${code}` });
      resolve(lines);
    });
  });
}

const args = process.argv.slice(2);
const fileArg = args.find((a) => a.startsWith(FILE_OPTION));
const only = args.filter((a) => !a.startsWith(FILE_OPTION));
if (fileArg) {
  await runHere(fileArg.slice(FILE_OPTION.length), only);
} else {
  const files = (await fs.readdir(here)).filter((f) => f.endsWith(".bench.js")).sort();
  const lines: Line[] = [];
  for (const file of files) {
    const names = (await benchmarksOf(file)).map((b) => b.name);
    if (only.length > 0 && !names.some((n) => only.includes(n))) continue;
    lines.push(...(await runInChild(file, only)));
  }
  const results = lines.filter((l): l is BenchResult => !("error" in l));
  const crashed = lines.length - results.length;
  const ok = results.filter((r) => r.ok).length;
  process.stdout.write(
    `${JSON.stringify({ summary: true, benchmarks: lines.length, met: ok, missed: results.length - ok, crashed })}\n`,
  );
  process.exitCode = crashed ? 1 : 0;
}
