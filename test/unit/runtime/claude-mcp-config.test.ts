import { describe, expect, it } from "vitest";
import { claudeMcpConfig, normaliseClaudeServer } from "../../../src/core/runtime/claude-mcp-config.js";

describe("Claude Code MCP normalisation (device-protocol.md §8.3 step 4)", () => {
  it("M4: a global streamable-http server becomes an http server with url and headers only", () => {
    const config = claudeMcpConfig([
      {
        name: "docs",
        server: {
          type: "streamable-http",
          url: "https://mcp.example.com/docs",
          base_url: "https://mcp.example.com/docs",
          headers: { Authorization: "Bearer test" },
          name: "docs",
        },
      },
    ]);
    expect(JSON.stringify(config.mcpServers.docs)).toBe(
      '{"type":"http","url":"https://mcp.example.com/docs","headers":{"Authorization":"Bearer test"}}',
    );
  });

  it.each([
    [{ timeout_seconds: 60 }, 60000],
    [{ timeoutSeconds: 60, timeout: 5 }, 60000],
    [{ timeout: 12 }, 12000],
    [{ timeout: 12000 }, 12000],
    [{ timeout: 999 }, 999000],
    [{ timeout: 1000 }, 1000],
    [{ timeout: "30" }, 30000],
  ])("M4 timeouts: %j gives timeout %i ms", (fields, expected) => {
    expect(normaliseClaudeServer({ type: "http", url: "https://x", ...fields }).timeout).toBe(expected);
  });

  it("leaves out a missing, zero or non-numeric timeout and empty headers", () => {
    expect(normaliseClaudeServer({ type: "sse", url: "https://x", timeout: 0, headers: {} })).toEqual({
      type: "sse",
      url: "https://x",
    });
    expect(normaliseClaudeServer({ type: "sse", url: "https://x", timeout: "soon" })).toEqual({
      type: "sse",
      url: "https://x",
    });
  });

  it("takes base_url when there is no url", () => {
    expect(normaliseClaudeServer({ type: "http", base_url: "https://base" })).toEqual({
      type: "http",
      url: "https://base",
    });
  });

  it("keeps the bearer and oauth fields exactly as given and drops everything else", () => {
    expect(
      normaliseClaudeServer({
        type: "http",
        url: "https://x",
        bearer_token_env_var: "T",
        bearerTokenEnvVar: "T2",
        oauth_client_id: "c",
        oauthClientId: "c2",
        oauth_resource: "r",
        oauthResource: "r2",
        installed_mcp_id: 7,
        description: "dropped",
      }),
    ).toEqual({
      type: "http",
      url: "https://x",
      bearer_token_env_var: "T",
      bearerTokenEnvVar: "T2",
      oauth_client_id: "c",
      oauthClientId: "c2",
      oauth_resource: "r",
      oauthResource: "r2",
    });
  });

  it("makes a server with a command, or of type stdio, a stdio server with string args and env", () => {
    expect(
      normaliseClaudeServer({
        command: "uvx",
        args: ["tool", 3],
        env: { N: 1, S: "s" },
        cwd: "/x",
        name: "n",
      }),
    ).toEqual({ type: "stdio", command: "uvx", args: ["tool", "3"], env: { N: "1", S: "s" } });
    expect(normaliseClaudeServer({ type: "stdio", command: "c" })).toEqual({ type: "stdio", command: "c" });
  });

  it("leaves any other server unchanged apart from its name", () => {
    expect(normaliseClaudeServer({ type: "websocket", url: "ws://x", name: "w", extra: 1 })).toEqual({
      type: "websocket",
      url: "ws://x",
      extra: 1,
    });
  });
});
