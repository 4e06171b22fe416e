// The `hook` section of `E/settings.json` (core/settings.ts holds the envelope). The Claude Code hook
// reads only this much of the file, with its version, on every tool call: the rest of the file (workdir
// roots, the environment's inherit rules, …) is the app's to read and check, and building the whole
// envelope's schemas was start-up cost for one optional string (issue 12, as the approvals file's socket
// section in shared/schemas/approvals-socket.ts).
import { z } from "zod/mini";

/** Agent id the Claude Code hook uses outside Gatehouse tasks (default `claude-code`). */
export const HookSettingsSchema = z.looseObject({ claudeAgentId: z.optional(z.string()) });

/** The settings file as the hook reads it: its version and `hook` section. */
export const SettingsHookViewSchema = z.looseObject({
  version: z._default(z.literal(1), 1),
  hook: z.optional(HookSettingsSchema),
});
