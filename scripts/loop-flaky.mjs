#!/usr/bin/env node
// Flake hunting (issue 30), for developers, not part of CI: runs every test file that kills, times
// out or races N times and reports, per file, how many rounds failed and which tests. A file is picked
// when its text kills a process, waits with a deadline, races promises, restarts or reconnects (the
// patterns below; --all takes every file). Files that run the real agent CLIs are slow: they get
// --slow-runs rounds. Everything runs under `nice`; the build happens once (GATEHOUSE_TESTS_BUILT
// makes vitest skip its global build).
//
//   node scripts/loop-flaky.mjs [--runs 20] [--slow-runs 5] [--workers N] [--all] [--one-by-one] [--list] [folders or files…]
//
// Default folders: test/integration/{capabilities,device,approval-server,tasks,skills,faults}. Each round runs the
// picked files in one vitest run (files in parallel, as CI runs them); --one-by-one runs each file in
// a vitest run of its own (no competition from the other files). Reports and vitest's JSON for every
// round go to a folder under the system temp folder (printed). Exit code 1 when anything failed.
// --workers N runs N test files at once (vitest's --maxWorkers; its own default is one fewer than the
// cores, so one on a 2-core machine): more rounds in the hour, and more competition for each file.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "20" },
    "slow-runs": { type: "string", default: "5" },
    all: { type: "boolean", default: false },
    "one-by-one": { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    nice: { type: "string", default: "10" },
    workers: { type: "string" },
  },
});

/** What makes a test file a candidate for flakes, and the word the report uses for it. */
const SIGNS = [
  [/SIGKILL|SIGTERM|\.kill\(|kill-at-step|killAt|KILL_AT/, "kills"],
  [/timeout|Timeout|deadline|waitFor\(|setTimeout|AbortSignal\.timeout/, "times out"],
  [/Promise\.(race|all|any)\(|concurren|in parallel|at once|burst/, "races"],
  [/restart|reconnect|disconnect/, "restarts"],
];
/** Files that run the real Claude Code or Codex CLI: a round takes minutes under load. */
const SLOW =
  /scripted-anthropic|scripted-openai|claudeBin|codexBin|node_modules\/\.bin\/(claude|codex)|realClaude|realCodex/;

async function testFiles(entry) {
  const full = path.resolve(root, entry);
  const stat = await fs.stat(full);
  if (stat.isFile()) return [full];
  const out = [];
  for (const name of (await fs.readdir(full)).sort())
    out.push(...(await testFiles(path.join(full, name))).filter((f) => f.endsWith(".test.ts")));
  return out;
}

const folders =
  positionals.length > 0
    ? positionals
    : ["capabilities", "device", "approval-server", "tasks", "skills", "faults"].map(
        (f) => `test/integration/${f}`,
      );
const picked = [];
for (const folder of folders) {
  for (const file of await testFiles(folder)) {
    const text = await fs.readFile(file, "utf8");
    const signs = SIGNS.filter(([pattern]) => pattern.test(text)).map(([, word]) => word);
    if (signs.length === 0 && !args.all) continue;
    picked.push({ file: path.relative(root, file), signs, slow: SLOW.test(text) });
  }
}
for (const p of picked)
  console.log(`${p.slow ? "slow " : "     "}${p.file}  (${p.signs.join(", ") || "--all"})`);
if (args.list || picked.length === 0) process.exit(0);

function run(command, argv, env = {}) {
  return new Promise((resolve) => {
    const child = spawn("nice", ["-n", args.nice, command, ...argv], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ code, output }));
  });
}

console.log("\nbuilding once…");
const build = await run("sh", ["-c", "npx tsc -p tsconfig.build.json && node scripts/bundle-cli.mjs"]);
if (build.code !== 0) {
  console.error(build.output);
  process.exit(2);
}

const outDir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-flaky-"));
const tally = new Map(picked.map((p) => [p.file, { runs: 0, failedRuns: 0, tests: new Map(), ms: 0 }]));
const runs = Number(args.runs);
const slowRuns = Math.min(Number(args["slow-runs"]), runs);

/** One vitest run over `files`; its JSON report is tallied. */
async function round(label, files) {
  const report = path.join(outDir, `${label}.json`);
  const { output } = await run(
    "npx",
    [
      "vitest",
      "run",
      "--reporter=json",
      `--outputFile=${report}`,
      ...(args.workers ? [`--maxWorkers=${args.workers}`] : []),
      ...files,
    ],
    { GATEHOUSE_TESTS_BUILT: "1" },
  );
  let json;
  try {
    json = JSON.parse(await fs.readFile(report, "utf8"));
  } catch {
    await fs.writeFile(path.join(outDir, `${label}.log`), output);
    for (const file of files) {
      const t = tally.get(file);
      t.runs++;
      t.failedRuns++;
      t.tests.set("(vitest did not report)", [...(t.tests.get("(vitest did not report)") ?? []), label]);
    }
    return;
  }
  for (const result of json.testResults) {
    const t = tally.get(path.relative(root, result.name));
    if (!t) continue;
    t.runs++;
    t.ms += (result.endTime ?? 0) - (result.startTime ?? 0);
    const failed = result.assertionResults.filter((a) => a.status === "failed");
    if (result.status === "failed" || failed.length > 0) {
      t.failedRuns++;
      await fs.writeFile(path.join(outDir, `${label}.log`), output);
      const names =
        failed.length > 0
          ? failed.map((a) => a.title)
          : [`(file) ${String(result.message ?? "").split("\n")[0]}`];
      for (const [i, name] of names.entries()) {
        const first = String(failed[i]?.failureMessages?.[0] ?? result.message ?? "")
          .split("\n")[0]
          .slice(0, 200);
        t.tests.set(name, [...(t.tests.get(name) ?? []), `${label}: ${first}`]);
      }
    }
  }
}

const started = Date.now();
for (let i = 1; i <= runs; i++) {
  const files = picked.filter((p) => !p.slow || i <= slowRuns).map((p) => p.file);
  if (args["one-by-one"]) for (const file of files) await round(`round-${i}-${path.basename(file)}`, [file]);
  else await round(`round-${i}`, files);
  const failing = [...tally.values()].filter((t) => t.failedRuns > 0).length;
  console.log(
    `round ${i}/${runs} done (${((Date.now() - started) / 60000).toFixed(1)} min, ${failing} files with failures so far)`,
  );
}

console.log(`\nruns  failed  avg s  file`);
let anyFailed = false;
for (const [file, t] of tally) {
  console.log(
    `${String(t.runs).padStart(4)}  ${String(t.failedRuns).padStart(6)}  ${(t.ms / Math.max(t.runs, 1) / 1000).toFixed(1).padStart(5)}  ${file}`,
  );
  for (const [name, where] of t.tests) {
    anyFailed = true;
    console.log(`          × ${name} (${where.length}×)\n            ${where[0]}`);
  }
}
console.log(`\nreports and logs of failed rounds: ${outDir}`);
process.exit(anyFailed ? 1 : 0);
