// The Claude Code MCP configuration (device-protocol.md §8.3 step 4): each server normalised to the
// shape Claude Code reads from `--mcp-config` (and the Agent SDK's `mcpServers` option).
import { type McpServer, type NamedMcpServer } from "./mcp-servers.js";
import { isRecord } from "../../shared/is-record.js";

/** OAuth and bearer fields are passed through exactly as given. */
const PASS_THROUGH = [
  "bearer_token_env_var",
  "bearerTokenEnvVar",
  "oauth_client_id",
  "oauthClientId",
  "oauth_resource",
  "oauthResource",
] as const;

function asNumber(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** `timeout_seconds`/`timeoutSeconds` × 1000 win; a `timeout` below 1000 is seconds, from 1000 on ms. */
export function timeoutMs(server: McpServer): number | undefined {
  const seconds = asNumber(server.timeout_seconds) ?? asNumber(server.timeoutSeconds);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  const timeout = asNumber(server.timeout);
  if (timeout === undefined) return undefined;
  return timeout < 1000 ? Math.round(timeout * 1000) : timeout;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** Values Claude Code accepts only as strings (stdio args and env). */
export function stringValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return JSON.stringify(value);
}

export function normaliseClaudeServer(input: McpServer): McpServer {
  const { name: _name, ...server } = input;
  const type = server.type === "streamable-http" ? "http" : server.type;
  if (type === "http" || type === "sse") {
    const out: McpServer = { type };
    const url = text(server.url) ?? text(server.base_url);
    if (url !== undefined) out.url = url;
    const headers = isRecord(server.headers) ? server.headers : server.http_headers;
    if (isRecord(headers) && Object.keys(headers).length > 0) out.headers = headers;
    const timeout = timeoutMs(server);
    if (timeout !== undefined) out.timeout = timeout;
    for (const key of PASS_THROUGH) if (server[key] !== undefined) out[key] = server[key];
    return out;
  }
  if (type === "stdio" || (type === undefined && server.command !== undefined)) {
    const out: McpServer = { type: "stdio", command: server.command };
    if (Array.isArray(server.args)) out.args = server.args.map(stringValue);
    if (isRecord(server.env)) {
      out.env = Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, stringValue(v)]));
    }
    // Claude Code 2.1.197 connects MCP servers without waiting unless `alwaysLoad`; the model's first
    // request would otherwise go out before the server's tools exist.
    if (server.alwaysLoad === true) out.alwaysLoad = true;
    return out;
  }
  return server;
}

/** `{ mcpServers: { <name>: <server> } }`, in the given order. */
export function claudeMcpConfig(servers: NamedMcpServer[]): { mcpServers: Record<string, McpServer> } {
  return {
    mcpServers: Object.fromEntries(servers.map(({ name, server }) => [name, normaliseClaudeServer(server)])),
  };
}
