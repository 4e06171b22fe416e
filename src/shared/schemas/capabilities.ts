// Capability sync as the UI sees it (issue 16): the live progress the sync engine pushes (items done of
// total, the current item, bytes while downloading), how a sync ended, and the problem of one item (a
// conflict with both paths, or a failure with its reason). One shape from the engine to the renderer.
import { z } from "zod";

export const SYNC_PHASES = ["download", "remove", "install", "write", "cleanup", "done"] as const;

export const SyncProgressSchema = z.object({
  /** `download` also covers planning and staging: until it ends, a cancel changes nothing. */
  phase: z.enum(SYNC_PHASES),
  /** The skill name, plugin key or MCP name being worked on; null for whole-sync phases. */
  item: z.string().nullable(),
  /** In `download`: packages ready of packages to fetch; in the other phases: items done of all items. */
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** The current item's download: bytes received, and of how many when the server said (else null). */
  bytes: z
    .object({ received: z.number().int().nonnegative(), total: z.number().int().nonnegative().nullable() })
    .nullable()
    .optional(),
  /** True while a cancel still changes nothing (before the apply stage begins). */
  cancellable: z.boolean().optional(),
  /** Only on `done`: how the sync ended. */
  outcome: z.enum(["finished", "cancelled", "failed"]).optional(),
});
export type SyncProgress = z.infer<typeof SyncProgressSchema>;
export type SyncPhase = SyncProgress["phase"];

/** A path involved in a conflict or a failure, as main found it just now. */
export const ProblemPathSchema = z.object({
  path: z.string(),
  /** `runtime` = where Claude Code or Codex looks; `store` = Gatehouse's own copy. */
  role: z.enum(["theirs", "ours"]),
  runtime: z.enum(["claude", "codex"]).nullable(),
  exists: z.boolean(),
});
export type ProblemPath = z.infer<typeof ProblemPathSchema>;

/** Why an item is not synced, and the paths involved; the user's item is never offered for removal. */
export const ItemProblemSchema = z.object({
  kind: z.enum(["conflict", "failed"]),
  /** What happened, as the sync reported it to the backend (device-protocol.md §10 wording). */
  reason: z.string(),
  /** What happened in plain words (which item, which step) and what the person can do about it. */
  whatToDo: z.string(),
  paths: z.array(ProblemPathSchema),
});
export type ItemProblem = z.infer<typeof ItemProblemSchema>;

/** What "Apply the last sync again" did (it re-applies the last payload; it asks the backend nothing). */
export const SyncRequestResultSchema = z.union([
  z.object({ ok: z.literal(true), how: z.enum(["rerun-last-payload"]), message: z.string() }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);

export const SyncCancelResultSchema = z.union([
  z.object({ ok: z.literal(true), message: z.string() }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);
