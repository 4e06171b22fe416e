// A hook that cannot even start must not let a call through. Codex runs a call whose hook exits with
// 1 (codex-cli 0.169), and Claude Code falls back to its own permissions: the launch specs end the hook
// command in `|| exit 2` and pre-allow no Claude tool. Real CLIs, the generated specs, a gatehouse
// command that does not exist; the scripted model endpoints are the only fakes.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildLaunchSpec, type LaunchSpec } from "../../../src/core/runtime/index.js";
import { withExtraArgs } from "../../../src/executor/tasks/task-turn.js";
import { CLAUDE, CODEX, HAVE_CLAUDE, HAVE_CODEX, missing } from "../../support/agent-clis.js";
import { startScriptedAnthropic, toolResultText, toolThenText } from "../../support/scripted-anthropic.js";
import { callThenText, codexProviderArgs, startScriptedOpenAi } from "../../support/scripted-openai.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(runtime: "Codex" | "ClaudeCode"): Promise<{ home: TempHome; spec: LaunchSpec }> {
  const home = await makeTempHome("gh-hook-failure-");
  cleanups.push(() => home.cleanup());
  const workdir = path.join(home.home, "work");
  await fs.mkdir(workdir);
  const result = await buildLaunchSpec({
    payload: { task_id: 9, subtask_id: 1, bot: [{ shell_type: runtime }], prompt: "Make the marker." },
    manifest: {},
    workdir,
    paths: home.paths,
    settings: { version: 1 },
    gatehouseCommand: [process.execPath, path.join(home.home, "missing", "gatehouse.js")],
    promptTimeoutMs: 5_000,
    readTextFile: (file) => fs.readFile(file, "utf8"),
  });
  if (!result.ok) throw new Error(result.error);
  for (const file of result.spec.files) {
    await fs.mkdir(path.dirname(file.path), { recursive: true, mode: 0o700 });
    await fs.writeFile(file.path, file.content, { mode: file.mode });
  }
  return { home, spec: result.spec };
}

function run(file: string, args: string[], cwd: string, env: Record<string, string>, stdin: string | null) {
  const child = spawn(file, args, { cwd, env, stdio: [stdin === null ? "ignore" : "pipe", "pipe", "pipe"] });
  child.stdin?.end(stdin ?? "");
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr?.resume();
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise<string>((resolve) =>
    child.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    }),
  );
}

describe("an agent's hook that fails to start blocks the call", () => {
  it.skipIf(!HAVE_CODEX)(`Codex${missing(CODEX)}`, async () => {
    const api = await startScriptedOpenAi(
      callThenText({ name: "exec_command", arguments: { cmd: "touch marker" } }, "done"),
    );
    cleanups.push(() => api.close());
    const { home, spec } = await setUp("Codex");
    await fs.mkdir(home.paths.codexHome, { recursive: true });
    const args = withExtraArgs("codex", spec.args, codexProviderArgs(api.baseUrl));
    await run(CODEX, args, spec.cwd, { ...home.env, ...spec.env, FAKE_KEY: "k" }, null);

    expect(existsSync(path.join(spec.cwd, "marker"))).toBe(false);
    const outputs = JSON.stringify(api.functionOutputs());
    expect(outputs).toContain("Command blocked by PreToolUse hook");
  });

  it.skipIf(!HAVE_CLAUDE)(`Claude Code${missing(CLAUDE)}`, async () => {
    const api = await startScriptedAnthropic(
      toolThenText({ name: "Bash", input: { command: "touch marker" } }, "done"),
    );
    cleanups.push(() => api.close());
    const { home, spec } = await setUp("ClaudeCode");
    const env = {
      ...home.env,
      ...spec.env,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "k",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    await run(CLAUDE, spec.args, spec.cwd, env, spec.stdin);

    expect(existsSync(path.join(spec.cwd, "marker"))).toBe(false);
    const [result] = api.toolResults();
    expect(result).toMatchObject({ is_error: true });
    expect(toolResultText(result!)).toContain("hook error");
  });
});
