import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { codexMcpOverrides, userCodexServerNames } from "../../../src/core/runtime/codex-overrides.js";
import { manifestServers, parseManifestMcps } from "../../../src/core/runtime/mcp-servers.js";
import { hasLoneSurrogate, tomlArray, tomlString } from "../../../src/core/runtime/toml-value.js";
import { M1_MANIFEST } from "../../support/mcp-examples.js";

const M1 = M1_MANIFEST;

function overridesFor(servers: Record<string, Record<string, unknown>>, user = new Set<string>()) {
  return codexMcpOverrides(
    Object.entries(servers).map(([name, server]) => ({ name, server })),
    user,
    "/home/u/.codex/config.toml",
  );
}

describe("Codex -c overrides (device-protocol.md §8.4)", () => {
  it("M1: the manifest gives exactly these five -c pairs, in this order", () => {
    const result = codexMcpOverrides(manifestServers(parseManifestMcps(M1), false));
    expect(result.args).toEqual([
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
    ]);
    expect(result.notices).toEqual([]);
  });

  it("sorts servers by name and emits url fields in their order, headers sorted by name", () => {
    const result = overridesFor({
      zed: { command: "z" },
      api: {
        base_url: " https://api.example.com ",
        oauthResource: "res",
        oauthClientId: "cid",
        bearerTokenEnvVar: "TOK",
        headers: { "X-B": "2", Authorization: "Bearer t" },
        type: "http",
        timeout: 5,
      },
    });
    expect(result.overrides).toEqual([
      'mcp_servers.api.url="https://api.example.com"',
      'mcp_servers.api.bearer_token_env_var="TOK"',
      'mcp_servers.api.oauth_client_id="cid"',
      'mcp_servers.api.oauth_resource="res"',
      'mcp_servers.api.http_headers.Authorization="Bearer t"',
      'mcp_servers.api.http_headers.X-B="2"',
      'mcp_servers.zed.command="z"',
    ]);
  });

  it("converts args and env values to strings and sorts env keys", () => {
    expect(overridesFor({ s: { command: "c", args: [1, true], env: { B: 2, A: "a" } } }).overrides).toEqual([
      'mcp_servers.s.command="c"',
      'mcp_servers.s.args=["1","true"]',
      'mcp_servers.s.env.A="a"',
      'mcp_servers.s.env.B="2"',
    ]);
  });

  it("writes a header map with a dotted name whole, as one inline table with quoted keys", () => {
    expect(
      overridesFor({ docs: { url: "https://x", headers: { "X-Api.Key": "k", Authorization: "Bearer t" } } })
        .overrides,
    ).toEqual([
      'mcp_servers.docs.url="https://x"',
      'mcp_servers.docs.http_headers={"Authorization"="Bearer t","X-Api.Key"="k"}',
    ]);
  });

  it("writes an env map with a non-bare variable name whole", () => {
    expect(overridesFor({ s: { command: "c", env: { "A B": "1" } } }).overrides).toEqual([
      'mcp_servers.s.command="c"',
      'mcp_servers.s.env={"A B"="1"}',
    ]);
  });

  it("writes servers with non-bare names whole, all in one mcp_servers override placed first", () => {
    const result = overridesFor({
      "my.server": { url: "https://x" },
      plain: { command: "p" },
      "b.c": { command: "u", env: { K: "v" } },
    });
    expect(result.overrides).toEqual([
      'mcp_servers={"b.c"={command="u",env={"K"="v"}},"my.server"={url="https://x"}}',
      'mcp_servers.plain.command="p"',
    ]);
    expect(result.injected).toEqual(["b.c", "my.server", "plain"]);
  });

  it("encodes quotes, backslashes, control characters and DEL as valid TOML", () => {
    const value = 'say "hi" \\ path\n\t\u0001\u007f é 😀';
    const [override] = overridesFor({ s: { command: value } }).overrides;
    expect(override).toBe('mcp_servers.s.command="say \\"hi\\" \\\\ path\\n\\t\\u0001\\u007f é 😀"');
    const parsed = parseToml(`v = ${override!.slice(override!.indexOf("=") + 1)}`);
    expect(parsed.v).toBe(value);
  });

  it("skips a server with a blank command or no URL and says why", () => {
    const result = overridesFor({ a: { command: "  " }, b: { type: "http", url: " ", base_url: "" } });
    expect(result.args).toEqual([]);
    expect(result.notices).toEqual([
      'MCP server "a" was not passed to Codex: it has no command.',
      'MCP server "b" was not passed to Codex: it has no URL.',
    ]);
  });

  it("skips a server holding an unpaired surrogate anywhere and keeps the others", () => {
    const result = overridesFor({
      bad: { url: "https://x", headers: { H: "\uD800" } },
      "bad\uDC00name": { url: "https://y" },
      good: { url: "https://z" },
    });
    expect(result.overrides).toEqual(['mcp_servers.good.url="https://z"']);
    expect(result.notices).toHaveLength(2);
    expect(result.notices[0]).toMatch(/^MCP server "bad" was not passed to Codex: .*unpaired surrogate/);
  });

  it("does not inject a server the user's config.toml already defines, and says so", () => {
    const user = userCodexServerNames(
      '[mcp_servers.docs]\ncommand = "mine"\n[mcp_servers."my.tool"]\nurl = "https://m"\n',
    );
    expect([...user.names]).toEqual(["docs", "my.tool"]);
    const result = overridesFor(
      { docs: { url: "https://x" }, "my.tool": { url: "https://y" }, other: { command: "o" } },
      user.names,
    );
    expect(result.overrides).toEqual(['mcp_servers.other.command="o"']);
    expect(result.notices).toEqual([
      'MCP server "docs" is already defined in /home/u/.codex/config.toml; Gatehouse did not inject its own definition of it.',
      'MCP server "my.tool" is already defined in /home/u/.codex/config.toml; Gatehouse did not inject its own definition of it.',
    ]);
  });

  it("lets Codex run only the pre-approved tools of a server Gatehouse marks, without asking", () => {
    const result = codexMcpOverrides([
      {
        name: "gatehouse-skills",
        server: { command: "gh", args: ["skills", "mcp"] },
        codexApprovedTools: ["Skill"],
      },
      { name: "odd.name", server: { command: "o" }, codexApprovedTools: ["Skill"] },
    ]);
    expect(result.overrides).toEqual([
      'mcp_servers={"odd.name"={command="o",enabled_tools=["Skill"],tools.Skill.approval_mode="approve"}}',
      'mcp_servers.gatehouse-skills.command="gh"',
      'mcp_servers.gatehouse-skills.args=["skills","mcp"]',
      'mcp_servers.gatehouse-skills.enabled_tools=["Skill"]',
      'mcp_servers.gatehouse-skills.tools.Skill.approval_mode="approve"',
    ]);
    // what Codex reads: the same table either way
    const table = parseToml(result.overrides[0]!.replace(/^mcp_servers=/, "x=")) as {
      x: Record<string, unknown>;
    };
    expect(table.x["odd.name"]).toEqual({
      command: "o",
      enabled_tools: ["Skill"],
      tools: { Skill: { approval_mode: "approve" } },
    });
  });

  it("never takes an approval setting from a server's own definition", () => {
    const result = overridesFor({
      evil: {
        command: "e",
        default_tools_approval_mode: "approve",
        tools: { run: { approval_mode: "approve" } },
        enabled_tools: ["run"],
        codexApprovedTools: ["run"],
      },
    });
    expect(result.overrides).toEqual(['mcp_servers.evil.command="e"']);
  });

  it("leaves out a marked server whose pre-approved tool name is not a bare key, and says why", () => {
    const result = codexMcpOverrides([{ name: "s", server: { command: "c" }, codexApprovedTools: ["a.b"] }]);
    expect(result.overrides).toEqual([]);
    expect(result.notices).toEqual([
      'MCP server "s" was not passed to Codex: a pre-approved tool name is not a bare TOML key.',
    ]);
  });

  it("reads no servers from a missing or unparsable config.toml", () => {
    expect(userCodexServerNames(null).names.size).toBe(0);
    const broken = userCodexServerNames("[mcp_servers.docs\n");
    expect(broken.names.size).toBe(0);
    expect(broken.error).toBeTruthy();
  });
});

describe("TOML values", () => {
  it("round-trips every well-formed string through a TOML parser", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.array(fc.string({ unit: "binary" })), (text, items) => {
        expect(parseToml(`v = ${tomlString(text)}`).v).toBe(text);
        const array = tomlArray(items);
        if (items.some(hasLoneSurrogate)) expect(array).toBeNull();
        else expect(parseToml(`v = ${array}`).v).toEqual(items);
      }),
    );
  });

  it("refuses a string with an unpaired surrogate", () => {
    expect(tomlString("a\uD83Db")).toBeNull();
    expect(tomlString("\uD83D\uDE00")).toBe('"😀"');
  });
});
