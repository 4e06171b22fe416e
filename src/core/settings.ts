// App settings `E/settings.json`. Each feature owns its section's detailed schema (workdir roots in
// core/workdir, skills in core/skills); this file holds the envelope so one store writes the file.
// zod/mini: the agent hook reads this file on every tool call (issue 12).
import { z } from "zod/mini";
import { INHERIT_PATTERN, refusedInheritName } from "./env-rules.js";
import { HookSettingsSchema } from "./settings-hook.js";

export const SettingsFileSchema = z.looseObject({
  version: z._default(z.literal(1), 1),
  workdir: z.optional(z.looseObject({ roots: z._default(z.array(z.string()), []) })),
  /** skills.md §6; parsed by src/core/skills. */
  skills: z.optional(z.looseObject({})),
  /** Agent CLI binaries when not on PATH. */
  agents: z.optional(
    z.looseObject({ claudePath: z.optional(z.string()), codexPath: z.optional(z.string()) }),
  ),
  /** Agent id the Claude Code hook uses outside Gatehouse tasks (settings-hook.ts: the hook reads only this). */
  hook: z.optional(HookSettingsSchema),
  /** Variables children inherit besides the built-in list; parsed by `environmentSettings`. */
  environment: z.optional(z.looseObject({})),
  launchAtLogin: z.optional(z.boolean()),
  /**
   * The backend connection. `execEvents`: send Gatehouse's own `exec.started|finished|denied` for backend
   * commands (off by default: no Wegent backend handles them, and they carry command lines and output).
   */
  device: z.optional(z.looseObject({ execEvents: z.optional(z.boolean()) })),
  ui: z.optional(z.looseObject({})),
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
  inherit: z._default(
    z
      .array(
        z.string().check(
          z.maxLength(200),
          z.regex(INHERIT_PATTERN, "must be a variable name, or a name prefix followed by * (e.g. AWS_*)"),
          z.superRefine((pattern, ctx) => {
            const refused = refusedInheritName(pattern);
            if (refused) ctx.addIssue({ code: "custom", message: refused });
          }),
        ),
      )
      .check(z.maxLength(500)),
    [],
  ),
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
