import { describe, expect, it } from "vitest";
import { claudeMcpConfig } from "../../../src/core/runtime/claude-mcp-config.js";
import {
  compareCodePoints,
  mergeServers,
  parseManifestMcps,
  serversFromValue,
  taskMcpServers,
} from "../../../src/core/runtime/mcp-servers.js";
import { parseTaskPayload, type TaskPayload } from "../../../src/core/runtime/task-payload.js";

function payload(extra: Record<string, unknown>): TaskPayload {
  const parsed = parseTaskPayload({ task_id: 1, subtask_id: 1, ...extra });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.payload;
}

const manifest = parseManifestMcps({
  mcps: {
    zeta: { server: { type: "stdio", command: "z" }, managed: true },
    alpha: { server: { type: "sse", url: "https://a.example.com" }, managed: true },
  },
});

function names(p: TaskPayload, isProjectTask: boolean): string[] {
  return taskMcpServers(p, manifest, { isProjectTask, recordFallback: true }).servers.map((s) => s.name);
}

describe("collecting MCP servers (device-protocol.md §8.3 step 1)", () => {
  const bots = [
    { shell_type: "ClaudeCode", mcp_servers: { one: { command: "1" } } },
    { shell_type: "ClaudeCode", mcp_servers: { two: { command: "2" } } },
  ];

  it("takes the first bot's servers, then the request's, then the manifest's for a project task", () => {
    expect(names(payload({ bot: bots, mcp_servers: { req: { command: "r" } } }), true)).toEqual([
      "one",
      "req",
      "alpha",
      "zeta",
    ]);
  });

  it("takes every bot's servers in coordinate mode", () => {
    expect(names(payload({ bot: bots, mode: "coordinate" }), false)).toEqual(["one", "two"]);
  });

  it("gives a non-project task no global MCP servers", () => {
    expect(names(payload({ bot: bots, mcp_servers: { req: { command: "r" } } }), false)).toEqual([
      "one",
      "req",
    ]);
  });

  it("reads server lists, name maps and maps nested under mcpServers", () => {
    expect(
      serversFromValue([{ name: "a", command: "x" }, { command: "nameless" }]).map((s) => s.name),
    ).toEqual(["a"]);
    expect(serversFromValue({ mcpServers: { b: { command: "x" } } }).map((s) => s.name)).toEqual(["b"]);
    expect(serversFromValue({ c: { command: "x" }, junk: "not a server" }).map((s) => s.name)).toEqual(["c"]);
  });

  it("uses a manifest record itself when its server is not an object (Claude Code), and skips it for Codex", () => {
    const odd = parseManifestMcps({
      mcps: { raw: { type: "http", url: "https://r.example.com", managed: true } },
    });
    const p = payload({});
    expect(taskMcpServers(p, odd, { isProjectTask: true, recordFallback: true }).servers).toEqual([
      { name: "raw", server: { type: "http", url: "https://r.example.com", managed: true, name: "raw" } },
    ]);
    expect(taskMcpServers(p, odd, { isProjectTask: true, recordFallback: false }).servers).toEqual([]);
  });

  it("treats a manifest whose mcps section is not an object as having none", () => {
    expect(parseManifestMcps({ mcps: [1, 2] })).toMatchObject({ mcps: {} });
    expect(parseManifestMcps("garbage")).toEqual({ mcps: {} });
  });
});

describe("merging by name (step 2)", () => {
  it("lets a later entry replace an earlier one but keep the earlier headers when its own are missing or empty", () => {
    const merged = mergeServers([
      { name: "docs", server: { type: "http", url: "https://old", headers: { A: "1" }, timeout: 5 } },
      { name: "docs", server: { type: "http", url: "https://new", headers: {} } },
    ]);
    expect(merged).toEqual([
      { name: "docs", server: { type: "http", url: "https://new", headers: { A: "1" }, timeout: 5 } },
    ]);
  });

  it("keeps the later entry's own headers and timeout when it has them", () => {
    const merged = mergeServers([
      { name: "docs", server: { url: "https://old", headers: { A: "1" }, timeout: 5 } },
      { name: "docs", server: { url: "https://new", headers: { B: "2" }, timeout_seconds: 9 } },
    ]);
    expect(merged[0]!.server).toEqual({ url: "https://new", headers: { B: "2" }, timeout_seconds: 9 });
  });

  it("lets a global server replace a request server of the same name in a project task", () => {
    const p = payload({
      mcp_servers: { alpha: { type: "sse", url: "https://request", headers: { H: "h" } } },
    });
    const servers = taskMcpServers(p, manifest, { isProjectTask: true, recordFallback: true }).servers;
    expect(servers[0]).toEqual({
      name: "alpha",
      server: { type: "sse", url: "https://a.example.com", headers: { H: "h" }, name: "alpha" },
    });
  });
});

describe("placeholders (step 3)", () => {
  it("substitutes ${{backend_url}} and ${{task_token}} in every string and leaves others alone", () => {
    const p = payload({
      backend_url: "https://backend.example.com",
      auth_token: "task-token",
      mcp_servers: {
        wegent: {
          type: "streamable-http",
          url: "${{backend_url}}/mcp",
          headers: { Authorization: "Bearer ${{task_token}}", X: "${{user_name}}" },
        },
        tool: { command: "run", args: ["--token=${{task_token}}"] },
      },
    });
    const { servers, notices } = taskMcpServers(p, manifest, { isProjectTask: false, recordFallback: true });
    expect(claudeMcpConfig(servers).mcpServers).toEqual({
      wegent: {
        type: "http",
        url: "https://backend.example.com/mcp",
        headers: { Authorization: "Bearer task-token", X: "${{user_name}}" },
      },
      tool: { type: "stdio", command: "run", args: ["--token=task-token"] },
    });
    expect(notices).toEqual([]);
  });

  it("drops a trailing slash of the backend URL so ${{backend_url}}/mcp has one slash", () => {
    const p = payload({
      backend_url: "https://b.example.com/api/",
      mcp_servers: { w: { url: "${{backend_url}}/mcp" } },
    });
    const { servers } = taskMcpServers(p, manifest, { isProjectTask: false, recordFallback: true });
    expect(servers[0]!.server.url).toBe("https://b.example.com/api/mcp");
  });

  it("leaves a placeholder whose value the task lacks and says so", () => {
    const p = payload({
      mcp_servers: { w: { headers: { Authorization: "Bearer ${{task_token}}" }, type: "http" } },
    });
    const { servers, notices } = taskMcpServers(p, manifest, { isProjectTask: false, recordFallback: true });
    expect(servers[0]!.server.headers).toEqual({ Authorization: "Bearer ${{task_token}}" });
    expect(notices).toEqual([
      "The task has no task_token: MCP server placeholders ${{task_token}} were left as they are.",
    ]);
  });
});

describe("code point order", () => {
  it("sorts characters above U+FFFF after U+FFFF, unlike UTF-16 order", () => {
    expect(["\u{1F600}", "\uFFFF", "a"].sort(compareCodePoints)).toEqual(["a", "\uFFFF", "\u{1F600}"]);
  });
});
