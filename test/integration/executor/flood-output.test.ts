// Output under a flood (issue 12): reads land in one reused buffer, so what is kept — the head up to
// the cap, the tail for exec.finished, the chunks a live hook keeps — must be copies that later
// reads cannot change, and the exit status must survive a pipe that something else keeps open.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { gateAndRun, type ExecEvent } from "../../../src/executor/gate.js";
import { COMBINED_DEFAULT_CAP, TRUNCATION_MARKER } from "../../../src/executor/output-capture.js";
import { runProcess, type RunSpec } from "../../../src/executor/run-process.js";
import { gateDeps, gateRequest, runSpec } from "../../support/executor-inputs.js";
import { alive, LeftoverProcesses } from "../../support/processes.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";

const NODE = process.execPath;
const FLOOD_BYTES = 8 * 1024 * 1024;

/** Printable bytes with no short period: a lost, repeated or reordered read changes the text. */
function patternByte(i: number): number {
  return 0x21 + ((i * 7 + (i >>> 13)) % 94);
}
const expectedText = (from: number, to: number) =>
  Buffer.from(Array.from({ length: to - from }, (_, k) => patternByte(from + k))).toString("latin1");

/** A node child printing the pattern in writes of varied sizes (1 byte to ~200 KB). */
function floodScript(bytes: number, stream: "stdout" | "stderr" = "stdout"): string {
  return `const n = ${bytes}; const b = Buffer.alloc(n);
for (let i = 0; i < n; i++) b[i] = 0x21 + ((i * 7 + (i >>> 13)) % 94);
let at = 0, k = 0;
const next = () => { while (at < n) { const size = Math.min(n - at, [1, 17, 4096, 65536, 200001][k++ % 5]);
  const ok = process.${stream}.write(b.subarray(at, at + size)); at += size; if (!ok) return process.${stream}.once("drain", next); } };
next();`;
}

let t: TempHome;
const leftovers = new LeftoverProcesses();
beforeEach(async () => {
  t = await makeTempHome("gatehouse-flood-");
});
afterEach(async () => {
  leftovers.killAll();
  await t.cleanup();
});

const spec = (over: Partial<RunSpec>): RunSpec => runSpec(t, { timeoutMs: 60_000, ...over });

describe("output under a flood", () => {
  it("keeps exactly the first bytes up to the cap and counts every byte", async () => {
    const result = await runProcess(spec({ command: { argv: [NODE, "-e", floodScript(FLOOD_BYTES)] } }));
    expect(result).toMatchObject({ exitCode: 0, truncated: true, stdoutBytes: FLOOD_BYTES });
    expect(result.stdout).toBe(expectedText(0, COMBINED_DEFAULT_CAP) + TRUNCATION_MARKER);
  });

  it("keeps each run's own bytes when two runs flood at the same time", async () => {
    const separate = { outputMode: "separate" as const, maxOutputBytes: 3 * 1024 * 1024 };
    const [a, b] = await Promise.all([
      runProcess(spec({ command: { argv: [NODE, "-e", floodScript(FLOOD_BYTES)] }, ...separate })),
      runProcess(spec({ command: { argv: [NODE, "-e", floodScript(FLOOD_BYTES, "stderr")] }, ...separate })),
    ]);
    expect(a.stdout).toBe(expectedText(0, separate.maxOutputBytes));
    expect(b.stderr).toBe(expectedText(0, separate.maxOutputBytes));
    expect([a.stdoutBytes, b.stderrBytes]).toEqual([FLOOD_BYTES, FLOOD_BYTES]);
  });

  it("gives a live output hook chunks it can keep: together they are the whole output", async () => {
    const kept: Buffer[] = [];
    const result = await runProcess(spec({ command: { argv: [NODE, "-e", floodScript(FLOOD_BYTES)] } }), {
      onOutput: (_stream, chunk) => {
        kept.push(chunk);
      },
    });
    expect(result.exitCode).toBe(0);
    expect(Buffer.concat(kept).toString("latin1")).toBe(expectedText(0, FLOOD_BYTES));
  });

  it("ends exec.finished with exactly the last 20 000 characters of the output", async () => {
    const events: ExecEvent[] = [];
    const approvals = new ApprovalsStore({
      path: t.paths.approvals,
      defaultSocketPath: t.paths.defaultSocket,
    });
    await approvals.ensure();
    await approvals.setAgentSettings("defaults", { security: "full", ask: "off" });
    const deps = gateDeps(t, { approvals, onEvent: (event) => events.push(event) });
    const result = await gateAndRun(
      gateRequest(t.home, { command: { argv: [NODE, "-e", floodScript(FLOOD_BYTES)] } }),
      deps,
    );
    expect(result).toMatchObject({ exitCode: 0, stdoutBytes: FLOOD_BYTES });
    const finished = events.find((e) => e.type === "exec.finished");
    expect(finished?.type === "exec.finished" && finished.output).toBe(
      expectedText(FLOOD_BYTES - 20_000, FLOOD_BYTES),
    );
  });

  it("returns the command's exit status while a background process still floods the pipe, which then ends by itself", async () => {
    const pidFile = path.join(t.home, "writer.pid");
    const result = await runProcess(
      spec({
        command: {
          command: `(while :; do echo flood; done) & echo $! > '${pidFile}'; echo done >&2; exit 7`,
        },
        stdioGraceMs: 200,
      }),
    );
    const writer = Number(await fs.readFile(pidFile, "utf8"));
    leftovers.add(writer);
    expect(result).toMatchObject({ exitCode: 7, signal: null, timedOut: false, stderr: "done\n" });
    // Gatehouse stopped reading; the writer is not killed but gets EPIPE/SIGPIPE on its next write.
    await waitFor(() => !alive(writer), { what: "the background writer to end on the closed pipe" });
  });
});
