// Plain secret values in `skills.entries.<key>` (issue 14, point 5): an `apiKey`, or an `env` value
// whose variable name says it is a secret (the one name rule of secret-mask.ts), written into
// settings.json as the value itself instead of a secret-store reference. The catalogue moves them into
// the store and leaves the reference behind; env values whose names do not look secret stay as they are.
import { isSecretKey } from "../secret-mask.js";
import { skillApiKeySecretRef, skillEnvSecretRef, type SkillsSettings } from "./settings-schema.js";

export interface PlainSecret {
  /** The skill entry key. */
  key: string;
  /** The variable name for an `env` value; null for `apiKey`. */
  env: string | null;
  value: string;
  /** The reference the settings hold once the value is in the store. */
  ref: string;
  /** `skills.entries.<key>.apiKey` or `skills.entries.<key>.env.<NAME>`: names the place, never the value. */
  place: string;
}

/** References the settings hold point into the store's `skills/` space; anything else may be plain. */
function mayBePlain(value: string | undefined): value is string {
  return value !== undefined && value !== "" && !value.startsWith("skills/");
}

/** Values that may be plain secrets (the caller still asks the store whether each one resolves). */
export function plainSecretCandidates(skills: SkillsSettings): PlainSecret[] {
  const out: PlainSecret[] = [];
  for (const [key, entry] of Object.entries(skills.entries)) {
    if (mayBePlain(entry.apiKey))
      out.push({
        key,
        env: null,
        value: entry.apiKey,
        ref: skillApiKeySecretRef(key),
        place: `skills.entries.${key}.apiKey`,
      });
    for (const [name, value] of Object.entries(entry.env)) {
      if (!isSecretKey(name) || !mayBePlain(value)) continue;
      out.push({
        key,
        env: name,
        value,
        ref: skillEnvSecretRef(key, name),
        place: `skills.entries.${key}.env.${name}`,
      });
    }
  }
  return out;
}

/**
 * Replaces the plain value by its reference in a freshly read settings object. False when the file no
 * longer holds that value there (changed since it was read): nothing is replaced.
 */
export function replaceWithReference(file: Record<string, unknown>, secret: PlainSecret): boolean {
  const skills = file.skills as { entries?: Record<string, Record<string, unknown>> } | undefined;
  const entry = skills?.entries?.[secret.key];
  if (!entry) return false;
  if (secret.env === null) {
    if (entry.apiKey !== secret.value) return false;
    entry.apiKey = secret.ref;
    return true;
  }
  const env = entry.env as Record<string, unknown> | undefined;
  if (!env || env[secret.env] !== secret.value) return false;
  env[secret.env] = secret.ref;
  return true;
}
