// The policy's small vocabulary (modes, shells, outcomes) shared by the approvals file, the
// explanation and the approval socket's wire format. Written with zod/mini: the agent hook loads these
// on every tool call, and zod/mini starts several times faster than classic zod (issue 12). Classic
// schemas embed them as they are (`z.optional(SecuritySchema)`).
import { z } from "zod/mini";

export const SecuritySchema = z.enum(["deny", "allowlist", "full"]);
export type Security = z.infer<typeof SecuritySchema>;
export const AskSchema = z.enum(["off", "on-miss", "always"]);
export type Ask = z.infer<typeof AskSchema>;
export const AskFallbackSchema = SecuritySchema;
export type AskFallback = Security;

/** Which shell a command string is meant for. `posix` = the user's shell on macOS/Linux. */
export const ShellKindSchema = z.enum(["posix", "cmd", "powershell"]);
export type ShellKind = z.infer<typeof ShellKindSchema>;

/** The POSIX shells an agent may run a string with; each is read at least as strictly as bash. */
export const PosixShellSchema = z.enum(["bash", "sh", "zsh"]);
export type PosixShell = z.infer<typeof PosixShellSchema>;

/**
 * The shell a string will run under, or the candidates when it is not known for sure (an agent's own
 * shell, docs/decisions.md "The dialect the runtime really runs"): each candidate is analysed and the
 * strictest verdict is kept.
 */
export const PosixShellsSchema = z.union([
  PosixShellSchema,
  z.array(PosixShellSchema).check(z.minLength(1), z.maxLength(3)),
]);
export type PosixShells = z.infer<typeof PosixShellsSchema>;

/**
 * Whose rights decide a request (docs/decisions.md "Proven identity"). Absent: the named agent's own —
 * decided in Gatehouse's own process, or proven by a running task's proof. `unproven`: a client of the
 * approval socket only claimed the agent id, so it is decided as the least-trusted agent.
 */
export const IdentitySchema = z.enum(["unproven"]);
export type Identity = z.infer<typeof IdentitySchema>;

export const OutcomeSchema = z.enum(["run", "prompt", "deny"]);
export type Outcome = z.infer<typeof OutcomeSchema>;

export const FileAccessKindSchema = z.enum(["read", "write"]);
export type FileAccessKind = z.infer<typeof FileAccessKindSchema>;

/** The agent runtimes whose tool calls Gatehouse decides (their hooks: `gatehouse hook claude|codex`). */
export const AgentRuntimeSchema = z.enum(["claude", "codex"]);
export type AgentRuntime = z.infer<typeof AgentRuntimeSchema>;

/**
 * A tool call that is neither a command nor a file access: an MCP tool (covered by an `mcp:SERVER/TOOL`
 * entry) or a call Gatehouse does not fully understand (`person`: decided like an allowlist miss).
 */
export const ToolCallKindSchema = z.enum(["mcp", "person"]);
export type ToolCallKind = z.infer<typeof ToolCallKindSchema>;
