// The `device:sync_capabilities` payload (device-protocol.md §7.1): validated and normalised before
// anything on disk changes. Every failure here is a hard error; a repeated name, or an MCP server
// definition over its budget, only fails that item. Names are kept in Sets and Maps only (a skill
// called `__proto__` is a name like any other).
import { z } from "zod";
import { msg } from "./messages.js";
import { pluginKey } from "./naming.js";
import { isRecord } from "../../shared/is-record.js";

export type SyncMode = "merge" | "replace";

export interface SkillItem {
  name: string;
  skillId: number;
  namespace: string;
  isPublic?: boolean;
  /** Decides whether a download is needed (§7.5); not a checksum of the download. */
  contentHash?: string;
  checksum?: string;
  downloadPath?: string;
  /** Set when an earlier item of the payload has the same name: this one fails. */
  duplicate: boolean;
}

export interface PluginItem {
  name: string;
  marketplace: string;
  version: string;
  /** `<name>@<marketplace>`. */
  key: string;
  installedPluginId?: number;
  enabled: boolean;
  checksum?: string;
  downloadPath?: string;
  duplicate: boolean;
}

export interface McpItem {
  name: string;
  installedMcpId?: number;
  server: unknown;
  duplicate: boolean;
  /** Why the server definition cannot be stored (too deep or too large); the item then fails. */
  serverProblem?: string;
}

/** An MCP server definition is configuration: small and shallow. */
export const MCP_SERVER_LIMITS = { maxDepth: 32, maxChars: 64 * 1024 };

export interface SyncPayload {
  mode: SyncMode;
  skills: SkillItem[];
  plugins: PluginItem[];
  mcps: McpItem[];
}

export type PayloadResult = { ok: true; payload: SyncPayload } | { ok: false; error: string };

class PayloadError extends Error {}

const optionalText = z.string().nullish();
const idField = z.union([z.number(), z.string()]).nullish();
const Envelope = z.looseObject({
  mode: z.unknown(),
  skills: z.array(z.unknown()).nullish(),
  plugins: z.array(z.unknown()).nullish(),
  mcps: z.array(z.unknown()).nullish(),
});
const SkillFields = z.looseObject({
  namespace: optionalText,
  is_public: z.boolean().nullish(),
  content_hash: optionalText,
  contentHash: optionalText,
  file_hash: optionalText,
  fileHash: optionalText,
  checksum: optionalText,
  download_path: optionalText,
});
const PluginFields = z.looseObject({
  marketplace: optionalText,
  source: z.unknown().optional(),
  version: optionalText,
  installed_plugin_id: idField,
  id: idField,
  enabled: z.boolean().nullish(),
  checksum: optionalText,
  download_path: optionalText,
});
const McpFields = z.looseObject({ installed_mcp_id: idField, server: z.unknown().optional() });

/** A value that becomes a path segment (§7.1). */
export function isSafeSegment(value: string): boolean {
  const length = [...value].length;
  if (length < 1 || length > 200) return false;
  if (value === "." || value === "..") return false;
  // separators, NUL and control characters (C0, DEL, C1), and the characters Windows forbids
  if (/[/\\<>:"|?*]/u.test(value)) return false;
  if ([...value].some((ch) => (ch.codePointAt(0) ?? 0) < 0x20 || (ch >= "\u007f" && ch <= "\u009f")))
    return false;
  if (/^\s|\s$/u.test(value)) return false;
  return !value.endsWith(".");
}

function safeSegment(value: string): string {
  if (!isSafeSegment(value)) throw new PayloadError(msg.unsafeName(value));
  return value;
}

/** A plugin name or marketplace: a safe segment without `@`, which would make `name@marketplace` ambiguous. */
function safeKeyPart(value: string): string {
  if (value.includes("@")) throw new PayloadError(msg.unsafeName(value));
  return safeSegment(value);
}

/**
 * Why `value` is over the MCP budget, or null. Iterative (an explicit stack), so a deep value cannot
 * exhaust the call stack; stops as soon as a limit is passed.
 */
export function serverShapeProblem(value: unknown, limits = MCP_SERVER_LIMITS): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let chars = 0;
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === "string") chars += current.length + 2;
    else if (current === null || typeof current !== "object") chars += String(current).length;
    else {
      if (depth + 1 > limits.maxDepth) return `nested deeper than ${limits.maxDepth} levels`;
      for (const [key, child] of Object.entries(current)) {
        chars += key.length + 4;
        stack.push({ value: child, depth: depth + 1 });
      }
    }
    if (chars > limits.maxChars) return `larger than ${limits.maxChars} characters`;
  }
  return null;
}

/** An integer or a string of decimal digits, as a safe non-negative integer; else undefined. */
export function parseIntegerId(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

function nonBlank(value: string | null | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function requiredName(item: Record<string, unknown>, error: string): string {
  const name = item.name;
  if (typeof name !== "string" || name === "") throw new PayloadError(error);
  return name;
}

function fields<S extends z.ZodType>(schema: S, item: unknown): z.output<S> & Record<string, unknown> {
  if (!isRecord(item)) throw new PayloadError(msg.invalidPayload);
  const parsed = schema.safeParse(item);
  if (!parsed.success) throw new PayloadError(msg.invalidPayload);
  return parsed.data as z.output<S> & Record<string, unknown>;
}

/** `sha256:<hex>` from the item's content hash fields: trimmed, quotes stripped, prefix added. */
export function normaliseContentHash(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim().replaceAll('"', "").trim();
  if (text === "") return undefined;
  return text.startsWith("sha256:") ? text : `sha256:${text}`;
}

function optionalId(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const id = parseIntegerId(value);
  if (id === undefined) throw new PayloadError(msg.invalidPayload);
  return id;
}

function parseSkill(raw: unknown, seen: Set<string>): SkillItem {
  if (!isRecord(raw)) throw new PayloadError(msg.invalidPayload);
  const name = requiredName(raw, msg.skillNameRequired);
  const skillId = parseIntegerId(raw.skill_id ?? raw.id);
  if (skillId === undefined) throw new PayloadError(msg.skillIdRequired);
  const f = fields(SkillFields, raw);
  const namespace = nonBlank(f.namespace) ?? "default";
  safeSegment(name);
  safeSegment(namespace);
  const item: SkillItem = { name, skillId, namespace, duplicate: seen.has(name) };
  seen.add(name);
  if (typeof f.is_public === "boolean") item.isPublic = f.is_public;
  const contentHash = normaliseContentHash(
    nonBlank(f.content_hash) ?? nonBlank(f.contentHash) ?? nonBlank(f.file_hash) ?? nonBlank(f.fileHash),
  );
  if (contentHash) item.contentHash = contentHash;
  const checksum = nonBlank(f.checksum)?.trim();
  if (checksum) item.checksum = checksum;
  const downloadPath = nonBlank(f.download_path)?.trim();
  if (downloadPath) item.downloadPath = downloadPath;
  return item;
}

function parsePlugin(raw: unknown, seen: Set<string>): PluginItem {
  if (!isRecord(raw)) throw new PayloadError(msg.invalidPayload);
  const name = requiredName(raw, msg.pluginNameRequired);
  const f = fields(PluginFields, raw);
  const sourceMarketplace =
    isRecord(f.source) && typeof f.source.marketplace === "string" ? f.source.marketplace : undefined;
  const marketplace = nonBlank(f.marketplace) ?? nonBlank(sourceMarketplace) ?? "wegent";
  const version = nonBlank(f.version) ?? "latest";
  safeKeyPart(name);
  safeKeyPart(marketplace);
  safeSegment(version);
  const key = pluginKey(name, marketplace);
  const item: PluginItem = {
    name,
    marketplace,
    version,
    key,
    enabled: f.enabled ?? true,
    duplicate: seen.has(key),
  };
  seen.add(key);
  const installedPluginId = optionalId(f.installed_plugin_id ?? f.id);
  if (installedPluginId !== undefined) item.installedPluginId = installedPluginId;
  const checksum = nonBlank(f.checksum)?.trim();
  if (checksum) item.checksum = checksum;
  const downloadPath = nonBlank(f.download_path)?.trim();
  if (downloadPath) item.downloadPath = downloadPath;
  return item;
}

function parseMcp(raw: unknown, seen: Set<string>): McpItem {
  if (!isRecord(raw)) throw new PayloadError(msg.invalidPayload);
  const name = requiredName(raw, msg.mcpNameRequired);
  const f = fields(McpFields, raw);
  const item: McpItem = { name, server: f.server ?? {}, duplicate: seen.has(name) };
  seen.add(name);
  const problem = serverShapeProblem(item.server);
  if (problem) item.serverProblem = problem;
  const installedMcpId = optionalId(f.installed_mcp_id);
  if (installedMcpId !== undefined) item.installedMcpId = installedMcpId;
  return item;
}

export function parseSyncPayload(raw: unknown): PayloadResult {
  try {
    if (!isRecord(raw)) throw new PayloadError(msg.invalidPayload);
    if (raw.mode !== "merge" && raw.mode !== "replace") throw new PayloadError(msg.invalidMode);
    const envelope = Envelope.safeParse(raw);
    if (!envelope.success) throw new PayloadError(msg.invalidPayload);
    const skillNames = new Set<string>();
    const pluginKeys = new Set<string>();
    const mcpNames = new Set<string>();
    return {
      ok: true,
      payload: {
        mode: raw.mode,
        skills: (envelope.data.skills ?? []).map((s) => parseSkill(s, skillNames)),
        plugins: (envelope.data.plugins ?? []).map((p) => parsePlugin(p, pluginKeys)),
        mcps: (envelope.data.mcps ?? []).map((m) => parseMcp(m, mcpNames)),
      },
    };
  } catch (error) {
    if (error instanceof PayloadError) return { ok: false, error: error.message };
    throw error;
  }
}
