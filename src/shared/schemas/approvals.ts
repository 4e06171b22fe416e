// The approvals file `E/exec-approvals.json` (exec-policy.md "The approvals file") and the policy
// vocabulary it writes: modes, allowlist entries, per-agent settings. Unknown keys are kept (loose
// objects) so a newer Gatehouse's additions survive an older one's write.
import { z } from "zod";

export const SecuritySchema = z.enum(["deny", "allowlist", "full"]);
export type Security = z.infer<typeof SecuritySchema>;
export const AskSchema = z.enum(["off", "on-miss", "always"]);
export type Ask = z.infer<typeof AskSchema>;
export const AskFallbackSchema = SecuritySchema;
export type AskFallback = Security;

export const AllowlistEntrySourceSchema = z.string(); // "user" | "allow-always" | "cli" | …

export const AllowlistEntrySchema = z.looseObject({
  id: z.string().min(1),
  /** Glob over the executable's real path, a bare name (`rg`), or `*`. */
  pattern: z.string().min(1),
  /** Regular expression tested against the arguments joined with single spaces. */
  argPattern: z.string().optional(),
  /** Glob the command's working directory must match. */
  cwd: z.string().optional(),
  /** Epoch ms after which the entry matches nothing; absent, null or 0 = never expires. */
  expiresAt: z.number().int().nonnegative().nullable().optional(),
  /** Remaining uses; absent or null = unlimited; 0 = used up (matches nothing). */
  usesLeft: z.number().int().nonnegative().nullable().optional(),
  source: AllowlistEntrySourceSchema.optional(),
  createdAt: z.number().int().nonnegative().optional(),
  lastUsedAt: z.number().int().nonnegative().nullable().optional(),
  lastUsedCommand: z.string().nullable().optional(),
  lastResolvedPath: z.string().nullable().optional(),
});
export type AllowlistEntry = z.infer<typeof AllowlistEntrySchema>;

export const PolicySettingsSchema = z.looseObject({
  security: SecuritySchema.optional(),
  ask: AskSchema.optional(),
  askFallback: AskFallbackSchema.optional(),
});
export type PolicySettings = z.infer<typeof PolicySettingsSchema>;

export const AgentSettingsSchema = PolicySettingsSchema.extend({
  allowlist: z.array(AllowlistEntrySchema).optional(),
});
export type AgentSettings = z.infer<typeof AgentSettingsSchema>;

/**
 * Elevated mode (seed 004 `/elevated`): security=full for one agent (or `*`, every agent) until `until`.
 * Started by a person (CLI, tray); never by the backend. Dropped when the app starts (it never outlives
 * the run it was given in) and ignored once `until` has passed.
 */
export const ElevationSchema = z.looseObject({
  until: z.number().int().positive(),
  since: z.number().int().nonnegative(),
  /** Who started it: `cli`, `tray`, … */
  by: z.string().max(100).optional(),
});
export type Elevation = z.infer<typeof ElevationSchema>;

export const ApprovalsFileSchema = z.looseObject({
  version: z.literal(1),
  socket: z.looseObject({
    path: z.string().min(1),
    token: z.string().min(16),
  }),
  defaults: PolicySettingsSchema.optional(),
  agents: z.record(z.string(), AgentSettingsSchema).default({}),
  /** Elevations by agent id (`*` = every agent). */
  elevated: z.record(z.string(), ElevationSchema).optional(),
});
export type ApprovalsFile = z.infer<typeof ApprovalsFileSchema>;
