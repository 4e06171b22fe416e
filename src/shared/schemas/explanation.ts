// The policy engine's answer about one command (exec-policy.md): what was asked, how it was read
// (segments, flags), which settings applied and what the outcome is. `gatehouse policy explain --json`,
// the `policy.explain` socket reply, the approval prompt and the allowlist editor all carry this shape.
import { z } from "zod";
import {
  AgentRuntimeSchema,
  AskFallbackSchema,
  AskSchema,
  FileAccessKindSchema,
  IdentitySchema,
  OutcomeSchema,
  PosixShellsSchema,
  SecuritySchema,
  ShellKindSchema,
  ToolCallKindSchema,
} from "./policy-words.js";

export {
  AgentRuntimeSchema,
  ToolCallKindSchema,
  FileAccessKindSchema,
  IdentitySchema,
  OutcomeSchema,
  PosixShellSchema,
  PosixShellsSchema,
  ShellKindSchema,
} from "./policy-words.js";
export type {
  AgentRuntime,
  ToolCallKind,
  FileAccessKind,
  Identity,
  Outcome,
  PosixShell,
  PosixShells,
  ShellKind,
} from "./policy-words.js";

/** What is asked to run: exactly one of `argv` and `command`. */
export const CommandInputSchema = z.object({
  argv: z.array(z.string()).optional(),
  command: z.string().optional(),
  /** For `command`: which shell runs it (default: `posix`, or `cmd` on Windows). */
  shell: z.optional(ShellKindSchema),
  /**
   * For a POSIX string someone else runs (an agent's own shell): which one, so the analysis reads it the
   * way that shell will (default bash), or the candidates when that is not known for sure (each is
   * analysed; the strictest verdict is kept). Every dialect is read at least as strictly as bash.
   */
  posixShell: z.optional(PosixShellsSchema),
});
export type CommandInput = z.infer<typeof CommandInputSchema>;

export const FlagKindSchema = z.enum([
  "redirect", // output redirection to a file
  "background", // `&`
  "eval",
  "source",
  "exec",
  "function-definition",
  "dynamic-command", // command name is not a literal word
  "dangerous-assignment", // PATH, LD_*, DYLD_*, NODE_OPTIONS, PYTHONPATH
  "inline-code", // python -c, node -e, …
  "parse-error",
  "too-deep", // sh -c nesting over the limit
  "complex-windows", // cmd/PowerShell beyond one simple command
  "expansion", // a word part the analyser does not understand (operators in ${…}, arithmetic on variables…)
  "dynamic-argument", // a word known only at run time where a tool's rules read options
  "tool-option", // a tool's option or sub-command runs code or writes a file (an argPattern entry covers it)
  "own-files", // opens or names Gatehouse's own folder (its policy and secrets): always a person
  "protected-files", // reads a credentials or agent configuration folder, or another process's files
  "unknown-file", // a program opens a file known only when it runs (a substitution, a variable, a cd…)
]);
export type FlagKind = z.infer<typeof FlagKindSchema>;

export const FlagSchema = z.object({
  kind: FlagKindSchema,
  /** Plain words for the person deciding, e.g. `writes to out.txt`. */
  detail: z.string(),
  /** Index into `segments` when the flag belongs to one segment (inline code). */
  segment: z.number().int().nonnegative().optional(),
  /** Set when an allowlist entry's argPattern covers this flag (inline code): it then needs no person. */
  coveredBy: z.string().optional(),
});
export type Flag = z.infer<typeof FlagSchema>;

export const FoundViaSchema = z.enum(["path", "absolute", "relative", "home"]);
export type FoundVia = z.infer<typeof FoundViaSchema>;

export const SegmentSchema = z.object({
  /** The words of the simple command after unwrapping dispatch wrappers. */
  argv: z.array(z.string()),
  /** The command word as written (`git`, `./rg`, `/usr/bin/env`). */
  executable: z.string(),
  /** Real path of the executable, or null when it could not be resolved. */
  resolvedPath: z.string().nullable(),
  foundVia: FoundViaSchema.nullable(),
  /** Why it did not resolve (`not found on PATH`, `not executable`, …). */
  resolveError: z.string().optional(),
  /** Set when this segment is a dispatch wrapper (`env`, `nice`, …) whose command is a later segment. */
  wrapper: z.boolean().optional(),
  /** Where it was found: `top`, `substitution`, `subshell`, `sh -c`, … (for explanations). */
  context: z.string(),
  /** Where PATH lookup found it, before symlinks were resolved (bare-name patterns look at its name). */
  foundPath: z.string().optional(),
  /** The segment runs inline code (`python -c …`): only an entry with an argPattern covers it. */
  inlineCode: z.boolean().optional(),
  /** Some argument has expansions or globs: its `argv` entry is its source text, not its value. */
  dynamicArgs: z.boolean().optional(),
  /** A shell builtin that runs nothing (`cd`, `export X=1`): covered without an entry; says why. */
  builtin: z.string().optional(),
  /** A `cd` earlier in its shell: the folder it runs in is known only at run time. */
  cwdUnknown: z.boolean().optional(),
  /** Folder a wrapper moved to before starting it (`env -C dir cmd`), relative to the command's. */
  chdir: z.string().optional(),
  /** The matched entry has no argPattern for a tool that runs programs or writes files by its options. */
  broadGrant: z.string().optional(),
  matchedEntryId: z.string().nullable(),
  /** Which list the matched entry lives in (`*` or the agent id), for editing and usage bookkeeping. */
  matchedAgentId: z.string().optional(),
  /** Why no entry matched (only when matchedEntryId is null). */
  missReason: z.string().optional(),
});
export type Segment = z.infer<typeof SegmentSchema>;

/** Where a setting came from; `request` = tightened by the request, `elevated` = elevated mode. */
export const SettingSourceSchema = z.union([
  z.enum(["request", "elevated", "defaults", "built-in"]),
  z.templateLiteral(["agents.", z.string()]),
]);
export type SettingSource = z.infer<typeof SettingSourceSchema>;

/** Settings a request asks for: they may only tighten (exec-policy.md, where settings come from, step 2). */
export const RequestedSettingsSchema = z.object({
  security: z.optional(SecuritySchema),
  ask: z.optional(AskSchema),
});
export type RequestedSettings = z.infer<typeof RequestedSettingsSchema>;

export const SettingSourcesSchema = z.object({
  security: SettingSourceSchema,
  ask: SettingSourceSchema,
  askFallback: SettingSourceSchema,
});

export const PolicyDecisionSchema = z.object({
  outcome: OutcomeSchema,
  /** `security=deny`, `allowlist-miss`, `ask=always`, `security=full`, `allowlist`, `approvals-file-invalid`… */
  reason: z.string(),
  /** Entries that covered the segments (for `decidedBy: rule:<id>` and usage bookkeeping). */
  matchedEntryIds: z.array(z.string()),
});
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

export const ProposedEntrySchema = z.object({
  /** A program pattern, or `mcp:SERVER/TOOL` for an MCP tool (core/approvals/mcp-entry.ts). */
  pattern: z.string(),
  argPattern: z.string().optional(),
  /** Index of the uncovered segment this entry is for. */
  segment: z.number().int().nonnegative(),
});
export type ProposedEntry = z.infer<typeof ProposedEntrySchema>;

export const ApprovalsFileStatusSchema = z.object({
  path: z.string(),
  status: z.enum(["ok", "missing", "invalid"]),
  error: z.string().optional(),
});
export type ApprovalsFileStatus = z.infer<typeof ApprovalsFileStatusSchema>;

/** `gatehouse policy explain --json` and the `policy.explain` socket reply. */
export const ExplanationSchema = PolicyDecisionSchema.extend({
  security: SecuritySchema,
  ask: AskSchema,
  askFallback: AskFallbackSchema,
  sources: SettingSourcesSchema,
  /** Elevated mode is on for this agent until then (epoch ms). */
  elevatedUntil: z.number().optional(),
  /** What the request asked for (it may only tighten). */
  requested: RequestedSettingsSchema.optional(),
  agentId: z.string(),
  /** `unproven`: the agent id is a claim, so the least-trusted agent's settings and allowlist decided. */
  identity: z.optional(IdentitySchema),
  cwd: z.string(),
  command: CommandInputSchema,
  flags: z.array(z.string()),
  flagDetails: z.array(FlagSchema),
  segments: z.array(SegmentSchema),
  /** Whether the allowlist alone covers the command (used by askFallback=allowlist). */
  allowlistSatisfied: z.boolean(),
  approvalsFile: ApprovalsFileStatusSchema,
  /** Entries *Allow always* would save (exec-policy.md "Deciding"). */
  proposedEntries: z.array(ProposedEntrySchema),
  /** Whether the prompt may offer *allow always* (hidden under ask=always, or when nothing can be proposed). */
  allowAlwaysAvailable: z.boolean(),
  /**
   * Why *allow always* is withheld although it could be proposed: a standing rule for this command would
   * be unwise (core/policy/risk.ts standingRuleUnwise), words that follow "it" ("deletes your whole home
   * folder (/home/ada)"). The gate then saves nothing, whatever a presenter answers.
   */
  allowAlwaysWithheld: z.string().optional(),
});
export type Explanation = z.infer<typeof ExplanationSchema>;

/** Where a path lies, as the person is told. */
export const FileWhereSchema = z.enum([
  "inside", // in the task's working folder
  "outside", // anywhere else
  "sensitive-inside", // in the folder, but under a name whose files make later commands run code
  "protected", // in a protected folder (credentials, agent configuration, system, …)
  "unresolved", // cannot be resolved safely (`..` after a missing folder, a link loop, unreadable)
  "gatehouse-data", // Gatehouse's own data (tokens): never
]);
export type FileWhere = z.infer<typeof FileWhereSchema>;

/** A file an agent's own tool reads or writes: what the prompt, the explanation and the audit show. */
export const FileAccessViewSchema = z.object({
  tool: z.string(),
  access: FileAccessKindSchema,
  /** The task's working folder the paths were judged against. */
  workdir: z.string(),
  paths: z.array(z.object({ path: z.string(), where: FileWhereSchema, detail: z.string().optional() })),
});
export type FileAccessView = z.infer<typeof FileAccessViewSchema>;

/** A tool call that is neither a command nor a file access: what the prompt, the explanation and the audit show. */
export const ToolCallViewSchema = z.object({
  runtime: AgentRuntimeSchema,
  /** The tool's name as the runtime gave it (`WebFetch`, `mcp__docs__search`). */
  tool: z.string(),
  kind: ToolCallKindSchema,
  /** Plain words: what the tool does. */
  what: z.string(),
  /** Why a person decides (what Gatehouse did not fully understand); absent for a plain MCP call. */
  reason: z.string().optional(),
  /** For an MCP tool: the server and tool as the call names them. */
  mcp: z.object({ server: z.string(), tool: z.string() }).optional(),
  /** The tool's input as JSON text (shortened when long). */
  input: z.string().optional(),
  /** The task's working folder. */
  workdir: z.string(),
});
export type ToolCallView = z.infer<typeof ToolCallViewSchema>;
