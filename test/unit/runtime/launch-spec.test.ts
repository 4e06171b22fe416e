import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolvePaths } from "../../../src/core/paths.js";
import {
  honoursHttpHookBlock,
  buildLaunchSpec,
  codexGateArgs,
  maskSpec,
  type LaunchInput,
  type LaunchSpec,
} from "../../../src/core/runtime/index.js";

const HOME = "/home/alice";
import { M1_MANIFEST } from "../../support/mcp-examples.js";
const paths = resolvePaths({ HOME });
const W = path.join(HOME, ".wegent-executor", "workspace");
const GATEHOUSE = ["/usr/local/bin/node", "/opt/Gate House/bin/gatehouse.js"];

const manifest = {
  version: 1,
  revision: 3,
  mcps: {
    docs: {
      installed_mcp_id: 7,
      server: {
        type: "streamable-http",
        url: "https://mcp.example.com/docs",
        base_url: "https://mcp.example.com/docs",
        headers: { Authorization: "Bearer test" },
      },
      managed: true,
    },
  },
};

function task(extra: Record<string, unknown> = {}, shellType = "ClaudeCode"): Record<string, unknown> {
  return {
    task_id: 123,
    subtask_id: 456,
    bot: [
      {
        shell_type: shellType,
        mcp_servers: {
          wegent: {
            type: "streamable-http",
            url: "${{backend_url}}/mcp",
            headers: { Authorization: "Bearer ${{task_token}}" },
            timeout: 12,
          },
        },
      },
    ],
    prompt: "Fix the build",
    auth_token: "task-token",
    backend_url: "https://backend.example.com",
    ...extra,
  };
}

function input(payload: unknown, extra: Partial<LaunchInput> = {}): LaunchInput {
  return {
    payload,
    manifest,
    workdir: "/home/alice/Projects/app",
    paths,
    settings: { version: 1 },
    gatehouseCommand: GATEHOUSE,
    promptTimeoutMs: 120_000,
    readTextFile: () => Promise.reject(Object.assign(new Error("missing"), { code: "ENOENT" })),
    ...extra,
  };
}

async function spec(payload: unknown, extra: Partial<LaunchInput> = {}) {
  const result = await buildLaunchSpec(input(payload, extra));
  if (!result.ok) throw new Error(result.error);
  return result;
}

function file(s: LaunchSpec, name: string): unknown {
  const found = s.files.find((f) => path.basename(f.path) === name);
  return found ? JSON.parse(found.content) : undefined;
}

describe("Claude Code launch spec", () => {
  it("runs one -p turn with stream-json output, user settings plus the task settings only, the MCP config and no tool pre-allowed; the prompt on stdin", async () => {
    const { runtime, spec: s } = await spec(task({ project_id: 5 }));
    const runtimeDir = path.join(HOME, ".wegent-executor", "runtime", "123");
    expect(runtime).toBe("claude-code");
    expect(s.command).toBe("claude");
    expect(s.args).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--setting-sources",
      "user",
      "--settings",
      path.join(runtimeDir, "settings.json"),
      "--mcp-config",
      path.join(runtimeDir, "mcp.json"),
    ]);
    expect(s.stdin).toBe("Fix the build");
    expect(s.cwd).toBe("/home/alice/Projects/app");
    expect(s.files.map((f) => [f.path, f.mode])).toEqual([
      [path.join(runtimeDir, "settings.json"), 0o600],
      [path.join(runtimeDir, "mcp.json"), 0o600],
    ]);
  });

  it("with the runner's HTTP hook, every tool call goes to its URL with the token written literally, blocked when the hook fails; no token in the environment", async () => {
    const hook = { url: "http://127.0.0.1:40001/hook/" + "a".repeat(48), token: "b".repeat(64) };
    const { spec: s } = await spec(task(), { claudeHttpHook: hook });
    const settings = file(s, "settings.json") as Record<string, unknown>;
    expect(settings).toEqual({
      disableAllHooks: false,
      allowedHttpHookUrls: [hook.url],
      hooks: {
        PreToolUse: [
          {
            matcher: "*",
            hooks: [
              {
                type: "http",
                url: hook.url,
                headers: { Authorization: `Bearer ${hook.token}` },
                onFailure: "block",
                timeout: 130,
              },
            ],
          },
        ],
      },
    });
    expect(JSON.stringify(s.env)).not.toContain(hook.token);
    expect(s.args).not.toContain(hook.token);
  });

  it("honoursHttpHookBlock: 2.1.332 and later block a call whose HTTP hook fails; 2.1.197 and unknown versions do not", () => {
    expect(["2.1.332", "2.1.400", "2.2.0", "3.0.0"].map(honoursHttpHookBlock)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["2.1.197", "2.1.331", "2.0.999", "1.9.9", "garbage"].map(honoursHttpHookBlock)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(honoursHttpHookBlock(null)).toBe(false);
  });

  it("M4: a project task's MCP config holds the bot server with its placeholders filled and the normalised global", async () => {
    const { spec: s } = await spec(task({ project_id: 5 }));
    expect(file(s, "mcp.json")).toEqual({
      mcpServers: {
        wegent: {
          type: "http",
          url: "https://backend.example.com/mcp",
          headers: { Authorization: "Bearer task-token" },
          timeout: 12000,
        },
        docs: {
          type: "http",
          url: "https://mcp.example.com/docs",
          headers: { Authorization: "Bearer test" },
        },
      },
    });
  });

  it("a project task uses CH as CLAUDE_CONFIG_DIR and CH/skills as SKILLS_DIR, and the hook finds its task", async () => {
    const { spec: s, task: facts } = await spec(task({ project_id: 5 }));
    expect(facts).toEqual({ taskId: 123, subtaskId: 456, projectId: "5", isProjectTask: true });
    expect(s.env).toEqual({
      CLAUDE_CONFIG_DIR: path.join(HOME, ".claude"),
      SKILLS_DIR: path.join(HOME, ".claude", "skills"),
      CLAUDE_SECURESTORAGE_CONFIG_DIR: "",
      GATEHOUSE_TASK_ID: "123",
      WEGENT_EXECUTOR_HOME: path.join(HOME, ".wegent-executor"),
    });
  });

  it("a non-project task gets its own Claude folder in Gatehouse's data, outside its working folder, and no global MCP servers", async () => {
    const { spec: s, task: facts } = await spec(task({ project_id: 0 }), { workdir: path.join(W, "123") });
    expect(facts.isProjectTask).toBe(false);
    const own = path.join(HOME, ".wegent-executor", "task-claude", "123");
    expect(s.env.CLAUDE_CONFIG_DIR).toBe(own);
    expect(s.env.SKILLS_DIR).toBe(path.join(own, "skills"));
    expect(path.relative(s.cwd, own).startsWith("..")).toBe(true);
    expect(path.relative(W, own).startsWith("..")).toBe(true);
    expect(Object.keys((file(s, "mcp.json") as { mcpServers: object }).mcpServers)).toEqual(["wegent"]);
  });

  it("a standalone chat with project id 0 and a workspace project id are project tasks", async () => {
    const standalone = await spec(task({ project_id: 0, standalone_chat_workspace: true }));
    expect(standalone.spec.env.CLAUDE_CONFIG_DIR).toBe(path.join(HOME, ".claude"));
    const nested = await spec(task({ workspace: { project: { project_id: 42 } } }));
    expect(nested.task.projectId).toBe("42");
    expect(Object.keys((file(nested.spec, "mcp.json") as { mcpServers: object }).mcpServers)).toEqual([
      "wegent",
      "docs",
    ]);
  });

  it("points Claude's login storage at a custom CH so the user's login is kept", async () => {
    const custom = resolvePaths({ HOME, CLAUDE_CONFIG_DIR: "/data/claude" });
    const { spec: s } = await spec(task(), { paths: custom });
    expect(s.env.CLAUDE_SECURESTORAGE_CONFIG_DIR).toBe("/data/claude");
  });

  it("registers gatehouse hook claude for every tool call, with the task's folder, hooks kept on and the prompt timeout plus 10 s", async () => {
    const { spec: s } = await spec(task());
    expect(file(s, "settings.json")).toEqual({
      disableAllHooks: false,
      hooks: {
        PreToolUse: [
          {
            matcher: "*",
            hooks: [
              {
                type: "command",
                command:
                  "/usr/local/bin/node '/opt/Gate House/bin/gatehouse.js' hook claude --agent claude-code --workdir /home/alice/Projects/app --timeout 120 || exit 2",
                timeout: 130,
              },
            ],
          },
        ],
      },
    });
    const slow = await spec(task(), { promptTimeoutMs: 1_800_500 });
    const hook = (
      file(slow.spec, "settings.json") as { hooks: { PreToolUse: { hooks: { timeout: number }[] }[] } }
    ).hooks.PreToolUse[0]!.hooks[0]!;
    expect(hook.timeout).toBe(1811);
  });

  it("resumes the previous session when given one and appends the bot's system prompt", async () => {
    const { spec: s } = await spec(task({ system_prompt: "-Be brief." }), { resumeId: "0b6c-session" });
    expect(s.args.slice(-3)).toEqual(["--append-system-prompt=-Be brief.", "--resume", "0b6c-session"]);
  });

  it("writes no MCP config when the task has no servers", async () => {
    const { spec: s } = await spec({ ...task(), bot: [{ shell_type: "ClaudeCode" }] });
    expect(s.args).not.toContain("--mcp-config");
    expect(s.files.map((f) => path.basename(f.path))).toEqual(["settings.json"]);
  });

  it("uses the Claude binary from the settings", async () => {
    const { spec: s } = await spec(task(), {
      settings: { version: 1, agents: { claudePath: "/opt/claude/bin/claude" } },
    });
    expect(s.command).toBe("/opt/claude/bin/claude");
  });

  it("reports content parts it cannot pass in the notices", async () => {
    const result = await spec(
      task({
        prompt: [
          { type: "text", text: "Look" },
          { type: "image", source: {} },
        ],
      }),
    );
    expect(result.spec.stdin).toBe("Look");
    expect(result.notices).toEqual([
      "1 non-text part(s) of the prompt (images, files) were not passed to claude-code.",
    ]);
  });
});

describe("Codex launch spec", () => {
  const M1 = M1_MANIFEST;
  const codexTask = (extra: Record<string, unknown> = {}) => ({
    ...task(extra, "Codex"),
    bot: [{ shell_type: "Codex" }],
  });

  const gate = codexGateArgs({
    gatehouseCommand: GATEHOUSE,
    workdir: "/home/alice/Projects/app",
    promptTimeoutMs: 120_000,
  });

  it("gates every turn: the hook on every tool call, hooks on, the folder untrusted, no TTY or login shell, no sandbox of its own", () => {
    expect(gate).toEqual([
      "--dangerously-bypass-hook-trust",
      "-c",
      "features.hooks=true",
      "-c",
      `hooks.PreToolUse=[{matcher="*",hooks=[{type="command",command="/usr/local/bin/node '/opt/Gate House/bin/gatehouse.js' hook codex --agent codex --workdir /home/alice/Projects/app --timeout 120 || exit 2",timeout=130}]}]`,
      "-c",
      'projects={"/home/alice/Projects/app"={trust_level="untrusted"}}',
      "-c",
      "features.unified_exec_tty=false",
      "-c",
      "allow_login_shell=false",
      "-c",
      'sandbox_mode="danger-full-access"',
      "-c",
      'approval_policy="never"',
    ]);
  });

  it("M1: runs codex exec --json with the manifest's overrides and the prompt as the last argument", async () => {
    const { runtime, spec: s, notices } = await spec(codexTask({ project_id: 9 }), { manifest: M1 });
    expect(runtime).toBe("codex");
    expect(s.command).toBe("codex");
    expect(s.args).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      ...gate,
      "-c",
      'mcp_servers.docs.url="https://mcp.example.com/docs"',
      "-c",
      'mcp_servers.docs.bearer_token_env_var="DOCS_TOKEN"',
      "-c",
      'mcp_servers.shell.command="uvx"',
      "-c",
      'mcp_servers.shell.args=["tool","--flag"]',
      "-c",
      'mcp_servers.shell.env.FOO="bar"',
      // the task's provenance key is for the hook, never for Codex's commands
      "-c",
      'shell_environment_policy.exclude=["GATEHOUSE_TASK_KEY"]',
      "--",
      "Fix the build",
    ]);
    expect(s.stdin).toBeNull();
    expect(s.files).toEqual([]);
    expect(s.env).toEqual({
      CODEX_HOME: path.join(HOME, ".codex"),
      GATEHOUSE_TASK_ID: "123",
      WEGENT_EXECUTOR_HOME: path.join(HOME, ".wegent-executor"),
    });
    expect(notices).toEqual([]);
  });

  it("gives a non-project task no global servers but still its request-level ones", async () => {
    const { spec: s } = await spec(
      codexTask({
        mcp_servers: {
          wegent: {
            type: "http",
            url: "${{backend_url}}/mcp",
            headers: { Authorization: "Bearer ${{task_token}}" },
          },
        },
      }),
      { manifest: M1 },
    );
    expect(s.args.filter((a, i) => s.args[i - 1] === "-c" && !gate.includes(a))).toEqual([
      'mcp_servers.wegent.url="https://backend.example.com/mcp"',
      'mcp_servers.wegent.env_http_headers.Authorization="GATEHOUSE_MCP_HEADER_1"',
      'shell_environment_policy.exclude=["GATEHOUSE_MCP_HEADER_1","GATEHOUSE_TASK_KEY"]',
    ]);
  });

  it("never puts the task token on the command line: headers and stdio variables that hold it go through Codex's environment", async () => {
    const { spec: s, notices } = await spec(
      codexTask({
        mcp_servers: {
          api: { url: "https://api/mcp", headers: { Authorization: "Bearer ${{task_token}}", X: "plain" } },
          tool: { command: "t", env: { WEGENT_TOKEN: "${{task_token}}", MODE: "fast" } },
          leaky: { url: "https://api/mcp?token=${{task_token}}" },
        },
      }),
    );
    expect(s.args.join(" ")).not.toContain("task-token");
    expect(s.args.filter((a, i) => s.args[i - 1] === "-c" && !gate.includes(a))).toEqual([
      'mcp_servers.api.url="https://api/mcp"',
      'mcp_servers.api.http_headers.X="plain"',
      'mcp_servers.api.env_http_headers.Authorization="GATEHOUSE_MCP_HEADER_1"',
      'mcp_servers.tool.command="t"',
      'mcp_servers.tool.env.MODE="fast"',
      'mcp_servers.tool.env_vars=["WEGENT_TOKEN"]',
      'shell_environment_policy.exclude=["GATEHOUSE_MCP_HEADER_1","WEGENT_TOKEN","GATEHOUSE_TASK_KEY"]',
    ]);
    expect(s.env).toMatchObject({ GATEHOUSE_MCP_HEADER_1: "Bearer task-token", WEGENT_TOKEN: "task-token" });
    expect(notices).toEqual([
      'MCP server "leaky" was not passed to Codex: its url holds the task token, which never goes on a command line.',
    ]);
  });

  it("reads the user's config.toml and does not inject a server it defines", async () => {
    const read = async (file: string) => {
      expect(file).toBe(path.join(HOME, ".codex", "config.toml"));
      return '[mcp_servers.shell]\ncommand = "my-shell"\n';
    };
    const { spec: s, notices } = await spec(codexTask({ project_id: 9 }), {
      manifest: M1,
      readTextFile: read,
    });
    expect(s.args.join(" ")).not.toContain("mcp_servers.shell");
    expect(notices).toEqual([
      `MCP server "shell" is already defined in ${path.join(HOME, ".codex", "config.toml")}; Gatehouse did not inject its own definition of it.`,
    ]);
  });

  it("resumes a thread and passes the system prompt as developer instructions", async () => {
    const { spec: s } = await spec(codexTask({ system_prompt: 'Say "ok"' }), { resumeId: "thread-1" });
    expect(s.args).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      ...gate,
      "-c",
      'developer_instructions="Say \\"ok\\""',
      "-c",
      'shell_environment_policy.exclude=["GATEHOUSE_TASK_KEY"]',
      "resume",
      "--",
      "thread-1",
      "Fix the build",
    ]);
  });
});

describe("errors and masking", () => {
  it("an unsupported shell type is an error value", async () => {
    expect(await buildLaunchSpec(input(task({}, "Agno")))).toEqual({
      ok: false,
      code: "unsupported_shell_type",
      error: "Unsupported shell type: Agno",
    });
  });

  it("an invalid payload is an error value naming the field", async () => {
    const result = await buildLaunchSpec(input({ task_id: "x", subtask_id: 1 }));
    expect(result).toMatchObject({ ok: false, code: "invalid_payload" });
  });

  it("keeps secrets in the real spec and masks the token, headers and env values for display", async () => {
    const payload = task({
      project_id: 5,
      mcp_servers: {
        tool: {
          command: "t",
          env: { API_KEY: "sk-live-123456" },
          args: ["--url", "https://u:pw12345@h/x?token=abcdef"],
        },
      },
    });
    const result = await spec(payload);
    expect(result.secrets).toEqual(
      expect.arrayContaining(["task-token", "Bearer task-token", "sk-live-123456"]),
    );
    const real = result.spec.files.map((f) => f.content).join("");
    expect(real).toContain("task-token");
    const masked = maskSpec(result.spec, result.secrets);
    const shown = JSON.stringify(masked);
    for (const secret of ["task-token", "sk-live-123456", "Bearer test", "pw12345", "abcdef"]) {
      expect(shown).not.toContain(secret);
    }
    expect(file(masked, "mcp.json")).toMatchObject({
      mcpServers: {
        docs: { headers: { Authorization: "[redacted]" } },
        tool: { env: { API_KEY: "[redacted]" } },
      },
    });
    expect(masked.args).toEqual(result.spec.args);
  });

  it("masks Codex header and env overrides, including inline tables", async () => {
    const payload = {
      ...task({ project_id: 1 }, "Codex"),
      bot: [{ shell_type: "Codex" }],
      mcp_servers: {
        a: { url: "https://a", headers: { "X.K": "hdr-secret-1" } },
        "b.c": { command: "b", env: { K: "env-secret-2" } },
        d: { command: "d", env: { K: "x" } },
      },
    };
    const result = await spec(payload, { manifest: {} });
    const masked = maskSpec(result.spec);
    expect(masked.args.filter((a, i) => masked.args[i - 1] === "-c" && a.startsWith("mcp_servers"))).toEqual([
      'mcp_servers={"b.c"={command="b",env={"K"="[redacted]"}}}',
      'mcp_servers.a.url="https://a"',
      'mcp_servers.a.http_headers={"X.K"="[redacted]"}',
      'mcp_servers.d.command="d"',
      'mcp_servers.d.env.K="[redacted]"',
    ]);
  });
});

describe("skills (skills.md §10)", () => {
  it("appends the skill instructions after the bot's system prompt and adds the env overlay under the spec's own variables", async () => {
    const result = await spec(task({ system_prompt: "Bot prompt." }), {
      skillInstructions: "<available_skills>…</available_skills>",
      envOverlay: { GITHUB_TOKEN: "ghp-overlay-secret", GATEHOUSE_TASK_ID: "spoofed" },
    });
    expect(result.spec.args).toContain(
      "--append-system-prompt=Bot prompt.\n\n<available_skills>…</available_skills>",
    );
    expect(result.spec.env.GITHUB_TOKEN).toBe("ghp-overlay-secret");
    expect(result.spec.env.GATEHOUSE_TASK_ID).toBe("123");
    expect(result.secrets).toContain("ghp-overlay-secret");
    expect(maskSpec(result.spec, result.secrets).env.GITHUB_TOKEN).toBe("[redacted]");
  });

  it("gives Codex the skill instructions as developer instructions", async () => {
    const result = await spec(
      { ...task({}, "Codex"), bot: [{ shell_type: "Codex" }] },
      { skillInstructions: "Use skills." },
    );
    expect(result.spec.args).toContain('developer_instructions="Use skills."');
  });
});

describe("task policy fields (docs/device-protocol-task-policy.md)", () => {
  it("security/ask of the task become flags of both runtimes' hook commands", async () => {
    const claude = await spec(task({ security: "allowlist", ask: "always" }));
    const hooks = file(claude.spec, "settings.json") as {
      hooks: { PreToolUse: { hooks: { command: string }[] }[] };
    };
    expect(hooks.hooks.PreToolUse[0]?.hooks[0]?.command).toContain(
      "--timeout 120 --security allowlist --ask always",
    );
    const codex = await spec(task({ security: "deny" }, "Codex"));
    expect(codex.spec.args.join(" ")).toContain("--timeout 120 --security deny");
    expect(codex.spec.args.join(" ")).not.toContain("--ask");
  });

  it("without them the hook command has no such flags", async () => {
    const claude = await spec(task({}));
    expect(JSON.stringify(file(claude.spec, "settings.json"))).not.toContain("--security");
  });
});
