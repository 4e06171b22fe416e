// A pending approval, one shape from the gate to the screen: the gate builds a PromptRequest, the broker
// queues it, the socket presenters print it, and the approval dialog receives it as a PromptView (the
// same fields plus what main derives for display). A field added to PromptRequestSchema reaches the
// dialog without any code in between changing.
import { z } from "zod";
import { DENY_REASON_MAX } from "../deny-reason.js";
import {
  CommandInputSchema,
  ExplanationSchema,
  FileAccessViewSchema,
  ProposedEntrySchema,
  ToolCallViewSchema,
} from "./explanation.js";

/**
 * A decision a person (or askFallback) gives on a prompt. `timeout`: a person was asked and did not answer
 * in time; `no-approver`: nobody could be asked at all (no UI, terminal or ask-via presenter reachable).
 */
export const PromptDecisionSchema = z.enum([
  "allow-once",
  "allow-always",
  "deny",
  "timeout",
  "no-approver",
  "cancelled",
]);
export type PromptDecision = z.infer<typeof PromptDecisionSchema>;

/**
 * Who asks, proved: the request came from the hook of an agent task Gatehouse launched and is still
 * running (its task key, approval-server/task-proof.ts). Absent = what the client says is a claim.
 */
export const VerifiedTaskSchema = z.object({
  taskId: z.string(),
  /** `claude-code` or `codex`: the runtime Gatehouse started for the task. */
  runtime: z.enum(["claude-code", "codex"]),
  /** The agent id Gatehouse gave the task's hook (whose allowlist applies). */
  agent: z.string(),
});
export type VerifiedTask = z.infer<typeof VerifiedTaskSchema>;

/** What the approval dialog shows; queued by the prompt broker (approval-server/broker.ts). */
export const PromptRequestSchema = z.object({
  id: z.string(),
  /** Groups prompts (exec-policy.md "Agents and sessions"): `task:<id>`, `claude:<session>`, `local`, … */
  sessionKey: z.string(),
  agentId: z.string(),
  /** Who asked: `backend`, `claude-hook`, `cli`, `socket`, … */
  source: z.string(),
  /** Free text from the requester (e.g. the backend's `command_key`). */
  reason: z.string().optional(),
  cwd: z.string(),
  command: CommandInputSchema,
  explanation: ExplanationSchema,
  createdAt: z.number(),
  /** When askFallback takes over (createdAt + timeout). */
  expiresAt: z.number(),
  /** Set only when Gatehouse verified the task the request comes from; else agent and source are claims. */
  verified: VerifiedTaskSchema.optional(),
});
export type PromptRequest = z.infer<typeof PromptRequestSchema>;

/** An *allow always* entry as the person confirmed it: narrowed to a folder, a time, a number of uses. */
export const ConfirmedEntrySchema = ProposedEntrySchema.extend({
  cwd: z.string().optional(),
  /** Stops covering at this time (epoch ms). */
  expiresAt: z.number().int().positive().optional(),
  /** Covers this many more runs. */
  usesLeft: z.number().int().positive().optional(),
});
export type ConfirmedEntry = z.infer<typeof ConfirmedEntrySchema>;

export const PromptAnswerSchema = z.object({
  decision: PromptDecisionSchema,
  /** For allow-always: the entries the person confirmed (possibly edited from `proposedEntries`). */
  entries: z.array(ConfirmedEntrySchema).optional(),
  /** For deny: what the person told the agent, already cleaned (shared/deny-reason.ts). */
  denyReason: z.string().max(DENY_REASON_MAX).optional(),
});
export type PromptAnswer = z.infer<typeof PromptAnswerSchema>;

/** What could go badly wrong if the request were allowed (core/policy/risk.ts), dangers first. */
export const RiskSchema = z.object({
  kind: z.enum([
    "destructive",
    "network-to-shell",
    "privilege",
    "outside-workdir",
    "own-files",
    "runs-if-unanswered",
    "elevated",
    "installs",
  ]),
  /** `danger`: a wrong "allow" can destroy data or hand over the machine; `caution`: worth a second look. */
  level: z.enum(["danger", "caution"]),
  /** Plain words for the person deciding, naming the part of the command it comes from. */
  detail: z.string(),
  /** Until when it holds (epoch ms; elevated mode): the dialog says it in the person's local time. */
  until: z.number().optional(),
});
export type Risk = z.infer<typeof RiskSchema>;

/** A pending approval as the dialog receives it: the request plus what main derives for display. */
export const PromptViewSchema = PromptRequestSchema.extend({
  /** The command exactly as it will run, as one string (an argv quoted for a POSIX shell). */
  commandText: z.string(),
  /** Set when the request is a file access rather than a command. */
  fileAccess: FileAccessViewSchema.optional(),
  /** Set when the request is a tool call other than a command or a file access (an MCP tool, …). */
  toolCall: ToolCallViewSchema.optional(),
  /** What a wrong "allow" could do, for the banner at the top of the dialog, the tray and notifications. */
  risks: z.array(RiskSchema),
  /** Narrower *allow always* entries the person may choose: this folder, these exact arguments (per
   * segment; null when the arguments are known only at run time). */
  narrowing: z.object({ cwdPattern: z.string(), exactArgPatterns: z.array(z.string().nullable()) }),
});
export type PromptView = z.infer<typeof PromptViewSchema>;
