// The approval socket's wire format (approval-protocol.md, version 2 in docs/approval-protocol-v2.md):
// one schema per frame and per request body, used by the server and the client alike. zod/mini: the
// agent hook loads this on every tool call (issue 12).
import { z } from "zod/mini";
import type { Explanation } from "../shared/schemas/explanation.js";
import {
  AgentRuntimeSchema,
  FileAccessKindSchema,
  OutcomeSchema,
  PosixShellsSchema,
  SecuritySchema,
  AskSchema,
  ShellKindSchema,
  ToolCallKindSchema,
} from "../shared/schemas/policy-words.js";
import { DENY_REASON_MAX } from "../shared/deny-reason.js";
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

/** An unsigned error (only for refusals before or during authentication). */
export const UnsignedErrorFrameSchema = z.object({
  v: z.optional(z.number()),
  type: z.literal("error"),
  id: z.nullable(z.string()),
  body: z.string(),
});
export type UnsignedErrorFrame = z.infer<typeof UnsignedErrorFrameSchema>;

export const ErrorBodySchema = z.looseObject({
  code: z.string(),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ---- request bodies -------------------------------------------------------------------------

/** A string of `min` to `max` characters. */
const Text = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
const Argv = z.array(z.string().check(z.maxLength(65_536))).check(z.minLength(1), z.maxLength(4_096));
const CommandText = Text(1, 200_000);

const commandFields = {
  argv: z.optional(Argv),
  /** A shell string; an array is taken as an argv (as in the protocol's worked example). */
  command: z.optional(z.union([CommandText, Argv])),
  shell: z.optional(ShellKindSchema),
  /**
   * Which POSIX shell will run the string (the agent's own), or the candidates when the client is not
   * sure (each is analysed, the strictest verdict kept): only ever reads it more strictly than bash.
   */
  posixShell: z.optional(PosixShellsSchema),
  cwd: z.optional(Text(1, 4_096)),
  agentId: z.optional(Text(1, 200)),
  /** The request's own settings: they may only tighten the policy (a looser one is refused). */
  security: z.optional(SecuritySchema),
  ask: z.optional(AskSchema),
};

type RefinementContext = Parameters<Parameters<typeof z.superRefine>[0]>[1];

function exactlyOneCommand(body: { argv?: unknown; command?: unknown }, ctx: RefinementContext): void {
  if ((body.argv === undefined) === (body.command === undefined)) {
    ctx.addIssue({ code: "custom", message: "exactly one of argv and command must be given" });
  }
}

export const PingBodySchema = z.looseObject({});

export const ExplainBodySchema = z.object(commandFields).check(z.superRefine(exactlyOneCommand));
export type ExplainBody = z.infer<typeof ExplainBodySchema>;

/** Prompt timeout bounds (exec-policy.md "Deciding": default 120 s, at most 30 min). */
export const MAX_PROMPT_TIMEOUT_MS = 30 * 60_000;

/** A file an agent's own tool reads or writes (Claude Code's Write/Edit/Read…, Codex's apply_patch). */
export const FileAccessBodySchema = z.object({
  /** The agent's tool, as shown to the person: `Write`, `Edit`, `apply_patch`, `Read`, … */
  tool: Text(1, 100),
  access: FileAccessKindSchema,
  /** As the agent gave them (or its runtime handed them to the hook). */
  paths: z.array(Text(1, 4_096)).check(z.minLength(1), z.maxLength(64)),
  /** The task's working folder: writing inside it needs nobody (unless ask=always). */
  workdir: Text(1, 4_096),
  /** Whose tool: how each path becomes the path the runtime opens (trimming, `~`, textual `..`). */
  runtime: AgentRuntimeSchema,
  /** The folder relative paths are taken from when it is not `workdir` (the session's cwd, a call's workdir). */
  base: z.optional(Text(1, 4_096)),
});
export type FileAccessBody = z.infer<typeof FileAccessBodySchema>;

/**
 * An agent's tool call that is neither a command nor a file access (cli/hook/tool-call.ts): an MCP tool,
 * covered by an `mcp:SERVER/TOOL` entry, or a call the hook does not fully understand (`person`),
 * decided like an allowlist miss.
 */
export const ToolCallBodySchema = z.object({
  runtime: AgentRuntimeSchema,
  /** The tool's name as the runtime gave it (`WebFetch`, `mcp__docs__search`). */
  name: Text(1, 300),
  kind: ToolCallKindSchema,
  /** Plain words: what the tool does, shown to the person. */
  what: Text(1, 2_000),
  /** Why a person decides (`person` calls): what the hook did not understand. */
  reason: z.optional(Text(1, 2_000)),
  /** The tool's input as JSON text, shown to the person (the hook shortens it). */
  input: z.optional(Text(0, 20_000)),
  /** The task's working folder. */
  workdir: Text(1, 4_096),
});
export type ToolCallBody = z.infer<typeof ToolCallBodySchema>;

/** A whole number from 1 to `max`. */
const PositiveInt = (max: number) => z.int().check(z.positive(), z.maximum(max));

export const ApprovalRequestBodySchema = z
  .object({
    ...commandFields,
    /** Instead of a command: a file access (then `argv`, `command` and `shell` are absent). */
    file: z.optional(FileAccessBodySchema),
    /** Instead of a command: another tool call (then `argv`, `command`, `shell` and `file` are absent). */
    tool: z.optional(ToolCallBodySchema),
    sessionKey: z.optional(Text(1, 300)),
    source: z.optional(Text(1, 100)),
    reason: z.optional(Text(0, 2_000)),
    timeoutMs: z.optional(PositiveInt(MAX_PROMPT_TIMEOUT_MS)),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.file === undefined && body.tool === undefined) return exactlyOneCommand(body, ctx);
      if (body.file !== undefined && body.tool !== undefined)
        ctx.addIssue({ code: "custom", message: "a request is a file access or a tool call, not both" });
      if (body.argv !== undefined || body.command !== undefined || body.shell !== undefined)
        ctx.addIssue({
          code: "custom",
          message: "a file access or tool call carries no argv, command or shell",
        });
    }),
  );
export type ApprovalRequestBody = z.infer<typeof ApprovalRequestBodySchema>;

export const ExecRunBodySchema = z
  .object({
    ...commandFields,
    env: z.optional(z.record(z.string(), z.string())),
    sessionKey: z.optional(Text(1, 300)),
    timeoutMs: z.optional(PositiveInt(600_000)),
    maxOutputBytes: z.optional(PositiveInt(5 * 1024 * 1024)),
  })
  .check(z.superRefine(exactlyOneCommand));
export type ExecRunBody = z.infer<typeof ExecRunBodySchema>;

/** A call of the Gatehouse Skill tool (skills.md §9) from a task's skill MCP server: it reads skills, nothing else. */
export const SkillCallBodySchema = z.object({
  sessionKey: Text(1, 300),
  /** The tool's arguments as the model gave them; the engine validates them. */
  args: z.looseObject({}),
});
export type SkillCallBody = z.infer<typeof SkillCallBodySchema>;

export const REQUEST_BODY_SCHEMAS = {
  ping: PingBodySchema,
  "policy.explain": ExplainBodySchema,
  "approval.request": ApprovalRequestBodySchema,
  "exec.run": ExecRunBodySchema,
  "skill.call": SkillCallBodySchema,
} as const satisfies Record<RequestType, z.ZodMiniType>;

export interface RequestBodies {
  ping: Record<string, never>;
  "policy.explain": ExplainBody;
  "approval.request": ApprovalRequestBody;
  "exec.run": ExecRunBody;
  "skill.call": SkillCallBody;
}

// ---- reply bodies (what the client checks) ---------------------------------------------------

export const REPLY_TYPES = {
  ping: "pong",
  "policy.explain": "explanation",
  "approval.request": "decision",
  "exec.run": "exec.result",
  "skill.call": "skill.result",
} as const satisfies Record<RequestType, string>;

export const PromptDecisionSchema = z.enum([
  "allow-once",
  "allow-always",
  "deny",
  "timeout",
  "no-approver",
  "cancelled",
]);

export const PongBodySchema = z.looseObject({ version: z.string(), ui: z.boolean() });
export type PongBody = z.infer<typeof PongBodySchema>;

export const DecisionBodySchema = z.looseObject({
  decision: PromptDecisionSchema,
  decidedBy: z.string(),
  reason: z.optional(z.string()),
  /** A person's denial: what they told the agent (shared/deny-reason.ts). */
  denyReason: z.optional(z.string().check(z.maxLength(DENY_REASON_MAX))),
  savedEntries: z.optional(z.array(z.looseObject({}))),
});
export type DecisionBody = z.infer<typeof DecisionBodySchema>;

export const ExecResultBodySchema = z.looseObject({
  decision: PromptDecisionSchema,
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
export type ExecResultBody = z.infer<typeof ExecResultBodySchema>;

export const ExplanationBodySchema = z.looseObject({
  outcome: OutcomeSchema,
  reason: z.string(),
});

export const SkillResultBodySchema = z.looseObject({ text: z.string(), isError: z.boolean() });
export type SkillResultBody = z.infer<typeof SkillResultBodySchema>;

export const REPLY_BODY_SCHEMAS = {
  pong: PongBodySchema,
  explanation: ExplanationBodySchema,
  decision: DecisionBodySchema,
  "exec.result": ExecResultBodySchema,
  "skill.result": SkillResultBodySchema,
} as const;

export interface ReplyBodies {
  ping: PongBody;
  "policy.explain": Explanation;
  "approval.request": DecisionBody;
  "exec.run": ExecResultBody;
  "skill.call": SkillResultBody;
}
