// The approval socket's request bodies (approval-protocol.md, version 2 in docs/approval-protocol-v2.md):
// what the server checks before anything is decided. Apart from protocol.ts (frames, reply bodies) so the
// agent hook, which only sends requests, never builds these schemas (issue 12: the hook's start-up).
import { z } from "zod/mini";
import {
  AgentRuntimeSchema,
  FileAccessKindSchema,
  PosixShellsSchema,
  SecuritySchema,
  AskSchema,
  ShellKindSchema,
  ToolCallKindSchema,
} from "../shared/schemas/policy-words.js";
import { MAX_PROMPT_TIMEOUT_MS, type RequestType } from "./protocol.js";

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
