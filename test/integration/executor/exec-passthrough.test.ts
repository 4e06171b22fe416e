// What the terminal receives from plain `gatehouse exec` (no --json) under a flood (issue 12, "Exec
// output"): exactly the first bytes up to the cap, then `\n... (truncated)\n`, then nothing of stdout
// or stderr, while the command runs on to its end with its pipes drained. Through the real CLI; and
// the run's side of it: a live hook that has had enough is handed (copied) nothing more.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { COMBINED_DEFAULT_CAP, TRUNCATION_MARKER } from "../../../src/executor/output-capture.js";
import { NO_MORE_OUTPUT, runProcess } from "../../../src/executor/run-process.js";
import { execInHome, reportedPeakRss } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const NODE = process.execPath;
const MIB = 1024 * 1024;
const CUT_NOTICE = (cap: number) =>
  `gatehouse exec: output cut after ${cap} bytes, as in --json and the audit log (--max-output raises it, up to 5 MiB)\n`;

/** Printable bytes with no short period: a lost, repeated or reordered read changes the text. */
function patternByte(i: number): number {
  return 0x21 + ((i * 7 + (i >>> 13)) % 94);
}
const expectedText = (from: number, to: number) =>
  Buffer.from(Array.from({ length: to - from }, (_, k) => patternByte(from + k))).toString("latin1");

/**
 * A node child printing the pattern to stdout in writes of varied sizes (1 byte to ~200 KB), then a
 * line to stderr, exiting with `status` once everything was written (so the status says it ran to
 * its end).
 */
function floodScript(bytes: number, status: number): string {
  return `const n = ${bytes}; const b = Buffer.alloc(n);
for (let i = 0; i < n; i++) b[i] = 0x21 + ((i * 7 + (i >>> 13)) % 94);
let at = 0, k = 0;
const next = () => { while (at < n) { const size = Math.min(n - at, [1, 17, 4096, 65536, 200001][k++ % 5]);
  const ok = process.stdout.write(b.subarray(at, at + size)); at += size; if (!ok) return process.stdout.once("drain", next); }
  process.stderr.write("all written\\n", () => { process.exitCode = ${status}; }); };
next();`;
}

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-exec-passthrough-");
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "full", ask: "off" });
});
afterEach(async () => t.cleanup());

const exec = (args: string[], env: Record<string, string> = {}) => execInHome(t, args, env);

describe("plain `gatehouse exec` passing a flood through", () => {
  it("prints exactly the first 200 000 bytes of an 8 MiB flood and the marker, nothing past the cap, and the command runs to its end", async () => {
    const result = await exec(["--", NODE, "-e", floodScript(8 * MIB, 3)]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(expectedText(0, COMBINED_DEFAULT_CAP) + TRUNCATION_MARKER + "\n");
    // the command's own stderr line came after the cap: not printed either
    expect(result.stderr).toBe(CUT_NOTICE(COMBINED_DEFAULT_CAP));
  }, 60_000);

  it("prints exactly the first 5 MiB of a 16 MiB flood under --max-output 5 MiB", async () => {
    const cap = 5 * MIB;
    const result = await exec(["--max-output", String(cap), "--", NODE, "-e", floodScript(16 * MIB, 4)]);
    expect(result.code).toBe(4);
    expect(result.stdout.length).toBe(cap + TRUNCATION_MARKER.length + 1);
    expect(result.stdout === expectedText(0, cap) + TRUNCATION_MARKER + "\n").toBe(true);
    expect(result.stderr).toBe(CUT_NOTICE(cap));
  }, 60_000);

  it("prints output of exactly the cap whole, with no marker and no notice", async () => {
    const cap = 2 * MIB;
    const script = floodScript(cap - "all written\n".length, 0);
    const result = await exec(["--max-output", String(cap), "--", NODE, "-e", script]);
    expect(result.code).toBe(0);
    expect(result.stdout === expectedText(0, cap - "all written\n".length)).toBe(true);
    expect(result.stderr).toBe("all written\n");
  }, 60_000);

  it("keeps memory bounded while passing a 1 GiB flood through: the cap reaches the terminal, peak RSS up by less than 32 MiB", async () => {
    const baseline = await exec(["--", "true"], { GATEHOUSE_REPORT_RSS: "1" });
    const flood = await exec(["--timeout", "300", "--", "head", "-c", String(1024 * MIB), "/dev/zero"], {
      GATEHOUSE_REPORT_RSS: "1",
    });
    expect(flood.code).toBe(0);
    expect(flood.stdout).toBe("\0".repeat(COMBINED_DEFAULT_CAP) + TRUNCATION_MARKER + "\n");
    expect(flood.stderr).toContain(CUT_NOTICE(COMBINED_DEFAULT_CAP));
    const growth = reportedPeakRss(flood.stderr) - reportedPeakRss(baseline.stderr);
    expect(growth).toBeLessThan(32 * MIB);
  }, 120_000);
});

describe("plain `gatehouse exec` cutting text at the cap", () => {
  const cap = 1000;
  /**
   * Plain `gatehouse exec` under the cap, of a node child writing `first`, then (after a pause, so it is
   * usually a read of its own) `second`; both in hex.
   */
  const twoWrites = (first: string, second: string) =>
    exec([
      "--max-output",
      String(cap),
      "--",
      NODE,
      "-e",
      `process.stdout.write(Buffer.from(${JSON.stringify(first)}, "hex"), () => setTimeout(() => process.stdout.write(Buffer.from(${JSON.stringify(second)}, "hex")), 200));`,
    ]);
  const hex = (text: string) => Buffer.from(text, "latin1").toString("hex");

  it("never ends the printed text with part of a character the cap cuts, even when a read ends in the middle of it", async () => {
    // "é" is c3 a9: its first byte is the last one under the cap
    const result = await twoWrites(hex("a".repeat(cap - 1)) + "c3", "a9" + hex("b".repeat(5000)));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("a".repeat(cap - 1) + TRUNCATION_MARKER + "\n");
    expect(result.stderr).toBe(CUT_NOTICE(cap));
  }, 60_000);

  it("prints a character that ends exactly at the cap whole, across two reads", async () => {
    const result = await twoWrites(hex("a".repeat(cap - 2)) + "c3", "a9" + hex("b".repeat(5000)));
    expect(result.stdout).toBe("a".repeat(cap - 2) + "é" + TRUNCATION_MARKER + "\n");
  }, 60_000);

  it("prints output that ends at the cap with the first byte of a character as it is (nothing was cut)", async () => {
    const result = await twoWrites(hex("a".repeat(cap - 1)), "c3");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("a".repeat(cap - 1) + "\uFFFD"); // the lone c3 as the terminal decodes it
    expect(result.stderr).toBe("");
  }, 60_000);
});

describe("a live output hook that has had enough", () => {
  it("gets no further chunk of either stream once it returns NO_MORE_OUTPUT, while both pipes drain to the end", async () => {
    const seen: string[] = [];
    const bothStreams = `const b = Buffer.alloc(1024 * 1024, 0x61); let left = 8;
const next = () => { while (left > 0) { left--; process.stderr.write(b); if (!process.stdout.write(b)) return process.stdout.once("drain", next); } };
next();`;
    const result = await runProcess(
      { command: { argv: [NODE, "-e", bothStreams] }, cwd: t.home, env: t.env, timeoutMs: 60_000 },
      {
        onOutput: (stream) => {
          seen.push(stream);
          return NO_MORE_OUTPUT;
        },
      },
    );
    expect(result).toMatchObject({
      exitCode: 0,
      stdoutBytes: 8 * MIB,
      stderrBytes: 8 * MIB,
      truncated: true,
    });
    expect(seen).toHaveLength(1);
  });
});
