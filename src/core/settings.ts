// App settings `E/settings.json`. Each feature owns its section's detailed schema (workdir roots in
// core/workdir, skills in core/skills); this file holds the envelope so one store writes the file.
import { z } from "zod";
import { INHERIT_PATTERN, refusedInheritName } from "./env-rules.js";

export const SettingsFileSchema = z.looseObject({
  version: z.literal(1).default(1),
  workdir: z.looseObject({ roots: z.array(z.string()).default([]) }).optional(),
  /** skills.md §6; parsed by src/core/skills. */
  skills: z.looseObject({}).optional(),
  /** Agent CLI binaries when not on PATH. */
  agents: z.looseObject({ claudePath: z.string().optional(), codexPath: z.string().optional() }).optional(),
  /** Agent id the Claude Code hook uses outside Gatehouse tasks (default `claude-code`). */
  hook: z.looseObject({ claudeAgentId: z.string().optional() }).optional(),
  /** Variables children inherit besides the built-in list; parsed by `environmentSettings`. */
  environment: z.looseObject({}).optional(),
  launchAtLogin: z.boolean().optional(),
  ui: z.looseObject({}).optional(),
});
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

export function emptySettings(): SettingsFile {
  return { version: 1 };
}

/**
 * `environment.inherit`: names of the runner's variables that commands and agents also get, each a
 * name or `PREFIX*` (e.g. `JAVA_HOME`, `AWS_*`). Gatehouse's secrets and the variables that change
 * how bash reads a command are refused here, with the reason.
 */
export const EnvironmentSettingsSchema = z.looseObject({
  inherit: z
    .array(
      z
        .string()
        .max(200)
        .regex(INHERIT_PATTERN, "must be a variable name, or a name prefix followed by * (e.g. AWS_*)")
        .superRefine((pattern, ctx) => {
          const refused = refusedInheritName(pattern);
          if (refused) ctx.addIssue({ code: "custom", message: refused });
        }),
    )
    .max(500)
    .default([]),
});
export type EnvironmentSettings = z.infer<typeof EnvironmentSettingsSchema>;

export type EnvironmentSettingsResult =
  { ok: true; value: EnvironmentSettings } | { ok: false; error: string };

/** The `environment` section of a settings file; an invalid section is an error value (nothing extra is inherited). */
export function environmentSettings(file: SettingsFile): EnvironmentSettingsResult {
  const parsed = EnvironmentSettingsSchema.safeParse(file.environment ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = ["environment", ...(issue?.path ?? [])].join(".");
  return { ok: false, error: `${where}: ${issue?.message ?? "invalid"}` };
}
