// The approvals file `E/exec-approvals.json` (exec-policy.md "The approvals file") and the policy
// vocabulary it writes: modes, allowlist entries, per-agent settings. Unknown keys are kept (loose
// objects) so a newer Gatehouse's additions survive an older one's write. zod/mini: every one-shot command
// that reads the policy (`policy explain`, the hook deciding alone) loads it (issue 12).
import { z } from "zod/mini";
import { ApprovalsSocketSchema } from "./approvals-socket.js";
import { AskFallbackSchema, AskSchema, SecuritySchema } from "./policy-words.js";

export { AskFallbackSchema, AskSchema, SecuritySchema } from "./policy-words.js";
export type { Ask, AskFallback, Security } from "./policy-words.js";

const NonEmpty = z.string().check(z.minLength(1));
/** A whole number ≥ 0 (epoch ms, counts). */
const Count = z.int().check(z.nonnegative());

export const AllowlistEntrySourceSchema = z.string(); // "user" | "allow-always" | "cli" | …

export const AllowlistEntrySchema = z.looseObject({
  id: NonEmpty,
  /** Glob over the executable's real path, a bare name (`rg`), or `*`. */
  pattern: NonEmpty,
  /** Regular expression tested against the arguments joined with single spaces. */
  argPattern: z.optional(z.string()),
  /** Glob the command's working directory must match. */
  cwd: z.optional(z.string()),
  /** Epoch ms after which the entry matches nothing; absent, null or 0 = never expires. */
  expiresAt: z.optional(z.nullable(Count)),
  /** Remaining uses; absent or null = unlimited; 0 = used up (matches nothing). */
  usesLeft: z.optional(z.nullable(Count)),
  source: z.optional(AllowlistEntrySourceSchema),
  createdAt: z.optional(Count),
  lastUsedAt: z.optional(z.nullable(Count)),
  lastUsedCommand: z.optional(z.nullable(z.string())),
  lastResolvedPath: z.optional(z.nullable(z.string())),
});
export type AllowlistEntry = z.infer<typeof AllowlistEntrySchema>;

export const PolicySettingsSchema = z.looseObject({
  security: z.optional(SecuritySchema),
  ask: z.optional(AskSchema),
  askFallback: z.optional(AskFallbackSchema),
});
export type PolicySettings = z.infer<typeof PolicySettingsSchema>;

export const AgentSettingsSchema = z.extend(PolicySettingsSchema, {
  allowlist: z.optional(z.array(AllowlistEntrySchema)),
});
export type AgentSettings = z.infer<typeof AgentSettingsSchema>;

/**
 * Elevated mode (seed 004 `/elevated`): security=full for one agent (or `*`, every agent) until `until`.
 * Started by a person (CLI, tray); never by the backend. Dropped when the app starts (it never outlives
 * the run it was given in) and ignored once `until` has passed.
 */
export const ElevationSchema = z.looseObject({
  until: z.int().check(z.positive()),
  since: Count,
  /** Who started it: `cli`, `tray`, … */
  by: z.optional(z.string().check(z.maxLength(100))),
});
export type Elevation = z.infer<typeof ElevationSchema>;

export const ApprovalsFileSchema = z.looseObject({
  version: z.literal(1),
  socket: ApprovalsSocketSchema,
  defaults: z.optional(PolicySettingsSchema),
  agents: z._default(z.record(z.string(), AgentSettingsSchema), {}),
  /** Elevations by agent id (`*` = every agent). */
  elevated: z.optional(z.record(z.string(), ElevationSchema)),
});
export type ApprovalsFile = z.infer<typeof ApprovalsFileSchema>;
