import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore, type PolicySettings } from "../../../src/core/approvals/index.js";
import { AuditLog } from "../../../src/executor/audit-log.js";
import { TRUNCATION_MARKER } from "../../../src/executor/output-capture.js";
import { execInHome, GATEHOUSE_BIN, reportedPeakRss } from "../../support/cli.js";
import { alive, killIfAlive } from "../../support/processes.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";

interface ExecJson {
  decision: string;
  decidedBy: string;
  reason: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
  durationMs: number;
}

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-exec-cli-");
});
afterEach(async () => t.cleanup());

async function policy(settings: PolicySettings): Promise<void> {
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", settings);
}

const exec = (args: string[], env: Record<string, string> = {}) => execInHome(t, args, env);

describe("gatehouse exec", () => {
  it("exits 126 with the reason when the policy denies (--json)", async () => {
    const result = await exec(["--json", "--", "touch", "ran"]);
    expect(result.code).toBe(126);
    expect(result.json<ExecJson>()).toMatchObject({
      decision: "deny",
      decidedBy: "policy",
      reason: "security=deny",
      exitCode: null,
    });
    await expect(fs.access(path.join(t.home, "ran"))).rejects.toThrow();
  });

  it("prints the denial and how to set up a policy on stderr without --json", async () => {
    const result = await exec(["--", "true"]);
    expect(result.code).toBe(126);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/denied by the exec policy \(policy\): security=deny/);
    expect(result.stderr).toMatch(/gatehouse init/);
  });

  it("exits with the command's own code when it ran (--json)", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await exec(["--json", "--shell", "--", "echo out; echo err >&2; exit 7"]);
    expect(result.code).toBe(7);
    expect(result.json<ExecJson>()).toMatchObject({
      decision: "allow-once",
      decidedBy: "policy",
      exitCode: 7,
      signal: null,
      timedOut: false,
      stdout: "out\n",
      stderr: "err\n",
      truncated: false,
    });
  });

  it("prints the command's output through, stdout to stdout and stderr to stderr", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await exec(["--", "sh", "-c", "echo out; echo err >&2"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("out\n");
    expect(result.stderr).toBe("err\n");
  });

  it("exits 128 + the signal number when the command is killed by a signal", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await exec(["--json", "--", "sh", "-c", "kill -KILL $$"]);
    expect(result.code).toBe(137);
    expect(result.json<ExecJson>()).toMatchObject({ exitCode: null, signal: "SIGKILL" });
  });

  it("reports askFallback as no-approver (not a timeout), exit 126, when a prompt would be needed", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    const result = await exec(["--json", "--", "true"]);
    expect(result.code).toBe(126);
    expect(result.json<ExecJson>()).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
  });

  it("runs in --cwd and records the decision and the run in the audit log", async () => {
    await policy({ security: "full", ask: "off" });
    const folder = path.join(t.home, "work");
    await fs.mkdir(folder);
    const result = await exec(["--json", "--cwd", folder, "--agent", "ci", "--", "pwd"]);
    expect(result.json<ExecJson>().stdout).toBe(`${folder}\n`);
    const lines = await new AuditLog({ path: t.paths.audit }).read({ limit: 10 });
    expect(lines.map((l) => [l.event, l.agentId, l.source, l.cwd])).toEqual([
      ["run", "ci", "cli", folder],
      ["decision", "ci", "cli", folder],
    ]);
  });

  it("kills the command and its grandchild on --timeout", async () => {
    await policy({ security: "full", ask: "off" });
    const pidFile = path.join(t.home, "grandchild.pid");
    const result = await exec([
      "--json",
      "--timeout",
      "1",
      "--shell",
      "--",
      `sleep 1000 & echo $! > '${pidFile}'; sleep 1000`,
    ]);
    const grandchild = Number(await fs.readFile(pidFile, "utf8"));
    try {
      expect(result.code).toBe(143);
      expect(result.json<ExecJson>()).toMatchObject({ timedOut: true, signal: "SIGTERM", exitCode: null });
      await waitFor(() => !alive(grandchild), { what: "the grandchild to be gone" });
    } finally {
      killIfAlive(grandchild);
    }
  });

  it("keeps memory bounded while a command prints 1 GiB: truncated at the cap, peak RSS up by less than 32 MiB", async () => {
    await policy({ security: "full", ask: "off" });
    const baseline = await exec(["--json", "--", "true"], { GATEHOUSE_REPORT_RSS: "1" });
    const flood = await exec(["--json", "--timeout", "300", "--", "head", "-c", "1073741824", "/dev/zero"], {
      GATEHOUSE_REPORT_RSS: "1",
    });
    expect(flood.code).toBe(0);
    const json = flood.json<ExecJson>();
    expect(json.truncated).toBe(true);
    expect(json.stdout.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(json.stdout.length).toBe(200_000 + TRUNCATION_MARKER.length);
    const growth = reportedPeakRss(flood.stderr) - reportedPeakRss(baseline.stderr);
    expect(growth).toBeLessThan(32 * 1024 * 1024);
  }, 120_000);

  it("caps the kept output at --max-output", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await exec(["--json", "--max-output", "10", "--", "printf", "0123456789abcdef"]);
    expect(result.json<ExecJson>()).toMatchObject({
      stdout: `0123456789${TRUNCATION_MARKER}`,
      truncated: true,
    });
  });

  it("exits 127 when the command does not exist", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await exec(["--", "no-such-command-xyz"]);
    expect(result.code).toBe(127);
    expect(result.stderr).toMatch(/Failed to start command: no-such-command-xyz: command not found/);
  });

  it("refuses bad options with exit 2 and changes nothing", async () => {
    for (const args of [
      ["--timeout", "soon", "--", "true"],
      ["--max-output", String(6 * 1024 * 1024), "--", "true"],
      ["--cwd", path.join(t.home, "missing"), "--", "true"],
      ["--bogus", "--", "true"],
      ["--json"],
    ]) {
      const result = await exec(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/Usage: gatehouse exec/);
    }
    await expect(fs.access(t.paths.audit)).rejects.toThrow();
  });
});

describe("gatehouse exec with a reader that goes away", () => {
  it("stops the command and exits 141 when its output is closed (`… | head -1`)", async () => {
    const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    await store.ensure();
    await store.applyPreset("trust");
    // a cap far above what is read first: past the cap nothing more is written, so a reader that goes
    // away is noticed only when the command ends (as with --json)
    const child = spawn(
      process.execPath,
      [GATEHOUSE_BIN, "exec", "--max-output", String(5 * 1024 * 1024), "--", "yes"],
      { env: t.env, cwd: t.home, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.stdout.destroy();
    expect(await exited).toBe(141);
  });
});

describe("gatehouse exec interrupted", () => {
  it("stops the whole command tree and exits 130 on Ctrl-C (SIGINT)", async () => {
    const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    await store.ensure();
    await store.applyPreset("trust");
    const pidFile = path.join(t.home, "sleeper.pid");
    const child = spawn(
      process.execPath,
      [GATEHOUSE_BIN, "exec", "--shell", "--", `sleep 1000 & echo $! > '${pidFile}'; wait`],
      { env: t.env, cwd: t.home, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const sleeper = await waitFor(
      async () => Number(await fs.readFile(pidFile, "utf8").catch(() => "")) || null,
      { what: "the command to start" },
    );
    try {
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      await waitFor(() => !alive(sleeper), { what: "the command's child to be gone" });
    } finally {
      killIfAlive(sleeper);
    }
  });
});
