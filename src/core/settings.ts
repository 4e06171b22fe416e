// App settings `E/settings.json`. Each feature owns its section's detailed schema (workdir roots in
// core/workdir, skills in core/skills); this file holds the envelope so one store writes the file.
import { z } from "zod";

export const SettingsFileSchema = z.looseObject({
  version: z.literal(1).default(1),
  workdir: z.looseObject({ roots: z.array(z.string()).default([]) }).optional(),
  /** skills.md §6; parsed by src/core/skills. */
  skills: z.looseObject({}).optional(),
  /** Agent CLI binaries when not on PATH. */
  agents: z.looseObject({ claudePath: z.string().optional(), codexPath: z.string().optional() }).optional(),
  /** Agent id the Claude Code hook uses outside Gatehouse tasks (default `claude-code`). */
  hook: z.looseObject({ claudeAgentId: z.string().optional() }).optional(),
  launchAtLogin: z.boolean().optional(),
  ui: z.looseObject({}).optional(),
});
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

export function emptySettings(): SettingsFile {
  return { version: 1 };
}
