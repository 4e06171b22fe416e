import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runProcess, type RunSpec } from "../../../src/executor/run-process.js";
import { TRUNCATION_MARKER } from "../../../src/executor/output-capture.js";
import { runSpec } from "../../support/executor-inputs.js";
import { alive, LeftoverProcesses } from "../../support/processes.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";

const NODE = process.execPath;

let t: TempHome;
const leftovers = new LeftoverProcesses();
beforeEach(async () => {
  t = await makeTempHome("gatehouse-run-");
});
afterEach(async () => {
  leftovers.killAll();
  await t.cleanup();
});

const spec = (over: Partial<RunSpec>): RunSpec => runSpec(t, over);

describe("runProcess", () => {
  it("runs an argv without a shell: words are passed as they are", async () => {
    const result = await runProcess(spec({ command: { argv: ["printf", "%s|%s", "$HOME", "a b"] } }));
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      stdout: "$HOME|a b",
      stderr: "",
    });
    expect(result.spawnError).toBeUndefined();
  });

  it("runs a shell string under bash by its absolute path, whatever $SHELL says", async () => {
    for (const SHELL of ["/bin/dash", "/usr/bin/zsh", NODE]) {
      const env = { ...t.env, SHELL };
      const result = await runProcess(
        spec({ command: { command: "a=(one two); [[ ${a[0]} == one ]] && echo $'bash\\x21' \"$0\"" }, env }),
      );
      expect(result.stdout.trim()).toMatch(/^bash! \/.*bin\/bash$/);
    }
  });

  it("runs a shell string under /bin/sh when told this machine has no bash, and says so", async () => {
    const result = await runProcess(
      spec({ command: { command: 'echo "$0"' }, shells: { bash: null, baseEnv: t.env } }),
    );
    expect(result.stdout.trim()).toBe("/bin/sh");
    expect(result.note).toMatch(/no bash.*\/bin\/sh/);
  });

  it("returns the command's own exit code and its stderr", async () => {
    const result = await runProcess(spec({ command: { command: "echo oops >&2; exit 3" } }));
    expect(result).toMatchObject({ exitCode: 3, stderr: "oops\n", truncated: false });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("runs in the given folder with exactly the given environment", async () => {
    const result = await runProcess(
      spec({ command: { command: 'pwd; echo "$ONLY_HERE"' }, env: { PATH: t.env.PATH, ONLY_HERE: "yes" } }),
    );
    expect(result.stdout).toBe(`${t.home}\nyes\n`);
  });

  it("cuts combined output at the cap, marks it, and counts every byte", async () => {
    const script = "process.stdout.write('a'.repeat(150000)); process.stderr.write('b'.repeat(150000));";
    const result = await runProcess(spec({ command: { argv: [NODE, "-e", script] } }));
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdoutBytes).toBe(150_000);
    expect(result.stderrBytes).toBe(150_000);
    const kept = result.stdout.length + result.stderr.length;
    expect(kept).toBeLessThanOrEqual(200_000 + 2 * TRUNCATION_MARKER.length);
    expect(result.stdout.endsWith(TRUNCATION_MARKER) || result.stderr.endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it("caps stdout and stderr separately in separate mode, on a UTF-8 boundary", async () => {
    const script = "process.stdout.write('é'.repeat(100)); process.stderr.write('x'.repeat(10));";
    const result = await runProcess(
      spec({ command: { argv: [NODE, "-e", script] }, outputMode: "separate", maxOutputBytes: 11 }),
    );
    expect(result).toMatchObject({
      stdout: "ééééé",
      stderr: "xxxxxxxxxx",
      stdoutTruncated: true,
      stderrTruncated: false,
      stdoutBytes: 200,
    });
  });

  it("keeps draining after the cap: a child that writes 10 MB exits 0, not blocked or killed by SIGPIPE", async () => {
    const result = await runProcess(
      spec({ command: { command: "head -c 10000000 /dev/zero" }, timeoutMs: 30_000 }),
    );
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      truncated: true,
      stdoutBytes: 10_000_000,
    });
  });

  it("kills the whole process tree on timeout, grandchild included", async () => {
    const pidFile = path.join(t.home, "grandchild.pid");
    const result = await runProcess(
      spec({
        command: { command: `sleep 1000 & echo $! > '${pidFile}'; sleep 1000` },
        timeoutMs: 500,
      }),
    );
    const grandchild = Number(await fs.readFile(pidFile, "utf8"));
    leftovers.add(grandchild);
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM" });
    await waitFor(() => !alive(grandchild), { what: "the grandchild to be gone" });
  });

  it("sends SIGKILL after the grace period when the tree ignores SIGTERM", async () => {
    const result = await runProcess(
      spec({
        command: { command: "trap '' TERM; sleep 1000 & wait; sleep 1000" },
        timeoutMs: 300,
        killGraceMs: 300,
      }),
    );
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
  });

  it("cancels through an AbortSignal the same way", async () => {
    const controller = new AbortController();
    const pidFile = path.join(t.home, "started");
    const running = runProcess(
      spec({ command: { command: `echo $$ > '${pidFile}'; sleep 1000` }, signal: controller.signal }),
    );
    await waitFor(() => fs.readFile(pidFile, "utf8").then((s) => s.trim() !== ""), {
      what: "the child to start",
    });
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ cancelled: true, timedOut: false, exitCode: null, signal: "SIGTERM" });
  });

  it("spawns nothing when already cancelled", async () => {
    const marker = path.join(t.home, "ran");
    const result = await runProcess(
      spec({ command: { argv: ["touch", marker] }, signal: AbortSignal.abort() }),
    );
    expect(result).toMatchObject({ cancelled: true, exitCode: null, durationMs: 0 });
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it("spawns nothing when the cwd re-check refuses the folder", async () => {
    const marker = path.join(t.home, "ran");
    const result = await runProcess(
      spec({
        command: { argv: ["touch", marker] },
        recheckCwd: async () => ({ ok: false, message: "workdir changed before start" }),
      }),
    );
    expect(result.spawnError).toBe("Failed to start command: workdir changed before start");
    expect(result.exitCode).toBeNull();
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it("runs in the folder the cwd re-check hands back", async () => {
    const other = path.join(t.home, "managed");
    await fs.mkdir(other);
    const result = await runProcess(
      spec({ command: { argv: ["pwd"] }, recheckCwd: async () => ({ ok: true, cwd: other }) }),
    );
    expect(result.stdout.trim()).toBe(other);
    expect(result.cwd).toBe(other);
  });

  it("reports a missing executable as a value", async () => {
    const result = await runProcess(spec({ command: { argv: ["no-such-command-xyz"] } }));
    expect(result.spawnError).toBe("Failed to start command: no-such-command-xyz: command not found");
    expect(result.exitCode).toBeNull();
  });

  it("reports a missing working directory as a value", async () => {
    const missing = path.join(t.home, "nope");
    const result = await runProcess(spec({ cwd: missing }));
    expect(result.spawnError).toBe(`Failed to start command: working directory does not exist: ${missing}`);
  });

  it("reports a file that is not executable as a value", async () => {
    const file = path.join(t.home, "script.sh");
    await fs.writeFile(file, "#!/bin/sh\necho hi\n", { mode: 0o644 });
    const result = await runProcess(spec({ command: { argv: [file] } }));
    expect(result.spawnError).toBe(`Failed to start command: ${file}: permission denied`);
  });

  it("returns when the command exits even if something it left in the background holds the output open", async () => {
    const pidFile = path.join(t.home, "bg.pid");
    const result = await runProcess(
      spec({ command: { command: `sleep 1000 & echo $! > '${pidFile}'; echo done` }, stdioGraceMs: 100 }),
    );
    leftovers.add(Number(await fs.readFile(pidFile, "utf8")));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "done\n" });
  });

  it("keeps draining and capturing when the output hook throws", async () => {
    const result = await runProcess(
      spec({ command: { command: "head -c 300000 /dev/zero; echo done >&2" } }),
      {
        onOutput: () => {
          throw new Error("listener broke");
        },
      },
    );
    expect(result).toMatchObject({ exitCode: 0, stdoutBytes: 300_000, stderrBytes: 5 });
  });

  it("hands every chunk to the output hook, waiting when the hook asks it to", async () => {
    const seen: Buffer[] = [];
    let spawned = 0;
    const result = await runProcess(spec({ command: { command: "head -c 300000 /dev/zero" } }), {
      onSpawn: ({ pid }) => (spawned = pid),
      onOutput: async (_stream, chunk) => {
        seen.push(chunk);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    expect(spawned).toBeGreaterThan(0);
    expect(result.exitCode).toBe(0);
    expect(Buffer.concat(seen).length).toBe(300_000);
  });
});
