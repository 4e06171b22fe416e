// The support range at task start (docs/agent-clis.md): the real app reads each agent binary's version
// once, refuses one older than the oldest supported (or one whose version it cannot read) with an error
// event that says what to do, and runs one newer than the newest tested after a warning note. The binary
// is the real Claude Code behind a wrapper that answers `--version` with the version under test and runs
// the real CLI for everything else; the scripted Messages API is the only fake.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_CLI_SUPPORT } from "../../../src/core/runtime/agent-cli.js";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { CLAUDE, dataOf, HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

const { oldest, newest } = AGENT_CLI_SUPPORT["claude-code"];

interface Wrapper {
  file: string;
  /** Each call's arguments, one line per call. */
  calls(): Promise<string[]>;
  /** Rewrites the wrapper to say another version (a new binary: new size or time). */
  say(versionLine: string): Promise<void>;
}

async function wrapper(folder: string, versionLine: string): Promise<Wrapper> {
  const file = path.join(folder, "bin", "claude");
  const log = path.join(folder, "claude-calls.log");
  await fs.mkdir(path.dirname(file), { recursive: true });
  const say = async (line: string) => {
    await fs.writeFile(
      file,
      [
        "#!/bin/sh",
        `echo "$*" >> '${log}'`,
        `if [ "$1" = "--version" ]; then echo '${line}'; exit 0; fi`,
        `exec '${CLAUDE}' "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
  };
  await say(versionLine);
  return {
    file,
    say,
    calls: async () => (await fs.readFile(log, "utf8").catch(() => "")).split("\n").filter((l) => l !== ""),
  };
}

async function start(versionLine: string): Promise<{ a: TaskApp; claude: Wrapper }> {
  api = await startScriptedAnthropic(() => ({ text: "ok" }));
  const claude = { file: "" } as Wrapper;
  app = await startTaskApp({
    env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
  });
  Object.assign(claude, await wrapper(app.t.home, versionLine));
  await fs.writeFile(
    app.t.paths.settings,
    JSON.stringify({ version: 1, agents: { claudePath: claude.file } }),
    { mode: 0o600 },
  );
  return { a: app, claude };
}

const versionCalls = (calls: string[]) => calls.filter((c) => c === "--version").length;
const runs = (calls: string[]) => calls.filter((c) => c.startsWith("-p ")).length;

describe.skipIf(!HAVE_CLAUDE)("agent CLI versions at task start", () => {
  it("a Claude Code older than the oldest supported is never started: the error says which, the range and the fix", async () => {
    const { a, claude } = await start("2.1.100 (Claude Code)");
    a.send(taskPayload(2101, 21001));
    const events = await a.untilTerminal(21001);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(dataOf(events[1]!)).toEqual({
      type: "error",
      code: "runtime_error",
      message:
        `Claude Code 2.1.100 (${claude.file}) is older than the oldest version Gatehouse supports (${oldest}), ` +
        `so it did not start it. Update it (npm install -g @anthropic-ai/claude-code@${newest}), or set ` +
        `agents.claudePath in ${a.t.paths.settings} to a newer one.`,
    });
    expect(await claude.calls()).toEqual(["--version"]);
    expect(api!.requests).toHaveLength(0);
  });

  it("a binary whose version cannot be read is refused the same way", async () => {
    const { a, claude } = await start("something else entirely");
    a.send(taskPayload(2102, 21002));
    const events = await a.untilTerminal(21002);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(String(dataOf(events[1]!).message)).toContain(
      `Gatehouse could not tell which version of Claude Code ${claude.file} is, so it did not start it.`,
    );
    expect(runs(await claude.calls())).toBe(0);
  });

  it("a Claude Code newer than the newest tested runs the task after a warning note", async () => {
    const { a, claude } = await start("2.1.999 (Claude Code)");
    a.send(taskPayload(2103, 21003));
    const events = await a.untilTerminal(21003);
    expect(events.at(-1)!.event).toBe("response.completed");
    const notes = events
      .filter((e) => e.event === "response.reasoning_summary_text.delta")
      .map((e) => String(dataOf(e).delta));
    expect(notes).toContainEqual(
      expect.stringContaining(
        `Claude Code 2.1.999 (${claude.file}) is newer than the newest version Gatehouse was tested with (${newest}). The task runs`,
      ),
    );
    expect(runs(await claude.calls())).toBe(1);
  });

  it("the version is read once per binary, and again once the binary changes", async () => {
    const { a, claude } = await start(`${newest} (Claude Code)`);
    a.send(taskPayload(2104, 21004));
    expect((await a.untilTerminal(21004)).at(-1)!.event).toBe("response.completed");
    a.send(taskPayload(2105, 21005));
    expect((await a.untilTerminal(21005)).at(-1)!.event).toBe("response.completed");
    expect(versionCalls(await claude.calls())).toBe(1);
    expect(runs(await claude.calls())).toBe(2);

    await claude.say("2.1.100 (Claude Code)"); // an "update" to an unsupported version
    a.send(taskPayload(2106, 21006));
    const events = await a.untilTerminal(21006);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(versionCalls(await claude.calls())).toBe(2);
    expect(runs(await claude.calls())).toBe(2);
  });
});
