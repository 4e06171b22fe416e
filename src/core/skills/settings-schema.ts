// The `skills` section of `E/settings.json` (skills.md §6). Secrets are not stored here: `env` values
// and `apiKey` are references that the SecretStore resolves.
import { z } from "zod";
import { describeZodError } from "../store/index.js";

export const SkillEntrySettingsSchema = z.looseObject({
  /** `false` disables the skill; unset = no opinion. */
  enabled: z.boolean().optional(),
  /** Variable name → secret reference. */
  env: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Secret reference of the value for the skill's `primaryEnv`. */
  apiKey: z.string().min(1).optional(),
  /** Lets a workspace winner use this entry's `env` and `apiKey`. */
  allow_workspace: z.boolean().default(false),
});
export type SkillEntrySettings = z.infer<typeof SkillEntrySettingsSchema>;

export const SkillsSettingsSchema = z.looseObject({
  enabled: z.boolean().default(true),
  max_active: z.number().int().min(1).max(20).default(5),
  excluded: z.array(z.string()).default([]),
  extra_roots: z.array(z.string()).default([]),
  /** Bundled skills (rank 9) that may be offered; unset = all of them (OpenClaw's `allowBundled`). */
  allowBundled: z.array(z.string()).optional(),
  watch: z.boolean().default(true),
  watch_debounce_ms: z.number().int().min(0).default(250),
  entries: z.record(z.string(), SkillEntrySettingsSchema).default({}),
});
export type SkillsSettings = z.infer<typeof SkillsSettingsSchema>;

export function defaultSkillsSettings(): SkillsSettings {
  return SkillsSettingsSchema.parse({});
}

export type SkillsSettingsResult = { ok: true; value: SkillsSettings } | { ok: false; error: string };

/** Parses the `skills` section of a whole settings object (absent section = defaults). */
export function parseSkillsSettings(settings: unknown): SkillsSettingsResult {
  const section =
    settings && typeof settings === "object" ? (settings as Record<string, unknown>).skills : undefined;
  const parsed = SkillsSettingsSchema.safeParse(section ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const detail = describeZodError(parsed.error)
    .split("; ")
    .map((part) => (part.startsWith("(root)") ? `skills${part.slice(6)}` : `skills.${part}`))
    .join("; ");
  return { ok: false, error: detail };
}

/** The secret reference the settings hold for `entries.<key>.env.<name>` (what the UI stores). */
export function skillEnvSecretRef(key: string, name: string): string {
  return `skills/${key}/env/${name}`;
}

/** The secret reference the settings hold for `entries.<key>.apiKey`. */
export function skillApiKeySecretRef(key: string): string {
  return `skills/${key}/apiKey`;
}
