// Gating (skills.md §5): the metadata object under its three spellings, and the checks that decide
// whether a valid entry is eligible, with the exact reason texts in the order of §5.2.
import { normaliseBoolean, normaliseList } from "./fields.js";
import type { SkillRequires } from "./types.js";
import { isRecord } from "../../shared/is-record.js";

/** The keys that hold gating metadata, in the order they are looked up. */
export const METADATA_KEYS = ["openclaw", "moltbot", "clawdbot"] as const;

const OS_ALIASES: Record<string, string> = {
  darwin: "darwin",
  macos: "darwin",
  linux: "linux",
  win32: "win32",
  windows: "win32",
};

export interface Gating {
  always: boolean;
  /** Normalised platforms, or null when the skill runs everywhere. */
  os: string[] | null;
  requires: SkillRequires;
  primaryEnv: string | null;
  skillKey: string | null;
  emoji: string | null;
  homepage: string | null;
  install: unknown;
}

export function emptyGating(): Gating {
  return {
    always: false,
    os: null,
    requires: { bins: [], anyBins: [], env: [], config: [] },
    primaryEnv: null,
    skillKey: null,
    emoji: null,
    homepage: null,
    install: null,
  };
}

/** Reads the gating object out of a skill's metadata; problems become warnings. */
export function readGating(metadata: Record<string, unknown>): { gating: Gating; warnings: string[] } {
  const warnings: string[] = [];
  const gating = emptyGating();
  const present = METADATA_KEYS.filter((key) => metadata[key] !== undefined && metadata[key] !== null);
  const key = present[0];
  if (key === undefined) return { gating, warnings };
  if (present.length > 1) warnings.push(`several metadata keys; using ${key}`);
  const source = metadata[key];
  if (!isRecord(source)) {
    warnings.push(`ignored field metadata.${key}: expected mapping`);
    return { gating, warnings };
  }
  const field = (name: string) => `metadata.${key}.${name}`;
  const ignored = (name: string, type: string) =>
    warnings.push(`ignored field ${field(name)}: expected ${type}`);
  const list = (value: unknown, name: string): string[] => {
    if (value === undefined || value === null) return [];
    const items = normaliseList(value);
    if (items === null) {
      ignored(name, "list or comma-separated string");
      return [];
    }
    return items;
  };
  const text = (value: unknown, name: string): string | null => {
    if (value === undefined || value === null) return null;
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    ignored(name, "string");
    return null;
  };

  if (source.always !== undefined && source.always !== null) {
    const always = normaliseBoolean(source.always);
    if (always === null) ignored("always", "boolean");
    else gating.always = always;
  }
  if (source.os !== undefined && source.os !== null) {
    const values = list(source.os, "os");
    const os: string[] = [];
    for (const value of values) {
      const known = OS_ALIASES[value.toLowerCase()];
      if (known === undefined) warnings.push(`unknown os value: ${value}`);
      if (!os.includes(known ?? value)) os.push(known ?? value);
    }
    gating.os = os;
  }
  const requires = source.requires;
  if (requires !== undefined && requires !== null) {
    if (!isRecord(requires)) ignored("requires", "mapping");
    else {
      gating.requires = {
        bins: list(requires.bins, "requires.bins"),
        anyBins: list(requires.anyBins, "requires.anyBins"),
        env: list(requires.env, "requires.env"),
        config: list(requires.config, "requires.config"),
      };
    }
  }
  gating.primaryEnv = text(source.primaryEnv, "primaryEnv");
  gating.skillKey = text(source.skillKey, "skillKey");
  gating.emoji = text(source.emoji, "emoji");
  gating.homepage = text(source.homepage, "homepage");
  gating.install = source.install ?? null;
  return { gating, warnings };
}

/** Truthy as §5.2 defines it: true, a non-zero number, or a non-empty string, array or object. */
export function isTruthy(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return false;
}

/** The value at a dotted path (`a.b.c`) of a settings object. */
export function valueAtPath(root: unknown, dotted: string): unknown {
  let current: unknown = root;
  for (const part of dotted.split(".")) {
    if (!isRecord(current) || !Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/** Everything the checks need to know about the world, computed once per build. */
export interface GatingContext {
  platform: string;
  skillsEnabled: boolean;
  excluded: ReadonlySet<string>;
  /** `skills.entries.<key>.enabled` */
  entryEnabled(key: string): boolean | undefined;
  /** Whether the plugin an entry comes from is enabled (undefined for non-plugin entries). */
  pluginEnabled: boolean | undefined;
  pluginKey: string | undefined;
  /** For a bundled entry when `skills.allowBundled` is set: whether it lists the name. */
  bundledAllowed?: boolean | undefined;
  hasBinary(name: string): boolean;
  /** A variable is available (environment, or the settings sources when they count). */
  envAvailable(name: string): boolean;
  configTruthy(path: string): boolean;
}

/** The reasons a valid entry is not eligible, in §5.2 order; empty = eligible. */
export function gatingReasons(name: string, key: string, gating: Gating, ctx: GatingContext): string[] {
  const reasons: string[] = [];
  if (!ctx.skillsEnabled) reasons.push("skills turned off in settings");
  if (ctx.excluded.has(name)) reasons.push("excluded in settings");
  if (ctx.entryEnabled(key) === false) reasons.push("disabled in settings");
  if (ctx.pluginEnabled === false) reasons.push(`plugin disabled: ${ctx.pluginKey ?? ""}`);
  if (ctx.bundledAllowed === false) reasons.push("bundled skill not in skills.allowBundled");
  if (gating.os !== null && !gating.os.includes(ctx.platform)) {
    reasons.push(`unsupported OS: ${ctx.platform} (supports ${gating.os.join(", ")})`);
  }
  if (!gating.always) {
    for (const bin of gating.requires.bins) if (!ctx.hasBinary(bin)) reasons.push(`missing binary: ${bin}`);
    const any = gating.requires.anyBins;
    if (any.length > 0 && !any.some((bin) => ctx.hasBinary(bin))) {
      reasons.push(`missing binary: one of ${any.join(", ")}`);
    }
    for (const variable of gating.requires.env) {
      if (!ctx.envAvailable(variable)) reasons.push(`missing env: ${variable}`);
    }
    for (const path of gating.requires.config) {
      if (!ctx.configTruthy(path)) reasons.push(`config not set: ${path}`);
    }
  }
  return reasons;
}
