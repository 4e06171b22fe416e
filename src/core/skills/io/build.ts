// One catalogue build (skills.md §1–§8): roots → folders → entries → precedence → gating → index.
// Everything it touches comes in through `BuildInputs`; the result is the §7 object plus the private
// facts agent runs need (gating keys and the resolved settings secrets for the environment overlay).
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../log.js";
import type { Env } from "../../paths.js";
import { createBinaryLookup, envValue } from "./binary-lookup.js";
import { readCapabilityManifest } from "./capability-manifest-reader.js";
import { compareCodePoints, scanRoot, type FoundFolder } from "./discovery.js";
import { gatingReasons, isTruthy, valueAtPath, type Gating } from "../gating.js";
import { pluginSkillFolders, readPluginRegistry } from "./plugin-registry.js";
import { INDEX_FIXED_COST, skillCost, tokenEstimate } from "../prompt.js";
import { fixedRootSpecs, type RootSpec } from "../roots.js";
import type { SkillsSettings } from "../settings-schema.js";
import { readSkillFolder, type ReadSkill } from "../skill-reader.js";
import type { Catalogue, SkillEntry, SkillRoot, SkillSecrets } from "../types.js";

export interface BuildInputs {
  version: number;
  workspace: string | null;
  platform: string;
  home: string;
  claudeHome: string;
  codexHome: string;
  capabilityManifest: string;
  /** False for a non-project task (skills.md §10): no global Codex skills and no plugins. */
  includeGlobalRuntimes: boolean;
  env: Env;
  /** The whole `E/settings.json` object (for `requires.config`). */
  settingsFile: unknown;
  skills: SkillsSettings;
  secrets: SkillSecrets;
  logger: Logger;
  /** The app's bundled skills folder (rank 9); null or absent = none. */
  bundledRoot?: string | null;
}

/** Settings-provided variables of one eligible winner, for the environment overlay (§10). */
export interface EnvMaterial {
  name: string;
  env: Array<[string, string]>;
  primaryEnv: string | null;
  apiKey: string | null;
}

export interface BuildResult {
  catalogue: Catalogue;
  /** Eligible winners' settings variables, in name order; secrets: never serialise this. */
  envMaterial: EnvMaterial[];
  /** Offered entries sorted by name. */
  offered: SkillEntry[];
  /** Valid winners sorted by name. */
  winners: SkillEntry[];
}

interface Candidate {
  entry: SkillEntry;
  read: ReadSkill | null;
  order: number;
  pluginEnabled: boolean | undefined;
  pluginKey: string | undefined;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function realOrResolved(p: string): Promise<string> {
  return fs.realpath(p).catch(() => path.resolve(p));
}

function emptyDetails(key: string): SkillEntry["details"] {
  return {
    version: null,
    author: null,
    category: null,
    license: null,
    tags: [],
    homepage: null,
    emoji: null,
    install: null,
    user_invocable: true,
    disable_model_invocation: false,
    always: false,
    os: null,
    requires: { bins: [], anyBins: [], env: [], config: [] },
    primary_env: null,
    config_key: key,
    config: { enabled: null, env_names: [], api_key_set: false, allow_workspace: false },
    extra: {},
  };
}

/** Which roots this build scans, deduplicated by real folder (highest rank kept). */
export async function resolveRoots(inputs: BuildInputs): Promise<{ specs: RootSpec[]; errors: string[] }> {
  const { before, extra } = fixedRootSpecs({
    workspace: inputs.workspace,
    home: inputs.home,
    claudeHome: inputs.claudeHome,
    codexHome: inputs.codexHome,
    includeGlobalRuntimes: inputs.includeGlobalRuntimes,
    extraRoots: inputs.skills.extra_roots,
    bundledRoot: inputs.bundledRoot ?? null,
  });
  const errors: string[] = [];
  const plugins: RootSpec[] = [];
  if (inputs.includeGlobalRuntimes) {
    const registry = await readPluginRegistry({
      claudeHome: inputs.claudeHome,
      codexHome: inputs.codexHome,
      home: inputs.home,
      workspace: inputs.workspace,
    });
    errors.push(...registry.errors);
    for (const plugin of registry.plugins) {
      for (const installPath of plugin.installPaths) {
        const folders = await pluginSkillFolders(installPath);
        errors.push(...folders.errors);
        for (const folder of folders.folders) {
          plugins.push({
            rank: 7,
            kind: "plugin",
            source: `plugin:${plugin.key}`,
            path: folder,
            plugin: { key: plugin.key, enabled: plugin.enabled },
          });
        }
      }
    }
  }
  const all = [...before, ...plugins, ...extra];
  const reals = await Promise.all(
    all.map((spec) => (spec.error ? Promise.resolve(null) : realOrResolved(spec.path))),
  );
  const seen = new Set<string>();
  const specs: RootSpec[] = [];
  all.forEach((spec, i) => {
    const real = reals[i];
    if (real) {
      if (seen.has(real)) return;
      seen.add(real);
    }
    specs.push(spec);
  });
  return { specs, errors };
}

/** Resolved `skills.entries.<key>` secrets: values only in memory, registered with the logger. */
interface ResolvedEntrySettings {
  enabled: boolean | undefined;
  env: Map<string, string | null>;
  apiKey: string | null;
  allowWorkspace: boolean;
}

async function resolveEntrySettings(
  inputs: BuildInputs,
  keys: Iterable<string>,
): Promise<Map<string, ResolvedEntrySettings>> {
  const out = new Map<string, ResolvedEntrySettings>();
  const lookup = async (ref: string | undefined): Promise<string | null> => {
    if (!ref) return null;
    try {
      const value = await inputs.secrets.get(ref);
      if (value) inputs.logger.addSecret(value);
      return value && value !== "" ? value : null;
    } catch (error) {
      inputs.logger.warn("Skill secret lookup failed", { ref, error: (error as Error).message });
      return null;
    }
  };
  for (const key of new Set(keys)) {
    const settings = inputs.skills.entries[key];
    if (!settings) continue;
    const env = new Map<string, string | null>();
    for (const [name, ref] of Object.entries(settings.env)) env.set(name, await lookup(ref));
    out.set(key, {
      enabled: settings.enabled,
      env,
      apiKey: await lookup(settings.apiKey),
      allowWorkspace: settings.allow_workspace,
    });
  }
  return out;
}

export async function buildCatalogue(inputs: BuildInputs): Promise<BuildResult> {
  const { specs, errors: registryErrors } = await resolveRoots(inputs);
  for (const message of registryErrors) inputs.logger.warn(message);

  const scans = await Promise.all(
    specs.map((spec) =>
      spec.error
        ? Promise.resolve({ exists: false, realpath: null, error: spec.error, folders: [] as FoundFolder[] })
        : scanRoot(spec.path, { allowSystem: spec.kind === "user-codex" }),
    ),
  );
  const roots: SkillRoot[] = specs.map((spec, i) => {
    const scan = scans[i]!;
    const root: SkillRoot = {
      rank: spec.rank,
      kind: spec.kind,
      source: spec.source,
      path: spec.path,
      realpath: scan.realpath,
      exists: scan.exists,
      error: scan.error,
      count: scan.folders.length,
    };
    if (spec.plugin) root.plugin = spec.plugin.key;
    return root;
  });

  const manifest = await readCapabilityManifest(inputs.capabilityManifest, inputs.home);
  if (manifest.error) inputs.logger.warn(manifest.error);
  const storeReals = new Map<string, string>();
  for (const record of manifest.managedSkills.values()) {
    if (record.storePath) storeReals.set(record.storePath, await realOrResolved(record.storePath));
  }

  const jobs: Array<{ spec: RootSpec; folder: FoundFolder; order: number }> = [];
  specs.forEach((spec, r) => {
    scans[r]!.folders.forEach((folder, f) => jobs.push({ spec, folder, order: r * 100_000 + f }));
  });
  const candidates = await mapLimit(jobs, 64, async ({ spec, folder, order }): Promise<Candidate> => {
    const read = folder.error === null ? await readSkillFolder(folder.path, folder) : null;
    const folderName = path.basename(folder.path);
    const fields = read?.fields ?? null;
    const valid = read?.valid ?? false;
    const name = valid && fields?.name ? fields.name : folderName;
    const gating = read?.gating;
    const key = gating?.skillKey ?? name;
    const details = emptyDetails(key);
    if (fields && gating) {
      Object.assign(details, {
        version: fields.version,
        author: fields.author,
        category: fields.category,
        license: fields.license,
        tags: fields.tags,
        homepage: fields.homepage ?? gating.homepage,
        emoji: gating.emoji,
        install: gating.install,
        user_invocable: fields.userInvocable,
        disable_model_invocation: fields.disableModelInvocation,
        always: gating.always,
        os: gating.os,
        requires: gating.requires,
        primary_env: gating.primaryEnv,
        extra: fields.extra,
      });
    }
    let source = spec.source;
    if (spec.kind === "user-claude" || spec.kind === "user-codex") {
      const record = manifest.managedSkills.get(folderName);
      const linked = record && (folder.path === record.claudeLink || folder.path === record.codexLink);
      const stored = record?.storePath && folder.realpath === storeReals.get(record.storePath);
      if (linked || stored) source = "wegent-managed";
    }
    const entry: SkillEntry = {
      name,
      description: fields?.description ?? "",
      root: spec.path,
      rank: spec.rank,
      kind: spec.kind,
      source,
      path: folder.path,
      realpath: folder.realpath,
      skill_file: path.join(folder.path, "SKILL.md"),
      valid,
      errors: folder.error !== null ? [folder.error] : (read?.errors ?? []),
      warnings: read?.warnings ?? [],
      eligible: false,
      reasons: [],
      shadowed_by: null,
      offered: false,
      permissions: fields?.permissions ?? [],
      triggers: fields?.triggers ?? [],
      cost_chars: null,
      cost_tokens: null,
      details,
    };
    return { entry, read, order, pluginEnabled: spec.plugin?.enabled, pluginKey: spec.plugin?.key };
  });

  // Precedence (§1): per name the valid entry of lowest rank, then first in its root, wins.
  const winners = new Map<string, Candidate>();
  for (const candidate of [...candidates].sort((a, b) => a.order - b.order)) {
    if (!candidate.entry.valid) continue;
    const winner = winners.get(candidate.entry.name);
    if (!winner) winners.set(candidate.entry.name, candidate);
    else candidate.entry.shadowed_by = winner.entry.path;
  }

  // Gating (§5): binaries looked up once per build, settings secrets resolved once.
  const valid = candidates.filter((c) => c.entry.valid && c.read);
  const lookup = createBinaryLookup({ env: inputs.env, platform: inputs.platform, home: inputs.home });
  const bins = new Set<string>();
  for (const c of valid)
    for (const b of [...c.read!.gating.requires.bins, ...c.read!.gating.requires.anyBins]) bins.add(b);
  const found = new Map<string, boolean>();
  await Promise.all([...bins].map(async (b) => found.set(b, await lookup.has(b))));
  const entrySettings = await resolveEntrySettings(
    inputs,
    valid.map((c) => c.entry.details.config_key),
  );
  const excluded = new Set(inputs.skills.excluded);
  const envMaterial: EnvMaterial[] = [];

  for (const c of valid) {
    const entry = c.entry;
    const gating: Gating = c.read!.gating;
    const key = entry.details.config_key;
    const settings = entrySettings.get(key);
    const settingsCount = entry.source !== "workspace" || settings?.allowWorkspace === true;
    if (settings) {
      entry.details.config = {
        enabled: settings.enabled ?? null,
        env_names: [...settings.env.keys()],
        api_key_set: settings.apiKey !== null,
        allow_workspace: settings.allowWorkspace,
      };
    }
    entry.reasons = gatingReasons(entry.name, key, gating, {
      platform: inputs.platform,
      skillsEnabled: inputs.skills.enabled,
      excluded,
      entryEnabled: (k) => inputs.skills.entries[k]?.enabled,
      pluginEnabled: c.pluginEnabled,
      pluginKey: c.pluginKey,
      bundledAllowed:
        entry.kind === "bundled" && inputs.skills.allowBundled !== undefined
          ? inputs.skills.allowBundled.includes(entry.name)
          : undefined,
      hasBinary: (b) => found.get(b) === true,
      envAvailable: (variable) => {
        const value = envValue(inputs.env, variable, inputs.platform);
        if (value !== undefined && value !== "") return true;
        if (!settings || !settingsCount) return false;
        if (settings.env.get(variable)) return true;
        return variable === gating.primaryEnv && settings.apiKey !== null;
      },
      configTruthy: (p) => isTruthy(valueAtPath(inputs.settingsFile, p)),
    });
    entry.eligible = entry.reasons.length === 0;
    entry.offered = entry.eligible && entry.shadowed_by === null && !entry.details.disable_model_invocation;
    entry.cost_chars = skillCost(entry);
    entry.cost_tokens = tokenEstimate(entry.cost_chars);
    if (entry.eligible && entry.shadowed_by === null && settings && settingsCount) {
      envMaterial.push({
        name: entry.name,
        env: [...settings.env.entries()].filter((pair): pair is [string, string] => pair[1] !== null),
        primaryEnv: gating.primaryEnv,
        apiKey: settings.apiKey,
      });
    }
  }

  const sorted = [...candidates].sort(
    (a, b) =>
      compareCodePoints(a.entry.name, b.entry.name) || a.entry.rank - b.entry.rank || a.order - b.order,
  );
  const skills = sorted.map((c) => c.entry);
  const offered = skills.filter((e) => e.offered);
  const winnerEntries = skills.filter((e) => e.valid && e.shadowed_by === null);
  envMaterial.sort((a, b) => compareCodePoints(a.name, b.name));
  // Each entry's Σ term is already computed: the index cost is their sum plus the fixed part (§8.2).
  const costChars =
    offered.length === 0 ? 0 : INDEX_FIXED_COST + offered.reduce((n, e) => n + (e.cost_chars ?? 0), 0);
  const catalogue: Catalogue = {
    version: inputs.version,
    workspace: inputs.workspace,
    platform: inputs.platform,
    enabled: inputs.skills.enabled,
    max_active: inputs.skills.max_active,
    roots,
    skills,
    index: { count: offered.length, cost_chars: costChars, cost_tokens: tokenEstimate(costChars) },
  };
  return { catalogue, envMaterial, offered, winners: winnerEntries };
}
