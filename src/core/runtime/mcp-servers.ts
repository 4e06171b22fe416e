// MCP servers a task's runtime gets (device-protocol.md §8.3 steps 1–3, shared by Claude Code and
// Codex): collect from the bots, the request and — project tasks only — the capability manifest;
// merge by name; substitute the `${{backend_url}}` and `${{task_token}}` placeholders.
import { z } from "zod";
import type { TaskPayload } from "./task-payload.js";
import { isRecord } from "../../shared/is-record.js";

export type McpServer = Record<string, unknown>;

export interface NamedMcpServer {
  name: string;
  server: McpServer;
  /**
   * Tools of this server that Codex offers alone and runs without asking (`enabled_tools` and
   * `tools.<t>.approval_mode="approve"`). Set only by Gatehouse for its own Skill server, in code: never
   * read from a payload, manifest or setting.
   */
  codexApprovedTools?: readonly string[];
}

/**
 * The part of the capability manifest (§7.8) this module reads. Deliberately minimal and loose so the
 * runtime does not depend on the capabilities module; a section that is not an object counts as empty.
 */
export const ManifestMcpsSchema = z.looseObject({
  mcps: z.record(z.string(), z.unknown()).catch({}).default({}),
});
export type ManifestMcps = z.infer<typeof ManifestMcpsSchema>;

export function parseManifestMcps(raw: unknown): ManifestMcps {
  const parsed = ManifestMcpsSchema.safeParse(raw);
  return parsed.success ? parsed.data : { mcps: {} };
}

/** Code-point order (= UTF-8 byte order), unlike the default UTF-16 `sort()`. */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!.codePointAt(0)!;
    const y = right[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return left.length - right.length;
}

/**
 * A `mcp_servers` value as the backend sends it: a map name → server, the same map nested once more
 * under `mcpServers`/`mcp_servers`, or a list of servers that carry their `name`.
 */
export function serversFromValue(value: unknown): NamedMcpServer[] {
  if (Array.isArray(value)) {
    return value
      .filter(isRecord)
      .filter((s) => typeof s.name === "string" && s.name !== "")
      .map((s) => ({ name: s.name as string, server: { ...s } }));
  }
  if (!isRecord(value)) return [];
  for (const inner of ["mcpServers", "mcp_servers"]) {
    const nested = value[inner];
    if (isRecord(nested) && Object.keys(nested).length > 0) return serversFromValue(nested);
  }
  return Object.entries(value)
    .filter((entry): entry is [string, McpServer] => isRecord(entry[1]))
    .map(([name, server]) => ({ name, server: { ...server } }));
}

function botServers(bot: NonNullable<TaskPayload["bot"]>[number]): NamedMcpServer[] {
  return serversFromValue(bot.mcp_servers ?? bot.mcpServers);
}

/**
 * Manifest MCPs, sorted by name, with `name` added. `recordFallback` (Claude Code): a record whose
 * `server` is not an object is used itself; otherwise (Codex) such a record is left out.
 */
export function manifestServers(manifest: ManifestMcps, recordFallback: boolean): NamedMcpServer[] {
  const out: NamedMcpServer[] = [];
  for (const name of Object.keys(manifest.mcps).sort(compareCodePoints)) {
    const record = manifest.mcps[name];
    if (!isRecord(record)) continue;
    if (isRecord(record.server)) out.push({ name, server: { ...record.server, name } });
    else if (recordFallback) out.push({ name, server: { ...record, name } });
  }
  return out;
}

/** Step 1: bots (the first, or every one in `coordinate` mode), the request, then globals. */
export function collectServers(
  payload: TaskPayload,
  globals: NamedMcpServer[],
  isProjectTask: boolean,
): NamedMcpServer[] {
  const bots = payload.bot ?? [];
  const fromBots = (payload.mode === "coordinate" ? bots : bots.slice(0, 1)).flatMap(botServers);
  return [...fromBots, ...serversFromValue(payload.mcp_servers), ...(isProjectTask ? globals : [])];
}

const HEADER_KEYS = ["headers"] as const;
const TIMEOUT_KEYS = ["timeout", "timeout_seconds", "timeoutSeconds"] as const;

function hasHeaders(server: McpServer): boolean {
  return HEADER_KEYS.some((k) => isRecord(server[k]) && Object.keys(server[k]).length > 0);
}

function hasTimeout(server: McpServer): boolean {
  return TIMEOUT_KEYS.some((k) => server[k] !== undefined && server[k] !== null);
}

/** Step 2: a later entry replaces an earlier one of the same name, keeping its headers and timeout. */
export function mergeServers(entries: NamedMcpServer[]): NamedMcpServer[] {
  const merged = new Map<string, McpServer>();
  for (const { name, server } of entries) {
    const earlier = merged.get(name);
    const next: McpServer = { ...server };
    if (earlier) {
      if (!hasHeaders(next) && hasHeaders(earlier)) for (const k of HEADER_KEYS) next[k] = earlier[k];
      if (!hasTimeout(next)) {
        for (const k of TIMEOUT_KEYS) if (earlier[k] !== undefined) next[k] = earlier[k];
      }
    }
    merged.set(name, next);
  }
  return [...merged].map(([name, server]) => ({ name, server }));
}

export interface Placeholders {
  backendUrl: string | null | undefined;
  taskToken: string | null | undefined;
}

const PLACEHOLDER = /\$\{\{(backend_url|task_token)\}\}/g;

function substitute(value: unknown, values: Placeholders, missing: Set<string>): unknown {
  if (typeof value === "string") {
    return value.replace(PLACEHOLDER, (whole, key: string) => {
      const raw = key === "backend_url" ? values.backendUrl?.trim().replace(/\/+$/, "") : values.taskToken;
      if (!raw) {
        missing.add(key);
        return whole;
      }
      return raw;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, values, missing));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values, missing)]));
  }
  return value;
}

/** Step 3: placeholders in every string value; other `${{…}}` placeholders stay as they are. */
export function substitutePlaceholders(
  entries: NamedMcpServer[],
  values: Placeholders,
): { servers: NamedMcpServer[]; notices: string[] } {
  const missing = new Set<string>();
  const servers = entries.map(({ name, server }) => ({
    name,
    server: substitute(server, values, missing) as McpServer,
  }));
  const notices = [...missing].map(
    (key) => `The task has no ${key}: MCP server placeholders \${{${key}}} were left as they are.`,
  );
  return { servers, notices };
}

/** Steps 1–3 together: the servers a runtime gets, in collection order. */
export function taskMcpServers(
  payload: TaskPayload,
  manifest: ManifestMcps,
  options: { isProjectTask: boolean; recordFallback: boolean },
): { servers: NamedMcpServer[]; notices: string[] } {
  const collected = collectServers(
    payload,
    manifestServers(manifest, options.recordFallback),
    options.isProjectTask,
  );
  return substitutePlaceholders(mergeServers(collected), {
    backendUrl: payload.backend_url,
    taskToken: payload.auth_token,
  });
}
