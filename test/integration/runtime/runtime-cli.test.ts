import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HOOK_ENDED_REASON } from "../../../src/core/runtime/agent-hook.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let home: TempHome;
afterEach(() => home?.cleanup());

const payload = {
  task_id: 42,
  subtask_id: 7,
  project_id: 5,
  bot: [
    {
      shell_type: "ClaudeCode",
      mcp_servers: {
        wegent: {
          type: "streamable-http",
          url: "${{backend_url}}/mcp",
          headers: { Authorization: "Bearer ${{task_token}}" },
        },
      },
    },
  ],
  prompt: "hello",
  auth_token: "task-token-secret",
  backend_url: "https://backend.example.com",
};

async function writeTask(value: unknown): Promise<string> {
  const file = path.join(home.home, "task.json");
  await fs.writeFile(file, JSON.stringify(value));
  return file;
}

interface SpecOutput {
  ok: boolean;
  runtime: string;
  spec: {
    command: string;
    args: string[];
    cwd: string;
    env: Record<string, string>;
    files: { path: string; content: string }[];
  };
  notices: string[];
}

describe("gatehouse runtime spec", () => {
  it("prints the launch spec with secrets masked, and writes nothing", async () => {
    home = await makeTempHome();
    const result = await runCli(["runtime", "spec", "--task-json", await writeTask(payload), "--json"], {
      env: home.env,
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.json<SpecOutput>();
    expect(out.runtime).toBe("claude-code");
    expect(out.spec.cwd).toBe(path.join(home.paths.defaultWorkspaceRoot, "42"));
    expect(result.stdout).not.toContain("task-token-secret");
    const mcp = out.spec.files.find((f) => f.path.endsWith("mcp.json"))!;
    expect(JSON.parse(mcp.content).mcpServers.wegent.headers).toEqual({ Authorization: "[redacted]" });
    const settings = out.spec.files.find((f) => f.path.endsWith("settings.json"))!;
    expect(JSON.parse(settings.content).hooks.PreToolUse[0].hooks[0]).toEqual({
      type: "command",
      command: `${process.execPath} ${path.join(REPO_ROOT, "bin", "gatehouse.js")} hook claude --agent claude-code --workdir ${out.spec.cwd} --timeout 120 || { [ $? -eq 2 ] || echo '${HOOK_ENDED_REASON}' >&2; exit 2; }`,
      timeout: 130,
    });
    expect(existsSync(home.paths.runtimeDir)).toBe(false);
  });

  it("shows the secrets with --show-secrets, and uses --cwd and --prompt-timeout", async () => {
    home = await makeTempHome();
    const file = await writeTask(payload);
    const result = await runCli(
      [
        "runtime",
        "spec",
        "--task-json",
        file,
        "--json",
        "--show-secrets",
        "--cwd",
        home.home,
        "--prompt-timeout",
        "300",
      ],
      { env: home.env },
    );
    const out = result.json<SpecOutput>();
    expect(out.spec.cwd).toBe(home.home);
    const mcp = out.spec.files.find((f) => f.path.endsWith("mcp.json"))!;
    expect(JSON.parse(mcp.content).mcpServers.wegent.headers).toEqual({
      Authorization: "Bearer task-token-secret",
    });
    const settings = out.spec.files.find((f) => f.path.endsWith("settings.json"))!;
    expect(JSON.parse(settings.content).hooks.PreToolUse[0].hooks[0].timeout).toBe(310);
  });

  it("reads the task from stdin with --task-json - and prints a readable summary without --json", async () => {
    home = await makeTempHome("gatehouse-test-", { LOCAL_WORKSPACE_ROOT: "/srv/work" });
    const codexTask = {
      ...payload,
      project_id: 0,
      bot: [{ shell_type: "Codex", mcp_servers: payload.bot[0]!.mcp_servers }],
    };
    const result = await runCli(["runtime", "spec", "--task-json", "-"], {
      env: home.env,
      input: JSON.stringify(codexTask),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("runtime: codex");
    expect(result.stdout).toContain("cwd:     /srv/work/42");
    // The task token is passed to Codex through its environment, never on its command line.
    expect(result.stdout).toContain(
      `mcp_servers.wegent.env_http_headers.Authorization="GATEHOUSE_MCP_HEADER_1"`,
    );
    expect(result.stdout).toContain("GATEHOUSE_MCP_HEADER_1=[redacted]");
    expect(result.stdout).not.toContain("task-token-secret");
  });

  it("says when the shell type is not supported", async () => {
    home = await makeTempHome();
    const file = await writeTask({ ...payload, bot: [{ shell_type: "Agno" }] });
    const result = await runCli(["runtime", "spec", "--task-json", file], { env: home.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("gatehouse runtime: Unsupported shell type: Agno\n");
  });

  it("refuses a missing --task-json, unreadable or invalid JSON, and a bad prompt timeout with exit status 2", async () => {
    home = await makeTempHome();
    const bad = path.join(home.home, "bad.json");
    await fs.writeFile(bad, "{nope");
    const cases: Array<[string[], RegExp]> = [
      [["runtime", "spec"], /--task-json FILE is required/],
      [
        ["runtime", "spec", "--task-json", path.join(home.home, "missing.json")],
        /cannot read .*missing\.json: ENOENT/,
      ],
      [["runtime", "spec", "--task-json", bad], /bad\.json is not valid JSON/],
      [
        ["runtime", "spec", "--task-json", bad, "--prompt-timeout", "soon"],
        /--prompt-timeout must be a positive number/,
      ],
      [["runtime", "spec", "--bogus"], /Unknown option '--bogus'/],
      [["runtime"], /a subcommand is required/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { env: home.env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it("reports an invalid payload field by name", async () => {
    home = await makeTempHome();
    const file = await writeTask({ ...payload, task_id: "abc" });
    const result = await runCli(["runtime", "spec", "--task-json", file, "--json"], { env: home.env });
    expect(result.code).toBe(1);
    expect(result.json()).toMatchObject({
      ok: false,
      code: "invalid_payload",
      error: expect.stringContaining("task_id"),
    });
  });
});
