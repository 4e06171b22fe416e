// Claude Code's plugin registry (device-protocol.md §7.7, §11): `CH/plugins/installed_plugins.json`
// and `enabledPlugins` in `CH/settings.json`. These are the user's files: only the keys Gatehouse
// manages are touched, every other key and entry keeps its place, the file is re-read just before
// it is written, and nothing is written when nothing changed.
import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../../store/index.js";
import { msg } from "../messages.js";
import { isRecord } from "../../../shared/is-record.js";

type Json = Record<string, unknown>;

export interface ClaudeFilePaths {
  registry: string;
  settings: string;
}

export function claudeFilePaths(claudeHome: string): ClaudeFilePaths {
  return {
    registry: path.join(claudeHome, "plugins", "installed_plugins.json"),
    settings: path.join(claudeHome, "settings.json"),
  };
}

export interface ClaudeFiles {
  /** `plugins` of installed_plugins.json (`{}` when the file is absent). */
  plugins: Json;
  enabledPlugins: Json;
}

export type LoadResult<T> = { ok: true; value: T } | { ok: false; error: string };

async function readJson(file: string): Promise<LoadResult<unknown | undefined>> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    return unreadableJson(file, error);
  }
  return jsonFromText(file, text);
}

function unreadableJson(file: string, error: unknown): LoadResult<undefined> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return { ok: true, value: undefined };
  return {
    ok: false,
    error: msg.invalidClaudeConfig(file, `cannot be read (${code ?? (error as Error).message})`),
  };
}

function jsonFromText(file: string, text: string): LoadResult<unknown | undefined> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: msg.invalidClaudeConfig(file, (error as Error).message) };
  }
}

/** installed_plugins.json as an object, `{"version": 2, "plugins": {}}` when absent. */
export async function readRegistry(file: string): Promise<LoadResult<Json>> {
  return registryFrom(file, await readJson(file));
}

/**
 * readRegistry with one synchronous read: for the heartbeat report of an idle runner, where each
 * asynchronous call is a thread-pool round trip that wakes the process (issue 12).
 */
export function readRegistrySync(file: string): LoadResult<Json> {
  let text: string;
  try {
    text = fsSync.readFileSync(file, "utf8");
  } catch (error) {
    return registryFrom(file, unreadableJson(file, error));
  }
  return registryFrom(file, jsonFromText(file, text));
}

function registryFrom(file: string, read: LoadResult<unknown | undefined>): LoadResult<Json> {
  if (!read.ok) return read;
  if (read.value === undefined) return { ok: true, value: { version: 2, plugins: {} } };
  if (!isRecord(read.value)) return { ok: false, error: msg.invalidClaudeConfig(file, "not a JSON object") };
  if (read.value.version !== 2) return { ok: false, error: msg.unsupportedRegistry(file) };
  const plugins = read.value.plugins;
  if (plugins !== undefined && !isRecord(plugins)) {
    return { ok: false, error: msg.invalidClaudeConfig(file, '"plugins" is not an object') };
  }
  return { ok: true, value: read.value };
}

/** settings.json as an object, `{}` when absent. */
export async function readSettings(file: string): Promise<LoadResult<Json>> {
  const read = await readJson(file);
  if (!read.ok) return read;
  if (read.value === undefined) return { ok: true, value: {} };
  if (!isRecord(read.value)) return { ok: false, error: msg.invalidClaudeConfig(file, "not a JSON object") };
  const enabled = read.value.enabledPlugins;
  if (enabled !== undefined && !isRecord(enabled)) {
    return { ok: false, error: msg.invalidClaudeConfig(file, '"enabledPlugins" is not an object') };
  }
  return { ok: true, value: read.value };
}

export async function loadClaudeFiles(paths: ClaudeFilePaths): Promise<LoadResult<ClaudeFiles>> {
  const registry = await readRegistry(paths.registry);
  if (!registry.ok) return registry;
  const settings = await readSettings(paths.settings);
  if (!settings.ok) return settings;
  return {
    ok: true,
    value: {
      plugins: (registry.value.plugins as Json | undefined) ?? {},
      enabledPlugins: (settings.value.enabledPlugins as Json | undefined) ?? {},
    },
  };
}

/** What a sync wants changed in the two files; applied to a fresh read at write time. */
export interface RegistryPlugin {
  installPath: string;
  version: string;
  /** The package was (re)installed in this sync: `lastUpdated` moves. */
  packageChanged: boolean;
}

export class ClaudeRegistryPatch {
  readonly plugins = new Map<string, RegistryPlugin | null>();
  readonly enabled = new Map<string, boolean | null>();
  /** Values put back exactly as they were (undoing an interrupted sync); undefined: the key goes. */
  readonly previousPlugins = new Map<string, unknown>();
  readonly previousEnabled = new Map<string, unknown>();
  /**
   * Keys earlier versions registered for a synced plugin (its backend key, `<name>@<marketplace>`),
   * removed only where the registry entry still points at one of Gatehouse's own install paths: the
   * same key may be the user's own install from that marketplace by now.
   */
  readonly legacy = new Map<string, Set<string>>();

  setPlugin(key: string, plugin: RegistryPlugin): void {
    this.plugins.set(key, plugin);
  }
  removePlugin(key: string): void {
    this.plugins.set(key, null);
    this.enabled.set(key, null);
  }
  setEnabled(key: string, enabled: boolean): void {
    this.enabled.set(key, enabled);
  }
  restorePlugin(key: string, previous: unknown): void {
    this.previousPlugins.set(key, previous);
  }
  restoreEnabled(key: string, previous: unknown): void {
    this.previousEnabled.set(key, previous);
  }
  get touchesRegistry(): boolean {
    return this.plugins.size > 0 || this.previousPlugins.size > 0 || this.legacy.size > 0;
  }
  get touchesSettings(): boolean {
    return this.enabled.size > 0 || this.previousEnabled.size > 0 || this.legacy.size > 0;
  }
  /** Removes `key` (and its enabled flag) if its registry entry's install path is one of `installPaths`. */
  dropLegacy(key: string, installPaths: Iterable<string>): void {
    if (this.plugins.has(key)) return;
    const known = this.legacy.get(key) ?? new Set<string>();
    for (const p of installPaths) known.add(path.resolve(p));
    if (known.size > 0) this.legacy.set(key, known);
  }
  get isEmpty(): boolean {
    return !this.touchesRegistry && !this.touchesSettings;
  }
}

/** The legacy keys of `patch` that `plugins` still holds at one of Gatehouse's install paths. */
function ownedLegacyKeys(plugins: Json, patch: ClaudeRegistryPatch): string[] {
  const out: string[] = [];
  for (const [key, ours] of patch.legacy) {
    if (patch.plugins.has(key)) continue;
    const list = plugins[key];
    const first = Array.isArray(list) && isRecord(list[0]) ? list[0] : null;
    if (typeof first?.installPath === "string" && ours.has(path.resolve(first.installPath))) out.push(key);
  }
  return out;
}

/** The registry entry Gatehouse writes for a managed key. */
function registryEntry(plugin: RegistryPlugin, existing: unknown, now: string): Json {
  const old = Array.isArray(existing) && isRecord(existing[0]) ? existing[0] : null;
  const changed =
    !old || plugin.packageChanged || old.version !== plugin.version || old.installPath !== plugin.installPath;
  return {
    scope: "user",
    installPath: plugin.installPath,
    version: plugin.version,
    installedAt: typeof old?.installedAt === "string" ? old.installedAt : now,
    lastUpdated: !changed && typeof old?.lastUpdated === "string" ? old.lastUpdated : now,
  };
}

function applyRegistry(file: Json, patch: ClaudeRegistryPatch, legacy: string[], now: string): Json {
  const plugins: Json = { ...((file.plugins as Json | undefined) ?? {}) };
  for (const key of legacy) delete plugins[key];
  for (const [key, plugin] of patch.plugins) {
    if (plugin === null) delete plugins[key];
    else {
      const existing = plugins[key];
      const others = Array.isArray(existing)
        ? existing.slice(1).filter((e) => !(isRecord(e) && e.installPath === plugin.installPath))
        : [];
      plugins[key] = [registryEntry(plugin, existing, now), ...others];
    }
  }
  for (const [key, previous] of patch.previousPlugins) {
    if (previous === undefined) delete plugins[key];
    else plugins[key] = previous;
  }
  return file.plugins === undefined && Object.keys(plugins).length === 0 ? { ...file } : { ...file, plugins };
}

function applySettings(file: Json, patch: ClaudeRegistryPatch, legacy: string[]): Json {
  if (!patch.touchesSettings && legacy.length === 0) return file;
  const enabled: Json = { ...((file.enabledPlugins as Json | undefined) ?? {}) };
  for (const key of legacy) if (!patch.enabled.has(key)) delete enabled[key];
  for (const [key, value] of patch.enabled) {
    if (value === null) delete enabled[key];
    else enabled[key] = value;
  }
  for (const [key, previous] of patch.previousEnabled) {
    if (previous === undefined) delete enabled[key];
    else enabled[key] = previous;
  }
  if (file.enabledPlugins === undefined && Object.keys(enabled).length === 0) return file;
  return { ...file, enabledPlugins: enabled };
}

function format(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A user who keeps the file as a link into a dotfiles folder keeps the link: write its target. */
async function writeTarget(file: string): Promise<string> {
  try {
    if ((await fs.lstat(file)).isSymbolicLink()) return await fs.realpath(file);
  } catch {
    // absent: written as a new file
  }
  return file;
}

export interface WriteOutcome {
  registryWritten: boolean;
  settingsWritten: boolean;
}

/**
 * Re-reads both files, applies `patch` and writes each one only if its content changed (temp file
 * `.<file>.gatehouse-<random>` + fsync + rename, the existing mode kept, 0600 when new).
 */
export async function writeClaudeFiles(
  paths: ClaudeFilePaths,
  patch: ClaudeRegistryPatch,
  now: Date,
): Promise<LoadResult<WriteOutcome>> {
  const outcome: WriteOutcome = { registryWritten: false, settingsWritten: false };
  if (patch.isEmpty) return { ok: true, value: outcome };
  const registry = await readRegistry(paths.registry);
  if (!registry.ok) return registry;
  const settings = await readSettings(paths.settings);
  if (!settings.ok) return settings;
  const stamp = now.toISOString();
  const legacy = ownedLegacyKeys((registry.value.plugins as Json | undefined) ?? {}, patch);
  if (patch.touchesRegistry || legacy.length > 0) {
    const next = applyRegistry(registry.value, patch, legacy, stamp);
    if (JSON.stringify(next) !== JSON.stringify(registry.value)) {
      await writeFileAtomic(await writeTarget(paths.registry), format(next), { keepMode: true, mode: 0o600 });
      outcome.registryWritten = true;
    }
  }
  const nextSettings = applySettings(settings.value, patch, legacy);
  if (JSON.stringify(nextSettings) !== JSON.stringify(settings.value)) {
    await writeFileAtomic(await writeTarget(paths.settings), format(nextSettings), {
      keepMode: true,
      mode: 0o600,
    });
    outcome.settingsWritten = true;
  }
  return { ok: true, value: outcome };
}
