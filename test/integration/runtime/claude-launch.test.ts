// The generated Claude Code launch spec run by the real Claude Code CLI (2.1.197), offline: HOME and
// E in a temp folder, non-essential traffic off, the model provider a local FAKE (or a closed port).
// Skipped, with the reason, where the CLI is not installed.
import { spawn, execFile } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { buildLaunchSpec, type LaunchInput, type LaunchSpec } from "../../../src/core/runtime/index.js";
import { REPO_ROOT } from "../../support/cli.js";
import { CLAUDE, HAVE_CLAUDE, missing } from "../../support/agent-clis.js";
import { startScriptedAnthropic, toolThenText } from "../../support/scripted-anthropic.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";

const runFile = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempHome(): Promise<TempHome> {
  const home = await makeTempHome("gatehouse-claude-");
  cleanups.push(() => home.cleanup());
  return home;
}

/** What the executor does with a spec: write its files (folders 0700), then spawn without a shell. */
async function writeSpecFiles(spec: LaunchSpec): Promise<void> {
  for (const file of spec.files) {
    await fs.mkdir(path.dirname(file.path), { recursive: true, mode: 0o700 });
    await fs.writeFile(file.path, file.content, { mode: file.mode });
  }
  await fs.mkdir(spec.cwd, { recursive: true });
}

function baseEnv(home: TempHome, modelUrl: string): Record<string, string> {
  return {
    ...home.env,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "fake-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

interface Running {
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  exited: Promise<number | null>;
  kill(): void;
}

function start(spec: LaunchSpec, env: Record<string, string>): Running {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...env, ...spec.env },
    stdio: "pipe",
  });
  const lines: Array<Record<string, unknown>> = [];
  let buffer = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(spec.stdin ?? "");
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  cleanups.push(async () => {
    kill();
    await exited;
  });
  return { lines, stderr: () => stderr, exited, kill };
}

interface Recorded {
  url: string;
  authorization: string | undefined;
}

/** A local HTTP endpoint that records what an MCP client sends and refuses it (the server "fails"). */
async function startRecorder(): Promise<{ port: number; seen: Recorded[] }> {
  const seen: Recorded[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    req.resume();
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not an MCP server"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

async function claudeSpec(
  home: TempHome,
  payload: Record<string, unknown>,
  extra: Partial<LaunchInput> = {},
) {
  const result = await buildLaunchSpec({
    payload: {
      task_id: 123,
      subtask_id: 456,
      bot: [{ shell_type: "ClaudeCode" }],
      prompt: "Fix the build",
      ...payload,
    },
    manifest: {},
    workdir: path.join(home.paths.defaultWorkspaceRoot, "123"),
    paths: home.paths,
    settings: { version: 1, agents: { claudePath: CLAUDE } },
    gatehouseCommand: [process.execPath, path.join(REPO_ROOT, "bin", "gatehouse.js")],
    readTextFile: (file) => fs.readFile(file, "utf8"),
    promptTimeoutMs: 120_000,
    ...extra,
  });
  if (!result.ok) throw new Error(result.error);
  return result;
}

describe.skipIf(!HAVE_CLAUDE)(`the real Claude Code CLI runs the launch spec${missing(CLAUDE)}`, () => {
  it("M4: accepts the generated MCP config and connects to every server with its URL, headers, command, args and env", async () => {
    const home = await tempHome();
    const recorder = await startRecorder();
    const mcpUrl = `http://127.0.0.1:${recorder.port}`;
    const stdioScript = path.join(home.home, "stdio-recorder.cjs");
    const stdioRecord = path.join(home.home, "stdio-record.json");
    await fs.writeFile(
      stdioScript,
      `require("node:fs").writeFileSync(${JSON.stringify(stdioRecord)}, JSON.stringify({ argv: process.argv.slice(2), FOO: process.env.FOO }));\n`,
    );
    const { spec } = await claudeSpec(
      home,
      {
        project_id: 5,
        backend_url: mcpUrl,
        auth_token: "task-token",
        bot: [
          {
            shell_type: "ClaudeCode",
            mcp_servers: {
              wegent: {
                type: "streamable-http",
                url: "${{backend_url}}/mcp",
                headers: { Authorization: "Bearer ${{task_token}}" },
                timeout: 12,
              },
              tool: { command: process.execPath, args: [stdioScript, "a b", 'q"uote'], env: { FOO: "bar" } },
            },
          },
        ],
      },
      {
        manifest: {
          mcps: {
            docs: {
              server: {
                type: "streamable-http",
                url: `${mcpUrl}/docs`,
                base_url: `${mcpUrl}/docs`,
                headers: { Authorization: "Bearer test" },
              },
              managed: true,
            },
          },
        },
      },
    );
    await writeSpecFiles(spec);
    const run = start(spec, baseEnv(home, await closedPortUrl()));

    const init = await waitFor(() => run.lines.find((l) => l.subtype === "init"), {
      timeoutMs: 45_000,
      what: `the init event (stderr: ${run.stderr()})`,
    });
    const listed = (init.mcp_servers as Array<{ name: string; status: string }>).map((s) => s.name);
    expect(listed.sort()).toEqual(["docs", "tool", "wegent"]);

    await waitFor(
      () => recorder.seen.some((r) => r.url === "/docs") && recorder.seen.some((r) => r.url === "/mcp"),
      {
        what: "both HTTP MCP servers to be contacted",
      },
    );
    expect(recorder.seen.find((r) => r.url === "/mcp")!.authorization).toBe("Bearer task-token");
    expect(recorder.seen.find((r) => r.url === "/docs")!.authorization).toBe("Bearer test");
    const stdio = await waitFor(() => fs.readFile(stdioRecord, "utf8").then(JSON.parse, () => null), {
      what: "the stdio MCP server to start",
    });
    expect(stdio).toEqual({ argv: ["a b", 'q"uote'], FOO: "bar" });
    run.kill();
  });

  it("sends every Bash call through the registered hook with the task's id; a denied command does not run", async () => {
    const home = await tempHome();
    const marker = path.join(home.home, "bash-ran");
    const model = await startScriptedAnthropic(
      toolThenText(
        { name: "Bash", input: { command: `touch ${marker}`, description: "scripted call" } },
        "done",
      ),
    );
    cleanups.push(() => model.close());
    const hookScript = path.join(home.home, "hook recorder.cjs"); // a space: the hook command must quote it
    const hookRecord = path.join(home.home, "hook-record.json");
    await fs.writeFile(
      hookScript,
      [
        'let input = "";',
        'process.stdin.setEncoding("utf8").on("data", (d) => (input += d)).on("end", () => {',
        `  require("node:fs").writeFileSync(${JSON.stringify(hookRecord)}, JSON.stringify({`,
        "    argv: process.argv.slice(2), input: JSON.parse(input),",
        "    taskId: process.env.GATEHOUSE_TASK_ID, executorHome: process.env.WEGENT_EXECUTOR_HOME }));",
        "  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse',",
        "    permissionDecision: 'deny', permissionDecisionReason: 'Command denied by user' } }));",
        "});",
      ].join("\n"),
    );
    const { spec } = await claudeSpec(
      home,
      { system_prompt: "-You are the scripted bot." },
      { gatehouseCommand: [process.execPath, hookScript], promptTimeoutMs: 5_000 },
    );
    await writeSpecFiles(spec);
    const run = start(spec, baseEnv(home, model.url));
    const code = await run.exited;

    const result = run.lines.find((l) => l.type === "result");
    expect(result, run.stderr()).toMatchObject({ subtype: "success", result: "done" });
    expect(code).toBe(0);
    const hook = JSON.parse(await fs.readFile(hookRecord, "utf8")) as Record<string, unknown>;
    expect(hook).toMatchObject({
      argv: ["hook", "claude", "--agent", "claude-code", "--workdir", spec.cwd, "--timeout", "5"],
      input: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `touch ${marker}` } },
      taskId: "123",
      executorHome: home.paths.executorHome,
    });
    expect(existsSync(marker)).toBe(false);
    // The prompt came on stdin and the bot's system prompt was appended.
    const turn = model.requests.find((r) => Array.isArray(r.tools) && (r.tools as unknown[]).length > 0)!;
    expect(JSON.stringify(turn.messages)).toContain("Fix the build");
    expect(JSON.stringify(turn.system)).toContain("-You are the scripted bot.");
    // The user's own Claude settings were not written.
    expect(existsSync(path.join(home.paths.claudeHome, "settings.json"))).toBe(false);
  });

  it.skipIf(process.platform !== "linux")(
    "a non-project task keeps the user's Claude login although its configuration folder is its own",
    async () => {
      const home = await tempHome();
      await fs.mkdir(home.paths.claudeHome, { recursive: true });
      await fs.writeFile(
        path.join(home.paths.claudeHome, ".credentials.json"),
        JSON.stringify({
          claudeAiOauth: {
            accessToken: "sk-ant-oat01-fake",
            refreshToken: "sk-ant-ort01-fake",
            expiresAt: 4102444800000,
            scopes: ["user:inference", "user:profile"],
            subscriptionType: "max",
          },
        }),
        { mode: 0o600 },
      );
      const { spec, task } = await claudeSpec(home, { project_id: 0 });
      expect(task.isProjectTask).toBe(false);
      expect(spec.env.CLAUDE_CONFIG_DIR).toBe(path.join(home.paths.executorHome, "task-claude", "123"));
      const status = async (env: Record<string, string>) => {
        const { stdout } = await runFile(CLAUDE, ["auth", "status", "--json"], {
          env,
          timeout: 30_000,
        }).catch((error: { stdout: string }) => error);
        return JSON.parse(stdout) as { loggedIn: boolean };
      };
      const env: Record<string, string> = {
        ...home.env,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        ...spec.env,
      };
      expect((await status(env)).loggedIn).toBe(true);
      const { CLAUDE_SECURESTORAGE_CONFIG_DIR: _dropped, ...without } = env;
      expect((await status(without)).loggedIn).toBe(false);
    },
  );
});
