// Real Claude Code (node_modules/.bin/claude, 2.1.197) with `gatehouse hook claude` as its Bash
// PreToolUse hook, asking a real `gatehouse serve`. The model provider is the only fake: a scripted
// Messages API on 127.0.0.1 that asks for one Bash call and then ends the turn.
// Observed with 2.1.197, beyond agent-cli-notes.md: the hook input also carries `prompt_id` and
// `effort`, and the first request's last message may be a "system"-role message (agent/skill list);
// neither matters here.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLAUDE } from "../../support/agent-clis.js";
import { GATEHOUSE_BIN } from "../../support/cli.js";
import {
  startScriptedAnthropic,
  toolResultText,
  toolThenText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import { approvalsStoreAt } from "../../../src/core/approvals/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy } from "./fixtures.js";
import { startServe, type ServeProcess } from "./serve-process.js";
import { realProgram } from "../../support/programs.js";

let t: TempHome;
let api: ScriptedAnthropic;
let serve: ServeProcess | null = null;
let marker: string;

beforeEach(async () => {
  t = await makeTempHome("gh-claude-");
  marker = path.join(t.home, "marker");
  api = await startScriptedAnthropic(
    toolThenText(
      { name: "Bash", input: { command: `touch ${marker}`, description: "Create the marker" } },
      "All done.",
    ),
  );
});
afterEach(async () => {
  await serve?.stop();
  serve = null;
  await api.close();
  await t.cleanup();
});

interface StreamLine {
  type: string;
  subtype?: string;
  result?: string;
  message?: { content?: { type: string; is_error?: boolean; content?: unknown }[] };
}

async function runClaude(): Promise<{ code: number | null; lines: StreamLine[]; stderr: string }> {
  const settings = path.join(t.home, "task-settings.json");
  await fs.writeFile(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: `"${process.execPath}" "${GATEHOUSE_BIN}" hook claude`,
                timeout: 130,
              },
            ],
          },
        ],
      },
    }),
  );
  const env = {
    ...t.env,
    WEGENT_EXECUTOR_HOME: t.paths.executorHome,
    CLAUDE_CONFIG_DIR: path.join(t.home, ".claude"),
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "x",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  const child = spawn(
    CLAUDE,
    [
      "-p",
      "Create the marker file.",
      "--output-format",
      "stream-json",
      "--verbose",
      "--settings",
      settings,
      "--allowedTools",
      "Bash",
    ],
    { cwd: t.home, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  const lines = out
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l) as StreamLine);
  return { code, lines, stderr: err };
}

function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

describe("Claude Code with the Gatehouse hook", () => {
  it("does not run a Bash command the policy denies, and the denial reason reaches the transcript", async () => {
    await writePolicy(t.paths); // allowlist + on-miss + askFallback deny, nothing allowed
    serve = await startServe({ ...t.env, WEGENT_EXECUTOR_HOME: t.paths.executorHome });
    const run = await runClaude();
    expect(run.code, run.stderr).toBe(0);
    expect(await exists(marker)).toBe(false);

    const [result] = api.toolResults();
    expect(result).toMatchObject({ type: "tool_result", is_error: true });
    expect(toolResultText(result!)).toContain("Gatehouse had nobody to ask");
    expect(toolResultText(result!)).toContain("no-approver");

    const transcriptResult = run.lines
      .filter((l) => l.type === "user")
      .flatMap((l) => l.message?.content ?? [])
      .find((c) => c.type === "tool_result");
    expect(transcriptResult).toMatchObject({ is_error: true });
    expect(JSON.stringify(transcriptResult!.content)).toContain("Gatehouse had nobody to ask");
    expect(run.lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "All done." });

    const audit = (await fs.readFile(t.paths.audit, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit).toEqual([
      expect.objectContaining({
        agentId: "claude-code",
        source: "claude-hook",
        command: `touch ${marker}`,
        decision: "no-approver",
      }),
    ]);
    expect(String(audit[0]!.sessionKey)).toMatch(/^claude:[0-9a-f-]{36}$/);
  });

  it("runs a Bash command that a grant allows for one run once, and the second time not at all", async () => {
    const ids = await writePolicy(t.paths, { allow: [realProgram("touch")] });
    await approvalsStoreAt(t.paths).updateEntry("*", ids[realProgram("touch")]!, { usesLeft: 1 });
    serve = await startServe({ ...t.env, WEGENT_EXECUTOR_HOME: t.paths.executorHome });
    const first = await runClaude();
    expect(first.code, first.stderr).toBe(0);
    expect(await exists(marker)).toBe(true);
    await fs.rm(marker);
    // the same turn again (the scripted model asks for the same Bash call)
    await api.close();
    api = await startScriptedAnthropic(
      toolThenText(
        { name: "Bash", input: { command: `touch ${marker}`, description: "Create the marker" } },
        "All done.",
      ),
    );
    await runClaude();
    expect(await exists(marker)).toBe(false);
  });

  it("runs the Bash command when an allowlist entry covers touch's real path", async () => {
    await writePolicy(t.paths, { allow: [realProgram("touch")] });
    serve = await startServe({ ...t.env, WEGENT_EXECUTOR_HOME: t.paths.executorHome });
    const run = await runClaude();
    expect(run.code, run.stderr).toBe(0);
    expect(await exists(marker)).toBe(true);
    const [result] = api.toolResults();
    expect(result?.is_error ?? false).toBe(false);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", result: "All done." });
  });
});
