// The generated `-c` overrides, passed to the real Codex CLI (`codex <overrides> mcp list --json`), with
// CODEX_HOME in a temp folder. Skipped, with the reason, where the CLI is not installed.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { buildLaunchSpec } from "../../../src/core/runtime/index.js";
import { CODEX, HAVE_CODEX, missing } from "../../support/agent-clis.js";
import { M1_MANIFEST } from "../../support/mcp-examples.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const run = promisify(execFile);

interface ListedServer {
  name: string;
  transport: Record<string, unknown> & { type: string };
}

let home: TempHome | undefined;
afterEach(async () => {
  await home?.cleanup();
  home = undefined;
});

async function overridesFor(manifest: unknown, payloadExtra: Record<string, unknown> = {}) {
  home ??= await makeTempHome("gatehouse-codex-");
  const result = await buildLaunchSpec({
    payload: {
      task_id: 5,
      subtask_id: 6,
      project_id: 77,
      bot: [{ shell_type: "Codex" }],
      prompt: "hi",
      ...payloadExtra,
    },
    manifest,
    workdir: home.home,
    paths: home.paths,
    settings: { version: 1 },
    gatehouseCommand: ["node", "gatehouse.js"],
    promptTimeoutMs: 120_000,
    readTextFile: (file) => fs.readFile(file, "utf8"),
  });
  if (!result.ok) throw new Error(result.error);
  const args = result.spec.args;
  const overrides = args.flatMap((arg, i) => (args[i - 1] === "-c" ? ["-c", arg] : []));
  return { overrides, notices: result.notices, env: result.spec.env };
}

async function mcpList(overrides: string[], env: Record<string, string>): Promise<Map<string, ListedServer>> {
  await fs.mkdir(env.CODEX_HOME!, { recursive: true });
  const { stdout } = await run(CODEX, [...overrides, "mcp", "list", "--json"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home!.home, ...env },
    timeout: 30_000,
  });
  const listed = JSON.parse(stdout) as ListedServer[];
  return new Map(listed.map((s) => [s.name, s]));
}

describe.skipIf(!HAVE_CODEX)(`the real Codex CLI accepts the overrides${missing(CODEX)}`, () => {
  it("M1: docs is streamable_http with its URL and bearer variable; shell is stdio with command, args and env", async () => {
    const { overrides, env } = await overridesFor(M1_MANIFEST);
    // The gate's own overrides (hooks, trust, shell) come along: the real CLI accepts them all.
    expect(overrides.filter((o) => o.startsWith("mcp_servers"))).toHaveLength(5);
    const servers = await mcpList(overrides, env);
    expect([...servers.keys()]).toEqual(["docs", "shell"]);
    expect(servers.get("docs")!.transport).toMatchObject({
      type: "streamable_http",
      url: "https://mcp.example.com/docs",
      bearer_token_env_var: "DOCS_TOKEN",
    });
    expect(servers.get("shell")!.transport).toMatchObject({
      type: "stdio",
      command: "uvx",
      args: ["tool", "--flag"],
      env: { FOO: "bar" },
    });
  });

  it("lists dotted server and header names, odd values, and leaves the user's own servers as they are", async () => {
    home = await makeTempHome("gatehouse-codex-");
    await fs.mkdir(home.paths.codexHome, { recursive: true });
    await fs.writeFile(
      path.join(home.paths.codexHome, "config.toml"),
      [
        'model = "o3"',
        "[mcp_servers.mine]",
        'command = "my-tool"',
        'args = ["--mine"]',
        "[mcp_servers.clash]",
        'command = "users-own"',
        '[mcp_servers."their.tool"]',
        'url = "https://theirs.example.com/mcp"',
        "",
      ].join("\n"),
    );
    const quoted = 'quote " backslash \\ end';
    const { overrides, env, notices } = await overridesFor(
      {
        mcps: {
          "my.server": {
            server: {
              type: "streamable-http",
              url: "https://dotted.example.com/mcp",
              headers: { "X-Api.Key": "k.1", Authorization: "Bearer t" },
            },
          },
          plain: {
            server: { type: "http", url: "https://plain.example.com/mcp", headers: { "X.Trace": quoted } },
          },
          "tool.v2": {
            server: {
              command: "C:\\tools\\run.exe",
              args: ['a "b"', "c\\d"],
              env: { "A.B": "1", C: quoted },
            },
          },
          clash: { server: { type: "http", url: "https://ours.example.com/mcp" } },
        },
      },
      {
        mcp_servers: {
          "req.level": {
            type: "http",
            url: "${{backend_url}}/mcp",
            headers: { Authorization: "Bearer ${{task_token}}" },
          },
        },
        backend_url: "https://backend.example.com",
        auth_token: "tok-1",
      },
    );
    expect(notices).toEqual([
      `MCP server "clash" is already defined in ${path.join(home.paths.codexHome, "config.toml")}; Gatehouse did not inject its own definition of it.`,
    ]);
    const servers = await mcpList(overrides, env);
    expect([...servers.keys()].sort()).toEqual([
      "clash",
      "mine",
      "my.server",
      "plain",
      "req.level",
      "their.tool",
      "tool.v2",
    ]);
    expect(servers.get("my.server")!.transport).toMatchObject({
      type: "streamable_http",
      url: "https://dotted.example.com/mcp",
      http_headers: { "X-Api.Key": "k.1", Authorization: "Bearer t" },
    });
    expect(servers.get("plain")!.transport).toMatchObject({
      type: "streamable_http",
      url: "https://plain.example.com/mcp",
      http_headers: { "X.Trace": quoted },
    });
    expect(servers.get("tool.v2")!.transport).toMatchObject({
      type: "stdio",
      command: "C:\\tools\\run.exe",
      args: ['a "b"', "c\\d"],
      env: { "A.B": "1", C: quoted },
    });
    // The task token stays off the command line: Codex takes the header from its environment.
    expect(overrides.join(" ")).not.toContain("tok-1");
    expect(servers.get("req.level")!.transport).toMatchObject({
      type: "streamable_http",
      url: "https://backend.example.com/mcp",
      http_headers: null,
      env_http_headers: { Authorization: "GATEHOUSE_MCP_HEADER_1" },
    });
    expect(env.GATEHOUSE_MCP_HEADER_1).toBe("Bearer tok-1");
    // The user's servers: untouched, the clashing one keeps the user's definition.
    expect(servers.get("mine")!.transport).toMatchObject({
      type: "stdio",
      command: "my-tool",
      args: ["--mine"],
    });
    expect(servers.get("clash")!.transport).toMatchObject({ type: "stdio", command: "users-own" });
    expect(servers.get("their.tool")!.transport).toMatchObject({ url: "https://theirs.example.com/mcp" });
    // config.toml is read, never written.
    expect(await fs.readFile(path.join(home.paths.codexHome, "config.toml"), "utf8")).toContain(
      'command = "users-own"',
    );
  });
});
