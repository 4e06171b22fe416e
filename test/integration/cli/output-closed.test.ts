// A reader that goes away early (`gatehouse … | head -c 300`, issue 12) ends Gatehouse's output
// quietly, the way SIGPIPE ends a C program's: no EPIPE stack trace on the terminal, exit status 141
// (128 + SIGPIPE) for `set -o pipefail`. Run through a real bash pipeline.
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { GATEHOUSE_BIN } from "../../support/cli.js";
import { findBash } from "../../../src/executor/shells.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-output-closed-");
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "full", ask: "off" });
});
afterEach(async () => t.cleanup());

/** Runs `gatehouse ARGS | head -c 300` in bash; the pipeline's stdout, stderr and gatehouse's status. */
async function pipedToHead(args: string[]): Promise<{ stdout: string; stderr: string; status: number }> {
  const bash = await findBash();
  if (!bash) throw new Error("these tests need bash");
  const quoted = [process.execPath, GATEHOUSE_BIN, ...args].map((a) => `'${a}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(bash, ["-c", `${quoted} | head -c 300; echo "status=\${PIPESTATUS[0]}"`], {
      env: t.env,
      cwd: t.home,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", () => {
      const match = /status=(\d+)\n$/.exec(stdout);
      if (!match?.[1]) return reject(new Error(`no status in: ${stdout.slice(-200)}`));
      resolve({ stdout: stdout.slice(0, match.index), stderr, status: Number(match[1]) });
    });
  });
}

describe("output to a reader that goes away", () => {
  it("`gatehouse exec --json … | head -c 300` prints 300 bytes of the report and exits 141 without a stack trace", async () => {
    // 200 000 kept NUL bytes are 1.2 MB of JSON: far more than a pipe holds, so the write fails.
    const result = await pipedToHead(["exec", "--json", "--", "head", "-c", "1000000", "/dev/zero"]);
    expect(result.stdout).toHaveLength(300);
    expect(result.stdout.startsWith("{")).toBe(true);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(141);
  }, 60_000);

  it("`gatehouse exec … | head -c 300` passing a flood through stops quietly with 141", async () => {
    const result = await pipedToHead(["exec", "--", "head", "-c", "100000000", "/dev/zero"]);
    expect(result.stdout).toHaveLength(300);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(141);
  }, 60_000);
});
