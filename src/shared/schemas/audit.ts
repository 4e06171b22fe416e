// `E/audit.jsonl` (architecture.md "Data folders"): one JSON line per decision and per run, saying who
// decided. Written by the executor's audit log, read back by the activity screen and the allowlist
// preview.
import { z } from "zod";
import { IdentitySchema } from "./policy-words.js";
import { PromptDecisionSchema, VerifiedTaskSchema } from "./prompt.js";

/** Who decided, as written to the audit log and replies. */
export const DecidedBySchema = z.union([
  z.templateLiteral(["rule:", z.string().min(1)]),
  z.enum(["user", "fallback", "policy"]),
]);
export type DecidedBy = z.infer<typeof DecidedBySchema>;

export const AuditRecordSchema = z.looseObject({
  ts: z.number().int().nonnegative(),
  runId: z.string().min(1),
  /** `elevation`: a person started or ended elevated mode (executor/elevation.ts). */
  event: z.enum(["decision", "run", "elevation"]),
  agentId: z.string(),
  sessionKey: z.string(),
  source: z.string(),
  /** The command as shown to people (displayCommand). */
  command: z.string(),
  cwd: z.string(),
  decision: PromptDecisionSchema,
  decidedBy: DecidedBySchema,
  reason: z.string(),
  /** Decision lines of a person's denial: what they told the agent (shared/deny-reason.ts). */
  denyReason: z.string().optional(),
  /** Run lines: the exit code (null when killed or not started); decision lines: null. */
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  /** Run lines: spawn to exit; decision lines: request to decision (a prompt's wait included). */
  durationMs: z.number().nonnegative(),
  commandKey: z.string().optional(),
  signal: z.string().nullable().optional(),
  truncated: z.boolean().optional(),
  /** The command was decided under elevated mode, which ends then (epoch ms). */
  elevatedUntil: z.number().int().optional(),
  /** Settings the request asked for (they may only tighten). */
  requested: z.looseObject({ security: z.string().optional(), ask: z.string().optional() }).optional(),
  /**
   * Decision and run lines: the request came from the hook of this running Gatehouse task (proved by its
   * task key). Absent: agent, session and source are what the client claimed.
   */
  verified: VerifiedTaskSchema.optional(),
  /**
   * Decision and run lines: `unproven` when the agent id was only claimed by a client of the approval
   * socket (no task proof), so the least-trusted agent's settings and allowlist decided.
   */
  identity: z.optional(IdentitySchema),
  /**
   * Elevation lines: how long it was started for (ms) and when it ends (epoch ms); absent on an early end.
   * Older lines have neither (their reason names the end time).
   */
  elevation: z.looseObject({ forMs: z.number().optional(), until: z.number().optional() }).optional(),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
