// MCP servers for Codex as `-c key=value` overrides (device-protocol.md §8.4). Codex splits `-c` keys
// on every dot and keeps quote characters literally, so a key segment is written bare or not at all:
// a map with a non-bare key is written whole as one inline table, and servers whose names are not bare
// go whole into one `mcp_servers={…}` override. That override comes first and holds every such server:
// each `-c` is applied in order onto one override layer, so a second `mcp_servers={…}` would replace the
// first and any `mcp_servers.<name>.…` keys set before it (checked with codex-cli 0.169).
import { parse as parseToml } from "smol-toml";
import { stringValue } from "./claude-mcp-config.js";
import { compareCodePoints, type McpServer, type NamedMcpServer } from "./mcp-servers.js";
import { hasLoneSurrogate, isBareKey, tomlArray, tomlKey, tomlString } from "./toml-value.js";
import { isRecord } from "../../shared/is-record.js";

type Field =
  | { field: string; kind: "string"; value: string }
  | { field: string; kind: "array"; value: string[] }
  | { field: string; kind: "map"; value: Array<[string, string]> };

type FieldsResult = { ok: true; fields: Field[] } | { ok: false; reason: string };

function sortedMap(value: unknown): Array<[string, string]> {
  if (!isRecord(value)) return [];
  return Object.keys(value)
    .sort(compareCodePoints)
    .map((key) => [key, stringValue(value[key])]);
}

function firstPresent(server: McpServer, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = server[key];
    if (value !== undefined && value !== null) return stringValue(value);
  }
  return undefined;
}

/** The fields Codex gets for one server, in emission order (`type` is never emitted). */
export function codexServerFields(server: McpServer): FieldsResult {
  const fields: Field[] = [];
  if (server.type === "stdio" || server.command !== undefined) {
    const command = stringValue(server.command);
    if (command.trim() === "") return { ok: false, reason: "it has no command" };
    fields.push({ field: "command", kind: "string", value: command });
    if (Array.isArray(server.args)) {
      fields.push({ field: "args", kind: "array", value: server.args.map(stringValue) });
    }
    const env = sortedMap(server.env);
    if (env.length > 0) fields.push({ field: "env", kind: "map", value: env });
    return { ok: true, fields };
  }
  const url = [server.url, server.base_url]
    .map((v) => (typeof v === "string" ? v.trim() : ""))
    .find((v) => v !== "");
  if (!url) return { ok: false, reason: "it has no URL" };
  fields.push({ field: "url", kind: "string", value: url });
  const optional: Array<[string, string[]]> = [
    ["bearer_token_env_var", ["bearer_token_env_var", "bearerTokenEnvVar"]],
    ["oauth_client_id", ["oauth_client_id", "oauthClientId"]],
    ["oauth_resource", ["oauth_resource", "oauthResource"]],
  ];
  for (const [field, keys] of optional) {
    const value = firstPresent(server, keys);
    if (value !== undefined) fields.push({ field, kind: "string", value });
  }
  const headers = sortedMap(isRecord(server.headers) ? server.headers : server.http_headers);
  if (headers.length > 0) fields.push({ field: "http_headers", kind: "map", value: headers });
  return { ok: true, fields };
}

function quotedMap(entries: Array<[string, string]>): string {
  return `{${entries.map(([k, v]) => `${tomlString(k)}=${tomlString(v)}`).join(",")}}`;
}

function encodeValue(field: Field): string {
  if (field.kind === "string") return tomlString(field.value)!;
  if (field.kind === "array") return tomlArray(field.value)!;
  return quotedMap(field.value);
}

/** `mcp_servers.<name>.<field>[.<key>]=<value>` for a server whose name is bare. */
function dottedOverrides(name: string, fields: Field[]): string[] {
  const out: string[] = [];
  for (const field of fields) {
    const prefix = `mcp_servers.${name}.${field.field}`;
    if (field.kind === "map" && field.value.every(([key]) => isBareKey(key))) {
      for (const [key, value] of field.value) out.push(`${prefix}.${key}=${tomlString(value)}`);
    } else {
      out.push(`${prefix}=${encodeValue(field)}`);
    }
  }
  return out;
}

/** `{url="…",http_headers={…}}`: one server as an inline table. */
function serverTable(fields: Field[]): string {
  return `{${fields.map((f) => `${f.field}=${encodeValue(f)}`).join(",")}}`;
}

function fieldsHaveLoneSurrogate(fields: Field[]): boolean {
  return fields.some((f) =>
    f.kind === "string"
      ? hasLoneSurrogate(f.value)
      : f.kind === "array"
        ? f.value.some(hasLoneSurrogate)
        : f.value.some(([k, v]) => hasLoneSurrogate(k) || hasLoneSurrogate(v)),
  );
}

export interface CodexOverrides {
  /** Flat argv: `-c`, `key=value`, `-c`, … */
  args: string[];
  /** The `key=value` texts, in order. */
  overrides: string[];
  /** Names of the servers injected. */
  injected: string[];
  notices: string[];
  /**
   * Variables to set in Codex's own environment: the values that must stay off the command line
   * (`offCommandLine`), which the overrides name instead (`env_http_headers`, `env_vars`).
   */
  env: Record<string, string>;
}

export interface OffCommandLine {
  /** Values (the task token) that never appear in argv, where every local user can read them. */
  secrets: readonly string[];
}

/** Prefix of the variables that carry a header value to Codex (`env_http_headers`). */
export const HEADER_VARIABLE_PREFIX = "GATEHOUSE_MCP_HEADER_";

type Moved = { ok: true; fields: Field[] } | { ok: false; reason: string };

/**
 * Moves header and stdio env values that hold a secret into Codex's environment: a header becomes
 * `env_http_headers.<Name>="<variable>"`, a stdio variable is passed through by name (`env_vars`). A
 * secret anywhere else (URL, command, arguments) cannot be moved: the server is left out.
 */
function moveSecrets(fields: Field[], secrets: readonly string[], env: Record<string, string>): Moved {
  const holds = (value: string) => secrets.some((secret) => secret !== "" && value.includes(secret));
  const out: Field[] = [];
  for (const field of fields) {
    if (field.kind === "map" && (field.field === "http_headers" || field.field === "env")) {
      const kept = field.value.filter(([, value]) => !holds(value));
      const moved = field.value.filter(([, value]) => holds(value));
      if (kept.length > 0) out.push({ ...field, value: kept });
      if (moved.length === 0) continue;
      if (field.field === "http_headers") {
        const named: Array<[string, string]> = moved.map(([header, value]) => {
          const variable = `${HEADER_VARIABLE_PREFIX}${Object.keys(env).length + 1}`;
          env[variable] = value;
          return [header, variable];
        });
        out.push({ field: "env_http_headers", kind: "map", value: named });
      } else {
        for (const [name, value] of moved) {
          if (env[name] !== undefined && env[name] !== value)
            return { ok: false, reason: `another server already passes ${name} with another value` };
          env[name] = value;
        }
        out.push({ field: "env_vars", kind: "array", value: moved.map(([name]) => name) });
      }
      continue;
    }
    const values = field.kind === "string" ? [field.value] : field.kind === "array" ? field.value : [];
    if (values.some(holds))
      return {
        ok: false,
        reason: `its ${field.field} holds the task token, which never goes on a command line`,
      };
    out.push(field);
  }
  return { ok: true, fields: out };
}

/**
 * Codex 0.169 asks before every MCP tool call, and `codex exec` (approval policy "never") then refuses it
 * ("MCP tool call requires approval, but approval policy is never"). For Gatehouse's own server the
 * listed tools are the only ones offered (`enabled_tools`) and run without asking
 * (`tools.<t>.approval_mode="approve"`). Only Gatehouse sets this, for its Skill server.
 */
function approvedToolFields(tools: readonly string[] | undefined): FieldsResult {
  if (!tools || tools.length === 0) return { ok: true, fields: [] };
  if (!tools.every(isBareKey))
    return { ok: false, reason: "a pre-approved tool name is not a bare TOML key" };
  return {
    ok: true,
    fields: [
      { field: "enabled_tools", kind: "array", value: [...tools] },
      ...tools.map((tool): Field => ({
        field: `tools.${tool}.approval_mode`,
        kind: "string",
        value: "approve",
      })),
    ],
  };
}

/**
 * Overrides for the given servers, sorted by name. `userServers`: names already defined in the user's
 * `XH/config.toml`; those are not injected (Codex would merge both definitions field by field).
 */
export function codexMcpOverrides(
  servers: NamedMcpServer[],
  userServers: ReadonlySet<string> = new Set(),
  configFile = "config.toml",
  offCommandLine: OffCommandLine = { secrets: [] },
): CodexOverrides {
  const env: Record<string, string> = {};
  const notices: string[] = [];
  const quotedServers: string[] = [];
  const dotted: string[] = [];
  const injected: string[] = [];
  for (const { name, server, codexApprovedTools } of [...servers].sort((a, b) =>
    compareCodePoints(a.name, b.name),
  )) {
    if (userServers.has(name)) {
      notices.push(
        `MCP server "${name}" is already defined in ${configFile}; Gatehouse did not inject its own definition of it.`,
      );
      continue;
    }
    const fields = codexServerFields(server);
    const staged = { ...env };
    const result = fields.ok ? moveSecrets(fields.fields, offCommandLine.secrets, staged) : fields;
    if (!result.ok) {
      notices.push(`MCP server "${name}" was not passed to Codex: ${result.reason}.`);
      continue;
    }
    if (hasLoneSurrogate(name) || fieldsHaveLoneSurrogate(result.fields)) {
      notices.push(
        `MCP server "${name}" was not passed to Codex: a value holds an unpaired surrogate, which TOML cannot encode.`,
      );
      continue;
    }
    const ownFields = approvedToolFields(codexApprovedTools);
    if (!ownFields.ok) {
      notices.push(`MCP server "${name}" was not passed to Codex: ${ownFields.reason}.`);
      continue;
    }
    result.fields.push(...ownFields.fields);
    Object.assign(env, staged);
    injected.push(name);
    if (isBareKey(name)) dotted.push(...dottedOverrides(name, result.fields));
    else quotedServers.push(`${tomlKey(name)}=${serverTable(result.fields)}`);
  }
  const overrides = [
    ...(quotedServers.length ? [`mcp_servers={${quotedServers.join(",")}}`] : []),
    ...dotted,
  ];
  return { args: overrides.flatMap((o) => ["-c", o]), overrides, injected, notices, env };
}

/**
 * Server names defined in the text of the user's `XH/config.toml` (`null` = no file). A file that does
 * not parse defines none here (Codex will report it itself); `error` says why.
 */
export function userCodexServerNames(configText: string | null): { names: Set<string>; error?: string } {
  if (configText === null) return { names: new Set() };
  try {
    const config = parseToml(configText) as Record<string, unknown>;
    return { names: isRecord(config.mcp_servers) ? new Set(Object.keys(config.mcp_servers)) : new Set() };
  } catch (error) {
    return { names: new Set(), error: (error as Error).message.split("\n")[0] ?? "invalid TOML" };
  }
}
