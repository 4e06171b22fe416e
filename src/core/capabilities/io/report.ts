// The heartbeat capability report and its digest (device-protocol.md §5), built from the manifest,
// `CH/skills` and `CH/plugins/installed_plugins.json`. Missing or unreadable sources count as empty;
// if nothing can be read the empty report (revision 0, digest D1) goes.
// Every read is synchronous: the report is built on every heartbeat of an otherwise idle runner, and
// each asynchronous call is a thread-pool round trip that wakes the process again (a few dozen per
// heartbeat); a few small stats and reads cost well under a millisecond in one go (issue 12). The
// manifest is parsed again only when its file changed, and an unchanged report is reused whole, so a
// heartbeat of a device with thousands of skills does not rebuild (and leave for the GC) thousands of
// objects and their digest every 30 s.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { AppPaths } from "../../paths.js";
import { canonicalJson, compareCodePoints, sortByCodePoint } from "../canonical-json.js";
import { claudeFilePaths, readRegistrySync } from "./claude-registry.js";
import { managedKeyOf } from "./claude-plugin-keys.js";
import { COPY_MARKER, isInside, parseCopyMarker, resolveStoreRootsSync } from "./links.js";
import { emptyManifest, loadManifestSync, manifestPath, type CapabilityManifest } from "./manifest.js";
import { isRecord } from "../../../shared/is-record.js";

export type ReportSkill = {
  name: string;
  skill_id?: number;
  namespace?: string;
  source: "wegent" | "local_user";
};

export type ReportPluginSkill = {
  name: string;
  description: string;
  path: string;
};

export type ReportPlugin = {
  name: string;
  marketplace: string;
  scope: string;
  version?: string;
  source: "wegent" | "local_user";
  installed_at?: string;
  last_updated?: string;
  skills: ReportPluginSkill[];
  installed_plugin_id?: number;
};

export type ReportMcp = Record<string, unknown> & { name: string; source: "wegent" };

export type CapabilityReport = {
  revision: number;
  digest: string;
  full: true;
  skills: ReportSkill[];
  plugins: ReportPlugin[];
  mcps: ReportMcp[];
  last_sync_at: string | null;
};

export interface DigestInput {
  skills: readonly unknown[];
  plugins: readonly unknown[];
  mcps: readonly unknown[];
}

/** `sha256:` + hex SHA-256 of the canonical JSON of `{mcps, plugins, skills}`. */
export function capabilityDigest(input: DigestInput): string {
  const text = canonicalJson({ mcps: input.mcps, plugins: input.plugins, skills: input.skills });
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

export function emptyReport(): CapabilityReport {
  return {
    revision: 0,
    digest: capabilityDigest({ skills: [], plugins: [], mcps: [] }),
    full: true,
    skills: [],
    plugins: [],
    mcps: [],
    last_sync_at: null,
  };
}

/** Plain `key: value` lines between the first two `---` lines, surrounding quotes removed. */
export function parseFrontMatter(text: string): Record<string, string> {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() === "---");
  if (first < 0) return {};
  const second = lines.findIndex((l, i) => i > first && l.trim() === "---");
  if (second < 0) return {};
  const out: Record<string, string> = {};
  for (const line of lines.slice(first + 1, second)) {
    const match = /^([A-Za-z0-9_.-]+)\s*:\s*(.*)$/.exec(line);
    if (!match?.[1]) continue;
    let value = (match[2] ?? "").trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value[value.length - 1] === value[0]) {
      value = value.slice(1, -1);
    }
    out[match[1]] = value;
  }
  return out;
}

function isFolder(p: string): boolean {
  return orNull(() => fs.statSync(p))?.isDirectory() ?? false;
}

function isFile(p: string): boolean {
  return orNull(() => fs.statSync(p))?.isFile() ?? false;
}

/** The first `bytes` of `file` as text ("" when it cannot be read). */
function readHead(file: string, bytes = 64 * 1024): string {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, "r");
    const buffer = Buffer.alloc(bytes);
    const bytesRead = fs.readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

function sortedNames(dir: string): string[] {
  return (orNull(() => fs.readdirSync(dir)) ?? []).sort(compareCodePoints);
}

/** `read()`, or null when it throws (a missing or unreadable file counts as absent). */
function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/**
 * Gatehouse's own runtime path (a link into the store, or a copy marked as one) is never the user's,
 * even when no manifest entry records it: a sync killed half-way leaves such links, and the next
 * sync or start-up removes them.
 */
function isGatehouseItem(p: string, storeRoots: string[]): boolean {
  const stat = orNull(() => fs.lstatSync(p));
  if (!stat) return false;
  if (stat.isSymbolicLink()) {
    const raw = orNull(() => fs.readlinkSync(p));
    return raw !== null && storeRoots.some((root) => isInside(path.resolve(path.dirname(p), raw), root));
  }
  if (!stat.isDirectory()) return false;
  const marker = parseCopyMarker(
    orNull(() => fs.readFileSync(path.join(p, COPY_MARKER), "utf8")) ?? "",
  ).target;
  return marker !== "" && storeRoots.some((root) => isInside(marker, root));
}

function localUserSkills(paths: AppPaths, manifest: CapabilityManifest): ReportSkill[] {
  const dir = path.join(paths.claudeHome, "skills");
  const storeRoots = resolveStoreRootsSync(paths.capabilityStore);
  const out: ReportSkill[] = [];
  for (const name of sortedNames(dir)) {
    // dot entries are hidden files, and the temporary names of links being replaced
    if (name.startsWith(".") || Object.hasOwn(manifest.skills, name)) continue;
    const folder = path.join(dir, name);
    if (isGatehouseItem(folder, storeRoots)) continue;
    if (isFolder(folder) && isFile(path.join(folder, "SKILL.md"))) out.push({ name, source: "local_user" });
  }
  return out;
}

function pluginSkills(root: string): ReportPluginSkill[] {
  const dir = path.join(root, "skills");
  const out: ReportPluginSkill[] = [];
  for (const folder of sortedNames(dir)) {
    const skillMd = path.join(dir, folder, "SKILL.md");
    if (!isFolder(path.join(dir, folder)) || !isFile(skillMd)) continue;
    const front = parseFrontMatter(readHead(skillMd));
    out.push({ name: front.name || folder, description: front.description ?? "", path: `skills/${folder}` });
  }
  return out;
}

/**
 * One plugin per registry key, named as the backend knows it: a synced plugin by the name and
 * marketplace it was synced with (not the `@gatehouse` key Claude Code shows), so the report says what
 * the backend sent; others as their key says. Sorted by that `name@marketplace`.
 */
function reportPlugins(paths: AppPaths, manifest: CapabilityManifest): ReportPlugin[] {
  const registry = readRegistrySync(claudeFilePaths(paths.claudeHome).registry);
  const plugins = registry.ok && isRecord(registry.value.plugins) ? registry.value.plugins : {};
  const managedKey = managedKeyOf(manifest);
  const out = new Map<string, ReportPlugin>();
  for (const key of Object.keys(plugins).sort(compareCodePoints)) {
    const list = plugins[key];
    const entry = Array.isArray(list) && isRecord(list[0]) ? list[0] : null;
    if (!entry) continue;
    const manifestKey = managedKey(key);
    const managedEntry = manifestKey === null ? undefined : manifest.plugins[manifestKey];
    const managed = managedEntry?.managed === true;
    const reportedKey = manifestKey ?? key;
    const at = reportedKey.lastIndexOf("@");
    if (out.has(reportedKey)) continue; // an earlier Gatehouse's key next to the current one
    const version = typeof entry.version === "string" ? entry.version : managedEntry?.version;
    const installPath =
      typeof entry.installPath === "string" ? manifestPath(entry.installPath, paths.home) : null;
    const storePath = managedEntry?.store_path ? manifestPath(managedEntry.store_path, paths.home) : null;
    const root = installPath && isFolder(installPath) ? installPath : storePath;
    const plugin: ReportPlugin = {
      name: managedEntry?.name ?? (at >= 0 ? reportedKey.slice(0, at) : reportedKey),
      marketplace: managedEntry?.marketplace ?? (at >= 0 ? reportedKey.slice(at + 1) : ""),
      scope: typeof entry.scope === "string" ? entry.scope : "user",
      ...(version !== undefined && { version }),
      source: managed ? "wegent" : "local_user",
      ...(typeof entry.installedAt === "string" && { installed_at: entry.installedAt }),
      ...(typeof entry.lastUpdated === "string" && { last_updated: entry.lastUpdated }),
      skills: root ? pluginSkills(root) : [],
      ...(managed &&
        managedEntry?.installed_plugin_id !== undefined && {
          installed_plugin_id: managedEntry.installed_plugin_id,
        }),
    };
    out.set(reportedKey, plugin);
  }
  return [...out.keys()].sort(compareCodePoints).map((k) => out.get(k)!);
}

function reportMcps(manifest: CapabilityManifest): ReportMcp[] {
  return sortByCodePoint(Object.keys(manifest.mcps), (k) => k).map((name) => {
    const { managed: _managed, ...stored } = manifest.mcps[name] ?? {};
    return { ...stored, name, source: "wegent" } as ReportMcp;
  });
}

function managedSkills(manifest: CapabilityManifest): ReportSkill[] {
  return sortByCodePoint(Object.keys(manifest.skills), (k) => k)
    .filter((name) => manifest.skills[name]?.managed !== false)
    .map((name) => {
      const entry = manifest.skills[name];
      const skill = { name } as ReportSkill;
      if (entry?.skill_id !== undefined) skill.skill_id = entry.skill_id;
      if (entry?.namespace !== undefined) skill.namespace = entry.namespace;
      skill.source = "wegent";
      return skill;
    });
}

/** A file changed less than this long ago may change again within its time stamp's granularity. */
const SETTLED_MS = 2_000;

/**
 * A file's identity and version: a rewrite, atomic (a new inode) or in place (a new modification
 * and change time), gives another stamp. Taken before the read, so a change during the read only
 * makes the next call read again. Null — read every time — when the file cannot be stat'ed or was
 * modified in the last two seconds: a time stamp is as coarse as the kernel's clock tick, and a
 * second same-size write within it would leave the stamp as it was (git's "racily clean" files).
 */
function fileStamp(file: string): string | null {
  const stat = orNull(() => fs.statSync(file, { bigint: true, throwIfNoEntry: false }));
  if (stat === null) return null;
  if (stat === undefined) return "absent";
  if (Date.now() - Number(stat.mtimeNs / 1_000_000n) < SETTLED_MS) return null;
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The last manifest read and the last report built, per manifest file (one per Gatehouse home). */
const lastBuilt = new Map<
  string,
  { manifestStamp: string; manifest: CapabilityManifest; localKey: string; report: CapabilityReport }
>();

/** The manifest, parsed again only when its file changed (a failed read is never kept). */
function manifestOf(file: string): { manifest: CapabilityManifest; stamp: string | null } {
  const stamp = fileStamp(file);
  const last = lastBuilt.get(file);
  if (stamp !== null && last?.manifestStamp === stamp) return { manifest: last.manifest, stamp };
  const loaded = loadManifestSync(file);
  return loaded.ok ? { manifest: loaded.manifest, stamp } : { manifest: emptyManifest(), stamp: null };
}

/**
 * The full report of §5 for the heartbeat's `capabilities` block. An unchanged report is the same
 * object as last time: callers never modify it.
 */
export function buildCapabilityReport(paths: AppPaths): Promise<CapabilityReport> {
  return Promise.resolve(reportNow(paths));
}

function reportNow(paths: AppPaths): CapabilityReport {
  const file = paths.capabilityManifest;
  try {
    const { manifest, stamp } = manifestOf(file);
    // The parts read from the user's folders (small), compared whole with the last report's.
    const localSkills = localUserSkills(paths, manifest);
    const plugins = reportPlugins(paths, manifest);
    const localKey = JSON.stringify([localSkills, plugins]);
    const last = lastBuilt.get(file);
    if (stamp !== null && last?.manifestStamp === stamp && last.localKey === localKey) return last.report;
    const skills = [...managedSkills(manifest), ...localSkills];
    const mcps = reportMcps(manifest);
    const report: CapabilityReport = {
      revision: manifest.revision,
      digest: capabilityDigest({ skills, plugins, mcps }),
      full: true,
      skills,
      plugins,
      mcps,
      last_sync_at: typeof manifest.last_sync_at === "string" ? manifest.last_sync_at : null,
    };
    if (stamp === null) lastBuilt.delete(file);
    else lastBuilt.set(file, { manifestStamp: stamp, manifest, localKey, report });
    return report;
  } catch {
    lastBuilt.delete(file);
    return emptyReport();
  }
}
