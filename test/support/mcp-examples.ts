// The MCP manifest examples of device-protocol.md (§ MCP examples), shared by the unit and real-CLI tests that check them.

/** M1: a streamable-http server with a bearer variable (base_url is ignored) and a stdio server. */
export const M1_MANIFEST = {
  mcps: {
    docs: {
      server: {
        type: "streamable-http",
        url: "https://mcp.example.com/docs",
        base_url: "https://ignored.example.com/docs",
        bearer_token_env_var: "DOCS_TOKEN",
      },
    },
    shell: { server: { type: "stdio", command: "uvx", args: ["tool", "--flag"], env: { FOO: "bar" } } },
  },
};
