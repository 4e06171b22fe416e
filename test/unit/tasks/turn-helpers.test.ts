// Small pure parts of a turn: where the agent binary comes from, where extra CLI arguments go, how an
// agent that ended without a result is described, and the process tree a cancel walks.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveAgentBinary } from "../../../src/executor/tasks/agent-binary.js";
import { processTree, type ProcessInfo } from "../../../src/executor/tasks/process-table.js";
import {
  describeAgentExit,
  MAX_AGENT_SESSIONS,
  rememberSession,
  withExtraArgs,
  type AgentSession,
} from "../../../src/executor/tasks/task-turn.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gh-turn-");
});
afterEach(async () => {
  await t.cleanup();
});

async function executable(file: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, "#!/bin/sh\n", { mode: 0o755 });
  return file;
}

describe("resolveAgentBinary", () => {
  it.skipIf(process.platform === "win32")(
    "finds a bare name on the agents' PATH, in PATH order",
    async () => {
      const first = await executable(path.join(t.home, "a", "claude"));
      await executable(path.join(t.home, "b", "claude"));
      await fs.writeFile(path.join(t.home, "c-claude"), "not executable", { mode: 0o644 });
      const env = {
        PATH: [path.join(t.home, "nope"), path.join(t.home, "a"), path.join(t.home, "b")].join(":"),
      };
      expect(
        await resolveAgentBinary({
          runtime: "claude-code",
          command: "claude",
          env,
          home: t.home,
          settingsFile: "S",
        }),
      ).toEqual({ ok: true, file: first });
    },
  );

  it.skipIf(process.platform === "win32")(
    "a configured path with ~ is expanded and must be executable",
    async () => {
      const file = await executable(path.join(t.home, "tools", "codex"));
      expect(
        await resolveAgentBinary({
          runtime: "codex",
          command: "~/tools/codex",
          env: {},
          home: t.home,
          settingsFile: "S",
        }),
      ).toEqual({ ok: true, file });
      await fs.chmod(file, 0o644);
      expect(
        await resolveAgentBinary({
          runtime: "codex",
          command: "~/tools/codex",
          env: {},
          home: t.home,
          settingsFile: "S",
        }),
      ).toEqual({
        ok: false,
        message: `Codex was not found at ${file} (agents.codexPath in S). Install it there or correct the setting.`,
      });
    },
  );

  it.skipIf(process.platform !== "win32")("Windows tries PATHEXT extensions", async () => {
    const dir = path.join(t.home, "win");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "claude.CMD"), "@echo off");
    const found = await resolveAgentBinary({
      runtime: "claude-code",
      command: "claude",
      env: { Path: dir, PATHEXT: ".EXE;.CMD" },
      home: t.home,
      settingsFile: "S",
      platform: "win32",
    });
    expect(found.ok).toBe(true);
  });
});

describe("withExtraArgs", () => {
  it("puts Codex's extra options right after exec, before the prompt separator", () => {
    expect(withExtraArgs("codex", ["exec", "--json", "--", "hi"], ["-c", "model=x"])).toEqual([
      "exec",
      "-c",
      "model=x",
      "--json",
      "--",
      "hi",
    ]);
  });
  it("appends Claude Code's extra options (the prompt comes on stdin)", () => {
    expect(withExtraArgs("claude-code", ["-p", "--verbose"], ["--model", "x"])).toEqual([
      "-p",
      "--verbose",
      "--model",
      "x",
    ]);
    expect(withExtraArgs("claude-code", ["-p"], [])).toEqual(["-p"]);
  });
});

describe("describeAgentExit", () => {
  it("names the runtime, how it ended and the last thing it said", () => {
    expect(
      describeAgentExit(
        "codex",
        { code: 1, signal: null, spawnError: null, stderrTail: "warn\nCODEX_HOME missing\n\n" },
        null,
      ),
    ).toBe("Codex exited with code 1 before finishing the turn: CODEX_HOME missing");
    expect(
      describeAgentExit(
        "claude-code",
        { code: null, signal: "SIGKILL", spawnError: null, stderrTail: "" },
        "Reconnecting",
      ),
    ).toBe("Claude Code was stopped by SIGKILL before finishing the turn: Reconnecting");
    expect(
      describeAgentExit(
        "claude-code",
        { code: null, signal: null, spawnError: "/x: command not found", stderrTail: "" },
        null,
      ),
    ).toBe("Claude Code could not be started: /x: command not found");
  });
});

describe("processTree", () => {
  const table: ProcessInfo[] = [
    { pid: 1, ppid: 0, pgid: 1, zombie: false },
    { pid: 10, ppid: 1, pgid: 10, zombie: false }, // the agent
    { pid: 11, ppid: 10, pgid: 11, zombie: false }, // its Bash, in a group of its own
    { pid: 12, ppid: 11, pgid: 11, zombie: false }, // sleep
    { pid: 13, ppid: 10, pgid: 10, zombie: true },
    { pid: 20, ppid: 1, pgid: 20, zombie: false }, // unrelated
  ];
  it("holds the root and every descendant, whatever their group, and nothing else", () => {
    expect(
      processTree([10], table)
        .map((p) => p.pid)
        .sort((a, b) => a - b),
    ).toEqual([10, 11, 12, 13]);
    expect(processTree([99], table)).toEqual([]);
  });
  it("still finds an orphan's children from the pids seen before", () => {
    const orphaned = table.filter((p) => p.pid !== 10).map((p) => (p.pid === 11 ? { ...p, ppid: 1 } : p));
    expect(
      processTree([10, 11], orphaned)
        .map((p) => p.pid)
        .sort((a, b) => a - b),
    ).toEqual([11, 12, 13]);
  });
});

describe("rememberSession", () => {
  it("keeps the most recently used agent sessions up to the limit", () => {
    const sessions = new Map<string, AgentSession>();
    const session = (id: string): AgentSession => ({ runtime: "claude-code", resumeId: id, cwd: "/w" });
    for (let i = 0; i < MAX_AGENT_SESSIONS; i++) rememberSession(sessions, String(i), session(`s${i}`));
    rememberSession(sessions, "0", session("s0-again")); // used again: now the newest
    rememberSession(sessions, "new", session("fresh"));
    expect(sessions.size).toBe(MAX_AGENT_SESSIONS);
    expect(sessions.has("1")).toBe(false);
    expect(sessions.get("0")!.resumeId).toBe("s0-again");
    expect(sessions.get("new")!.resumeId).toBe("fresh");
  });
});
