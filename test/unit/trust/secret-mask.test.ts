import { describe, expect, it } from "vitest";
import type { LaunchSpec } from "../../../src/core/runtime/index.js";
import { maskSpec } from "../../../src/core/runtime/index.js";
import { maskSecrets } from "../../../src/core/secret-mask.js";

describe("the secret masker", () => {
  it("masks every value of a header or environment map, in each spelling, and reports what it masked", () => {
    const found = new Set<string>();
    const masked = maskSecrets(
      {
        headers: { A: "h-secret-1" },
        http_headers: { B: "h-secret-2" },
        env: { C: "e-secret-3" },
        environment: { D: "e-secret-4" },
        command: "server",
      },
      found,
    );
    expect(masked).toEqual({
      headers: { A: "[redacted]" },
      http_headers: { B: "[redacted]" },
      env: { C: "[redacted]" },
      environment: { D: "[redacted]" },
      command: "server",
    });
    expect([...found].sort()).toEqual(["e-secret-3", "e-secret-4", "h-secret-1", "h-secret-2"]);
  });

  it("masks secret-named keys and flags and URL credentials, and shows the names of variables and auth kinds", () => {
    const masked = maskSecrets({
      api_key: "k-123456",
      auth_type: "oauth",
      bearer_token_env_var: "GITHUB_TOKEN",
      env_http_headers: { Authorization: "MCP_AUTH_HEADER" },
      args: [
        "--token",
        "t-123456",
        "--api-key=a-123456",
        "--verbose",
        "https://u:pw123456@h/x?token=q-123456&page=2",
      ],
    });
    expect(masked).toEqual({
      api_key: "[redacted]",
      auth_type: "oauth",
      bearer_token_env_var: "GITHUB_TOKEN",
      env_http_headers: { Authorization: "MCP_AUTH_HEADER" },
      args: [
        "--token",
        "[redacted]",
        "--api-key=[redacted]",
        "--verbose",
        "https://[redacted]:[redacted]@h/x?token=[redacted]&page=2",
      ],
    });
  });

  it("masks an MCP server's environment map in a launch spec, and the same value wherever else it appears", () => {
    const config = { mcpServers: { tool: { command: "t", environment: { KEY: "env-secret-77" } } } };
    const spec: LaunchSpec = {
      command: "claude",
      args: ["--append", "env-secret-77"],
      env: {},
      cwd: "/tmp",
      stdin: null,
      files: [{ path: "/tmp/mcp.json", content: JSON.stringify(config), mode: 0o600 }],
    };
    const masked = maskSpec(spec);
    expect(JSON.parse(masked.files[0]!.content)).toEqual({
      mcpServers: { tool: { command: "t", environment: { KEY: "[redacted]" } } },
    });
    expect(masked.args).toEqual(["--append", "[redacted]"]);
  });
});
