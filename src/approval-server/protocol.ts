// The approval socket's wire format (approval-protocol.md, version 2 in docs/approval-protocol-v2.md):
// one schema per frame and per reply body, used by the server and the client alike (the request bodies
// are in request-bodies.ts). zod/mini: the agent hook loads this on every tool call (issue 12).
import { z } from "zod/mini";
import type { Explanation } from "../shared/schemas/explanation.js";
import { OutcomeSchema } from "../shared/schemas/policy-words.js";
import { DENY_REASON_MAX } from "../shared/deny-reason.js";
import { builtOnFirstUse } from "../shared/first-use.js";
import { TASK_ID_PATTERN } from "./task-proof.js";

export const PROTOCOL_VERSION = 2;

export const ERROR_CODES = [
  "bad_version",
  "bad_mac",
  "expired",
  "replay",
  "too_large",
  "bad_request",
  "rate_limited",
  "busy",
  "unsupported",
  "bad_task_proof",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
/** Refusals that are answered unsigned and end the connection. */
export const AUTH_ERRORS: ReadonlySet<ErrorCode> = new Set(["bad_version", "bad_mac", "expired", "replay"]);

export const REQUEST_TYPES = [
  "ping",
  "policy.explain",
  "approval.request",
  "exec.run",
  "skill.call",
] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

const Hex = (min: number, max: number) =>
  z.string().check(z.regex(new RegExp(`^[0-9a-fA-F]{${min},${max}}$`)));

/**
 * A signed request as it travels on the socket. `body` is a JSON text, signed as is. `type` and `id`
 * are covered by the mac line by line, so neither may hold a newline (or anything but printable ASCII).
 */
export const RequestFrameSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  type: z.string().check(z.regex(/^[a-z][a-z0-9._-]{0,63}$/, "a request type is 1–64 of a-z 0-9 . _ -")),
  id: z
    .string()
    .check(z.regex(/^[\x21-\x7e]{1,128}$/, "an id is 1–128 printable ASCII characters without spaces")),
  nonce: Hex(16, 64),
  ts: z.int().check(z.nonnegative()),
  body: z.string(),
  mac: Hex(64, 64),
  /**
   * From the hook of an agent task Gatehouse launched: the task's id and a proof under its task key over
   * what the mac covers (task-proof.ts). Without it, who asks is what the body claims.
   */
  task: z.optional(
    z.object({
      id: z
        .string()
        .check(z.regex(TASK_ID_PATTERN, "a task id is 1–64 printable ASCII characters without spaces")),
      proof: Hex(64, 64),
    }),
  ),
});
export type RequestFrame = z.infer<typeof RequestFrameSchema>;

/** A signed reply: the same envelope; its body carries `re` = the request's nonce. */
export const SignedReplyFrameSchema = RequestFrameSchema;
export type SignedReplyFrame = RequestFrame;

/** An unsigned error (only for refusals before or during authentication); built on first use, as a refusal comes. */
export const unsignedErrorFrameSchema = builtOnFirstUse(() =>
  z.object({
    v: z.optional(z.number()),
    type: z.literal("error"),
    id: z.nullable(z.string()),
    body: z.string(),
  }),
);
export type UnsignedErrorFrame = z.infer<ReturnType<typeof unsignedErrorFrameSchema>>;

export const errorBodySchema = builtOnFirstUse(() =>
  z.looseObject({
    code: z.string(),
    message: z.string(),
  }),
);
export type ErrorBody = z.infer<ReturnType<typeof errorBodySchema>>;

/** Prompt timeout bounds (exec-policy.md "Deciding": default 120 s, at most 30 min). */
export const MAX_PROMPT_TIMEOUT_MS = 30 * 60_000;

// The request bodies (what the server checks) are in request-bodies.ts: the client only sends them, and
// building their schemas cost every hook call a third of the zod schemas it made at start-up.
export type {
  ApprovalRequestBody,
  ExecRunBody,
  ExplainBody,
  FileAccessBody,
  RequestBodies,
  SkillCallBody,
  ToolCallBody,
} from "./request-bodies.js";

// ---- reply bodies (what the client checks) ---------------------------------------------------

export const REPLY_TYPES = {
  ping: "pong",
  "policy.explain": "explanation",
  "approval.request": "decision",
  "exec.run": "exec.result",
  "skill.call": "skill.result",
} as const satisfies Record<RequestType, string>;

// Each reply body's schema is built when a reply of its type first arrives: a hook gets one reply.
const PROMPT_DECISIONS = [
  "allow-once",
  "allow-always",
  "deny",
  "timeout",
  "no-approver",
  "cancelled",
] as const;

const pongBody = () => z.looseObject({ version: z.string(), ui: z.boolean() });
export type PongBody = z.infer<ReturnType<typeof pongBody>>;

const decisionBody = () =>
  z.looseObject({
    decision: z.enum(PROMPT_DECISIONS),
    decidedBy: z.string(),
    reason: z.optional(z.string()),
    /** A person's denial: what they told the agent (shared/deny-reason.ts). */
    denyReason: z.optional(z.string().check(z.maxLength(DENY_REASON_MAX))),
    savedEntries: z.optional(z.array(z.looseObject({}))),
  });
export type DecisionBody = z.infer<ReturnType<typeof decisionBody>>;

const execResultBody = () =>
  z.looseObject({
    decision: z.enum(PROMPT_DECISIONS),
    decidedBy: z.string(),
    reason: z.optional(z.string()),
    denyReason: z.optional(z.string().check(z.maxLength(DENY_REASON_MAX))),
    exitCode: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    timedOut: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
    truncated: z.boolean(),
    durationMs: z.number(),
  });
export type ExecResultBody = z.infer<ReturnType<typeof execResultBody>>;

const explanationBody = () => z.looseObject({ outcome: OutcomeSchema, reason: z.string() });

const skillResultBody = () => z.looseObject({ text: z.string(), isError: z.boolean() });
export type SkillResultBody = z.infer<ReturnType<typeof skillResultBody>>;

const REPLY_BODY_SCHEMAS: Readonly<Record<string, () => z.ZodMiniType>> = {
  pong: builtOnFirstUse(pongBody),
  explanation: builtOnFirstUse(explanationBody),
  decision: builtOnFirstUse(decisionBody),
  "exec.result": builtOnFirstUse(execResultBody),
  "skill.result": builtOnFirstUse(skillResultBody),
} satisfies Record<(typeof REPLY_TYPES)[RequestType], () => z.ZodMiniType>;

/** The schema a reply body of `type` must pass; undefined for a type with none. */
export function replyBodySchema(type: string): z.ZodMiniType | undefined {
  return Object.prototype.hasOwnProperty.call(REPLY_BODY_SCHEMAS, type)
    ? REPLY_BODY_SCHEMAS[type]!()
    : undefined;
}

export interface ReplyBodies {
  ping: PongBody;
  "policy.explain": Explanation;
  "approval.request": DecisionBody;
  "exec.run": ExecResultBody;
  "skill.call": SkillResultBody;
}
