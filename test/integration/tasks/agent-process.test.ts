// An agent process and the end of its whole tree, with real processes: a cancel must leave nothing
// behind, also what ignores SIGTERM, sits in a process group of its own (as Claude Code's Bash commands
// do) or was double-forked out of the tree.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../../src/executor/tasks/agent-process.js";
import { waitFor } from "../../support/wait-for.js";
import { alive, HAVE_PROC } from "./process-tree.js";

const started: AgentProcess[] = [];
afterEach(async () => {
  for (const p of started.splice(0)) await p.stop();
});

function pgrep(pattern: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.trim())
      .map(Number);
  } catch {
    return [];
  }
}

function start(script: string, lines: string[] = [], killGraceMs = 1_000): AgentProcess {
  const p = startAgentProcess(
    {
      file: "/bin/sh",
      args: ["-c", script],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      cwd: "/tmp",
      stdin: null,
      killGraceMs,
    },
    (line) => lines.push(line),
  );
  started.push(p);
  return p;
}

describe.skipIf(process.platform === "win32")("agent processes", () => {
  it("reads stdout line by line, including a last line without a newline, and keeps the end of stderr", async () => {
    const lines: string[] = [];
    const p = startAgentProcess(
      {
        file: "/bin/sh",
        args: ["-c", 'read x; echo "{\\"got\\":\\"$x\\"}"; echo oops >&2; printf tail; exit 3'],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        cwd: "/tmp",
        stdin: "prompt text\n",
      },
      (line) => lines.push(line),
    );
    const exit = await p.exited;
    expect(lines).toEqual(['{"got":"prompt text"}', "tail"]);
    expect(exit).toEqual({ code: 3, signal: null, spawnError: null, stderrTail: "oops\n" });
  });

  it("a file that cannot be executed is a spawn error value", async () => {
    const p = startAgentProcess(
      { file: "/nonexistent/agent", args: [], env: {}, cwd: "/tmp", stdin: null },
      () => undefined,
    );
    expect((await p.exited).spawnError).toBe("/nonexistent/agent: command not found");
  });

  it.skipIf(!HAVE_PROC)(
    "stop ends children in their own process group, SIGTERM-ignoring ones and double-forked ones",
    async () => {
      const n = `${process.pid % 1000}${Date.now() % 1000}`;
      const tag = `sleep 7[123][.]${n}`;
      const p = start(
        [
          "trap '' TERM",
          `(setsid sh -c "trap '' TERM; sleep 71.${n}; true" &)`,
          `setsid sh -c "sleep 72.${n}; true" &`,
          `sleep 73.${n} &`,
          "wait",
        ].join("\n"),
      );
      await waitFor(() => pgrep(tag).length >= 5, { what: "the tree to start" });
      const pids = pgrep(tag);
      const t0 = Date.now();
      await p.stop();
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(alive(pids)).toEqual([]);
      expect(pgrep(tag)).toEqual([]);
    },
  );
});
