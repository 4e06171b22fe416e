// The capability manifest `E/capabilities/manifest.json` (device-protocol.md §7.8): what Gatehouse
// installed and owns. Loading is forgiving about shape (a section that is not an object is empty, a
// malformed entry is dropped) but a file that is not JSON is a hard error and is kept as it is.
// Sections are keyed by names the backend chose, so they are null-prototype objects: `__proto__`,
// `constructor` or `toString` are names like any other, stored, listed and looked up as such.
import fsSync from "node:fs";
import fs from "node:fs/promises";
import { z } from "zod";
import { expandHome } from "../../paths.js";
import { writeFileAtomic } from "../../store/index.js";
import { msg } from "../messages.js";
import { isRecord } from "../../../shared/is-record.js";

const text = z.string().optional().catch(undefined);
const flag = z.boolean().optional().catch(undefined);
const integer = z.number().int().optional().catch(undefined);

export const ManifestRuntimeSchema = z.looseObject({
  claude_link: text,
  codex_link: text,
  /** Runtime paths that had to be copies because links were impossible there. */
  copies: z.array(z.string()).optional().catch(undefined),
});
export type ManifestRuntime = z.infer<typeof ManifestRuntimeSchema>;

export const ManifestSkillSchema = z.looseObject({
  skill_id: integer,
  namespace: text,
  managed: flag,
  is_public: flag,
  content_hash: text,
  store_path: text,
  runtime: ManifestRuntimeSchema.optional().catch(undefined),
  updated_at: text,
});
export type ManifestSkill = z.infer<typeof ManifestSkillSchema>;

export const ManifestPluginSchema = z.looseObject({
  installed_plugin_id: integer,
  name: text,
  marketplace: text,
  version: text,
  enabled: flag,
  checksum: text,
  managed: flag,
  store_path: text,
  runtime: ManifestRuntimeSchema.optional().catch(undefined),
  updated_at: text,
});
export type ManifestPlugin = z.infer<typeof ManifestPluginSchema>;

export const ManifestMcpSchema = z.looseObject({
  installed_mcp_id: integer,
  server: z.unknown().optional(),
  managed: flag,
});
export type ManifestMcp = z.infer<typeof ManifestMcpSchema>;

export interface CapabilityManifest {
  version: number;
  revision: number;
  skills: Record<string, ManifestSkill>;
  plugins: Record<string, ManifestPlugin>;
  mcps: Record<string, ManifestMcp>;
  last_sync_at?: string | null;
  [key: string]: unknown;
}

/** A record with no prototype: any key is an own data property, `obj[key] = v` never sets a prototype. */
export function nameRecord<T>(entries: Iterable<[string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

export function emptyManifest(): CapabilityManifest {
  return { version: 1, revision: 0, skills: nameRecord(), plugins: nameRecord(), mcps: nameRecord() };
}

/** A deep copy whose sections are null-prototype records again (structuredClone would not keep that). */
export function cloneManifest(manifest: CapabilityManifest): CapabilityManifest {
  const copy = structuredClone(manifest);
  return {
    ...copy,
    skills: nameRecord(Object.entries(copy.skills)),
    plugins: nameRecord(Object.entries(copy.plugins)),
    mcps: nameRecord(Object.entries(copy.mcps)),
  };
}

function section<S extends z.ZodType>(value: unknown, schema: S): Record<string, z.output<S>> {
  const out = nameRecord<z.output<S>>();
  if (!isRecord(value)) return out;
  for (const [key, entry] of Object.entries(value)) {
    const parsed = schema.safeParse(entry);
    if (parsed.success) out[key] = parsed.data;
  }
  return out;
}

/** Applies the loading rules of §7.8 to a parsed JSON value. */
export function normaliseManifest(raw: unknown): CapabilityManifest {
  const base = isRecord(raw) ? raw : {};
  const version = typeof base.version === "number" && Number.isInteger(base.version) ? base.version : 1;
  const revision =
    typeof base.revision === "number" && Number.isSafeInteger(base.revision) && base.revision >= 0
      ? base.revision
      : 0;
  const manifest: CapabilityManifest = {
    ...base,
    version,
    revision,
    skills: section(base.skills, ManifestSkillSchema),
    plugins: section(base.plugins, ManifestPluginSchema),
    mcps: section(base.mcps, ManifestMcpSchema),
  };
  if (typeof base.last_sync_at !== "string" && base.last_sync_at !== null) delete manifest.last_sync_at;
  return manifest;
}

export type ManifestLoad = { ok: true; manifest: CapabilityManifest } | { ok: false; error: string };

export async function loadManifest(file: string): Promise<ManifestLoad> {
  let content: string;
  try {
    content = await fs.readFile(file, "utf8");
  } catch (error) {
    return unreadableManifest(file, error);
  }
  return manifestFromText(file, content);
}

/**
 * loadManifest with one synchronous read: for the heartbeat report of an idle runner, where each
 * asynchronous call is a thread-pool round trip that wakes the process (issue 12).
 */
export function loadManifestSync(file: string): ManifestLoad {
  let content: string;
  try {
    content = fsSync.readFileSync(file, "utf8");
  } catch (error) {
    return unreadableManifest(file, error);
  }
  return manifestFromText(file, content);
}

function unreadableManifest(file: string, error: unknown): ManifestLoad {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return { ok: true, manifest: emptyManifest() };
  return {
    ok: false,
    error: msg.invalidManifest(file, `cannot be read (${code ?? (error as Error).message})`),
  };
}

function manifestFromText(file: string, content: string): ManifestLoad {
  try {
    return { ok: true, manifest: normaliseManifest(JSON.parse(content)) };
  } catch (error) {
    return { ok: false, error: msg.invalidManifest(file, (error as Error).message) };
  }
}

export async function writeManifest(file: string, manifest: CapabilityManifest): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

/** UTC ISO 8601 with seconds and `+00:00` (`2026-05-27T02:29:17+00:00`). */
export function manifestTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

/** A path from the manifest: absolute, or starting with `~/`. */
export function manifestPath(p: string, home: string): string {
  return expandHome(p, home);
}
