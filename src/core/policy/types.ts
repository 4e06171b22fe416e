// The policy engine's vocabulary (exec-policy.md). Shared by the analyser, matcher, decision,
// executor, approval server, CLI and UI, so it lives in one file.
import type { AllowlistEntry, Ask, AskFallback, Security } from "../approvals/schema.js";

export type { AllowlistEntry, Ask, AskFallback, Security };

/** Which shell a command string is meant for. `posix` = the user's shell on macOS/Linux. */
export type ShellKind = "posix" | "cmd" | "powershell";

/** What is asked to run: exactly one of `argv` and `command`. */
export interface CommandInput {
  argv?: string[];
  command?: string;
  /** For `command`: which shell runs it (default: `posix`, or `cmd` on Windows). */
  shell?: ShellKind;
  /**
   * For a POSIX string someone else runs (an agent's own shell): which one, so the analysis reads it the
   * way that shell will (default bash). Every dialect is read at least as strictly as bash.
   */
  posixShell?: "bash" | "sh" | "zsh";
}

export type FlagKind =
  | "redirect" // output redirection to a file
  | "background" // `&`
  | "eval"
  | "source"
  | "exec"
  | "function-definition"
  | "dynamic-command" // command name is not a literal word
  | "dangerous-assignment" // PATH, LD_*, DYLD_*, NODE_OPTIONS, PYTHONPATH
  | "inline-code" // python -c, node -e, …
  | "parse-error"
  | "too-deep" // sh -c nesting over the limit
  | "complex-windows" // cmd/PowerShell beyond one simple command
  | "expansion" // a word part the analyser does not understand (operators in ${…}, arithmetic on variables…)
  | "dynamic-argument" // a word known only at run time where a tool's rules read options
  | "tool-option" // a tool's option or sub-command runs code or writes a file (an argPattern entry covers it)
  | "own-files"; // names Gatehouse's own folder (its policy and secrets)

export interface Flag {
  kind: FlagKind;
  /** Plain words for the person deciding, e.g. `writes to out.txt`. */
  detail: string;
  /** Index into `segments` when the flag belongs to one segment (inline code). */
  segment?: number;
  /** Set when an allowlist entry's argPattern covers this flag (inline code): it then needs no person. */
  coveredBy?: string;
}

export type FoundVia = "path" | "absolute" | "relative" | "home";

export interface Segment {
  /** The words of the simple command after unwrapping dispatch wrappers. */
  argv: string[];
  /** The command word as written (`git`, `./rg`, `/usr/bin/env`). */
  executable: string;
  /** Real path of the executable, or null when it could not be resolved. */
  resolvedPath: string | null;
  foundVia: FoundVia | null;
  /** Why it did not resolve (`not found on PATH`, `not executable`, …). */
  resolveError?: string;
  /** Set when this segment is a dispatch wrapper (`env`, `nice`, …) whose command is a later segment. */
  wrapper?: boolean;
  /** Where it was found: `top`, `substitution`, `subshell`, `sh -c`, … (for explanations). */
  context: string;
  /** Where PATH lookup found it, before symlinks were resolved (bare-name patterns look at its name). */
  foundPath?: string;
  /** The segment runs inline code (`python -c …`): only an entry with an argPattern covers it. */
  inlineCode?: boolean;
  /** Some argument has expansions or globs: its `argv` entry is its source text, not its value. */
  dynamicArgs?: boolean;
  /** A shell builtin that runs nothing (`cd`, `export X=1`): covered without an entry; says why. */
  builtin?: string;
  /** A `cd` earlier in its shell: the folder it runs in is known only at run time. */
  cwdUnknown?: boolean;
  /** Folder a wrapper moved to before starting it (`env -C dir cmd`), relative to the command's. */
  chdir?: string;
  /** The matched entry has no argPattern for a tool that runs programs or writes files by its options. */
  broadGrant?: string;
  matchedEntryId: string | null;
  /** Which list the matched entry lives in (`*` or the agent id), for editing and usage bookkeeping. */
  matchedAgentId?: string;
  /** Why no entry matched (only when matchedEntryId is null). */
  missReason?: string;
}

export interface Analysis {
  /** False when the parser failed; then `flags` holds a `parse-error`. */
  ok: boolean;
  segments: Segment[];
  flags: Flag[];
}

/** Where a setting came from; `request` = tightened by the request, `elevated` = elevated mode. */
export type SettingSource = "request" | "elevated" | `agents.${string}` | "defaults" | "built-in";

/** Settings a request asks for: they may only tighten (exec-policy.md "Where settings come from" 2). */
export interface RequestedSettings {
  security?: Security;
  ask?: Ask;
}

export interface EffectiveSettings {
  security: Security;
  ask: Ask;
  askFallback: AskFallback;
  sources: { security: SettingSource; ask: SettingSource; askFallback: SettingSource };
  /** Elevated mode is on for this agent until then (epoch ms); security is `full` because of it. */
  elevatedUntil?: number;
  /**
   * What the request asked to loosen (`security=full`, looser than the effective `allowlist`): such a
   * request is refused whole (outcome `deny`, reason `request-loosens`) and runs nothing.
   */
  loosening?: string[];
}

export type Outcome = "run" | "prompt" | "deny";

export interface PolicyDecision {
  outcome: Outcome;
  /** `security=deny`, `allowlist-miss`, `ask=always`, `security=full`, `allowlist`, `approvals-file-invalid`… */
  reason: string;
  /** Entries that covered the segments (for `decidedBy: rule:<id>` and usage bookkeeping). */
  matchedEntryIds: string[];
}

/** `gatehouse policy explain --json` and the `policy.explain` socket reply. */
export interface Explanation extends PolicyDecision {
  security: Security;
  ask: Ask;
  askFallback: AskFallback;
  sources: EffectiveSettings["sources"];
  /** Elevated mode is on for this agent until then (epoch ms). */
  elevatedUntil?: number;
  /** What the request asked for (it may only tighten). */
  requested?: RequestedSettings;
  agentId: string;
  cwd: string;
  command: CommandInput;
  flags: string[];
  flagDetails: Flag[];
  segments: Segment[];
  /** Whether the allowlist alone covers the command (used by askFallback=allowlist). */
  allowlistSatisfied: boolean;
  approvalsFile: { path: string; status: "ok" | "missing" | "invalid"; error?: string };
  /** Entries *Allow always* would save (exec-policy.md "Deciding"). */
  proposedEntries: ProposedEntry[];
  /** Whether the prompt may offer *allow always* (hidden under ask=always, or when nothing can be proposed). */
  allowAlwaysAvailable: boolean;
}

export interface ProposedEntry {
  pattern: string;
  argPattern?: string;
  /** Index of the uncovered segment this entry is for. */
  segment: number;
}

/** Who decided, as written to the audit log and replies. */
export type DecidedBy = `rule:${string}` | "user" | "fallback" | "policy";

/**
 * A decision a person (or askFallback) gives on a prompt. `timeout`: a person was asked and did not answer
 * in time; `no-approver`: nobody could be asked at all (no UI, terminal or ask-via presenter reachable).
 */
export type PromptDecision = "allow-once" | "allow-always" | "deny" | "timeout" | "no-approver" | "cancelled";

/** What the approval dialog shows; queued by the prompt broker (approval-server/broker.ts). */
export interface PromptRequest {
  id: string;
  /** Groups prompts (exec-policy.md "Agents and sessions"): `task:<id>`, `claude:<session>`, `local`, … */
  sessionKey: string;
  agentId: string;
  /** Who asked: `backend`, `claude-hook`, `cli`, `socket`, … */
  source: string;
  /** Free text from the requester (e.g. the backend's `command_key`). */
  reason?: string;
  cwd: string;
  command: CommandInput;
  explanation: Explanation;
  createdAt: number;
  /** When askFallback takes over (createdAt + timeout). */
  expiresAt: number;
}

export interface PromptAnswer {
  decision: PromptDecision;
  /** For allow-always: the entries the person confirmed (possibly edited from `proposedEntries`). */
  entries?: ProposedEntry[];
}

/** Asks a person; resolves with `timeout` when nobody answers by `expiresAt`. */
export type PromptFn = (prompt: PromptRequest, signal?: AbortSignal) => Promise<PromptAnswer>;
