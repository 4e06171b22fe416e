#!/usr/bin/env node
// Crash stress for capability sync (issue 30), for developers, not part of CI: many random scenarios
// (2–4 syncs over a small pool of skills, plugins and MCP servers that come, go, come back, change
// content, id, version and enabled flag; a seed names each one), each with kill points, checking what
// test/integration/capabilities/crash.test.ts checks for its fixed scenario: after a kill the next
// start leaves a committed state (the interrupted sync undone or done, the user's files untouched) and
// the next sync equals a clean one.
//
// By default the disk at a kill point is rebuilt by replaying the recorded steps (fast, in process);
// --sigkill kills a real child process there instead (test/support/kill-at-step.ts). --double also
// stops the repairing start-up at a random step of its own, then starts again. --no-links runs on a
// file system where links are refused (runtime paths become marked copies, as on Windows without
// links). --fixed runs CI's scenario instead of random ones.
//
//   npx tsc -p tsconfig.build.json && node scripts/crash-stress.mjs [--seeds 200] [--from 1]
//       [--points 20 | --every] [--sigkill] [--double] [--no-links] [--fixed]
//
// Exit code 1 when any kill point broke the property; each is printed with its seed and step, which
// replay it exactly (`--from <seed> --seeds 1 --every`).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    seeds: { type: "string", default: "200" },
    from: { type: "string", default: "1" },
    points: { type: "string", default: "20" },
    every: { type: "boolean", default: false },
    sigkill: { type: "boolean", default: false },
    double: { type: "boolean", default: false },
    "no-links": { type: "boolean", default: false },
    fixed: { type: "boolean", default: false },
  },
});
if (args.sigkill && args["no-links"]) {
  console.error("--sigkill and --no-links do not go together (the child process uses real links)");
  process.exit(2);
}
const harnessFile = path.join(root, "dist/test/support/capability-crash.js");
try {
  await fs.access(harnessFile);
} catch {
  console.error(`${harnessFile} is missing: build first (npx tsc -p tsconfig.build.json)`);
  process.exit(2);
}
const crash = await import(pathToFileURL(harnessFile).href);
const { startPackageServer } = await import(
  pathToFileURL(path.join(root, "dist/src/demo-backend/package-server.js")).href
);

const noLinks = args["no-links"];
const server = await startPackageServer();
const failures = [];
let checked = 0;
const started = Date.now();
const first = Number(args.from);
for (let seed = first; seed < first + Number(args.seeds); seed++) {
  const t0 = Date.now();
  const scenario = args.fixed ? crash.FIXED_SCENARIO : crash.randomScenario(seed);
  const payloads = await crash.publishScenario(server, scenario);
  const clean = await crash.committedStates(server, payloads, { noLinks });
  if (clean.problems.length > 0) {
    failures.push(`seed ${seed}: the clean run itself: ${clean.problems.join("; ")}`);
    console.log(`seed ${seed}: clean run failed`);
    continue;
  }
  const home = await crash.freshHome("gatehouse-stress-");
  const recorded = await crash.runStopped(home, server, payloads, null, { noLinks });
  const total = recorded.steps.length;
  const random = crash.seededRandom(seed * 7919);
  const points = args.every
    ? Array.from({ length: total }, (_, i) => i + 1)
    : [...new Set(Array.from({ length: Number(args.points) }, () => 1 + Math.floor(random() * total)))].sort(
        (a, b) => a - b,
      );
  const payloadDir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-stress-payloads-"));
  const payloadFiles = [];
  for (const [i, payload] of payloads.entries()) {
    const file = path.join(payloadDir, `p${i + 1}.json`);
    await fs.writeFile(file, JSON.stringify(payload));
    payloadFiles.push(file);
  }
  let failed = 0;
  for (const n of points) {
    const killStartupAt = args.double ? 1 + Math.floor(random() * 60) : undefined;
    let target = home;
    let problems;
    try {
      if (args.sigkill) {
        target = await crash.freshHome("gatehouse-stress-child-");
        const child = await crash.runKilledChild(target, server, payloadFiles, n);
        if (child.signal !== "SIGKILL") throw new Error(`the child was not killed at step ${n}`);
      } else crash.replayedKill(home, recorded, n);
      problems = await crash.checkRecovery(
        target,
        server,
        payloads,
        clean.states,
        crash.interruptedSync(recorded, n),
        { nextSync: true, noLinks, killStartupAt },
      );
    } catch (error) {
      problems = [`threw: ${error instanceof Error ? error.stack : String(error)}`];
    } finally {
      if (target !== home) await target.cleanup();
    }
    checked++;
    if (problems.length > 0) {
      failed++;
      const again =
        killStartupAt === undefined ? "" : `, start-up killed again before its step ${killStartupAt}`;
      failures.push(
        `seed ${seed}, kill before step ${n} of ${total} (${crash.describeStep(recorded.steps[n - 1])})${again}:\n  ${problems.join("\n  ")}`,
      );
    }
  }
  await home.cleanup();
  await fs.rm(payloadDir, { recursive: true, force: true });
  console.log(
    `seed ${seed}: ${payloads.length} syncs, ${total} steps, ${points.length} kill points, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
}
await server.close();
console.log(
  `\n${checked} kill points in ${Number(args.seeds)} scenarios, ${failures.length} failed, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
for (const failure of failures) console.log(`\n${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
