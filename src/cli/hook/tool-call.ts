// What an agent's PreToolUse hook asks Gatehouse about, in runtime-neutral terms: each runtime's input
// (claude.ts, codex.ts, through their tool tables) becomes one ToolCall, the shared path (decide.ts)
// turns it into a verdict, and each runtime prints that verdict its own way. Every call gets one: there
// is no "not Gatehouse's business" (exec-policy.md "Tool calls other than a shell string").
import type { FileAccessKind } from "../../core/policy/file-edit.js";
import type { AgentRuntime } from "../../core/workdir/runtime-path.js";
import { cleanDenyReason } from "../../shared/deny-reason.js";

/** The agent runtimes a hook serves. */
export type HookRuntime = AgentRuntime;

export type ToolCall =
  /**
   * A shell command the agent's shell runs (analysed as bash) in `cwd`. `cwdChosen`: the agent chose the
   * folder (Codex's `workdir`), so the folder itself is judged like a file path before the command.
   */
  | { kind: "command"; command: string; cwd: string; cwdChosen?: boolean }
  /** Files the agent's own tool reads or writes. */
  | {
      kind: "file";
      tool: string;
      access: FileAccessKind;
      paths: string[];
      /** Whose tool: the path model of that runtime applies (how it turns a path argument into a file). */
      runtime: AgentRuntime;
      /** The folder relative paths are taken from, when not the task's folder. */
      base?: string;
    }
  /** An MCP tool: covered by an allowlist entry naming its server and tool (`mcp:SERVER/TOOL`). */
  | { kind: "mcp"; name: string; server: string; tool: string; input: string }
  /**
   * A call Gatehouse does not fully understand (an unknown tool, field or value), or one whose effect only
   * a person can judge: decided like an allowlist miss (a person, askFallback, the audit log).
   */
  | { kind: "person"; tool: string; reason: string; what?: string; input?: string }
  /** A call that runs nothing and touches no file here (and Gatehouse's own Skill tool): allowed. */
  | { kind: "allow"; reason: string }
  /** Fail closed: refused without asking, with the reason the model sees. */
  | { kind: "refuse"; reason: string };

export type { HookVerdict } from "../../shared/claude-hook-output.js";
import type { HookVerdict } from "../../shared/claude-hook-output.js";

/** What a decision was about, in the verdict's words. */
export type DecidedThing = "command" | "file access" | "tool call";

/**
 * The verdict's words for a decision from the gate: what happened, who decided, why, and — when a person
 * denied it with a reason — their words, which the agent's model reads as the hook's reason.
 */
export function describeDecision(
  decision: string,
  decidedBy: string,
  reason: string | undefined,
  what: DecidedThing,
  denyReason?: string,
): HookVerdict {
  const allow = decision === "allow-once" || decision === "allow-always";
  const by =
    decidedBy === "user" ? "by you" : decidedBy === "fallback" ? "by askFallback" : `by ${decidedBy}`;
  const text = allow
    ? `Gatehouse allowed this ${what}`
    : decision === "timeout"
      ? "Gatehouse got no approval in time"
      : decision === "no-approver"
        ? "Gatehouse had nobody to ask"
        : decision === "cancelled"
          ? "Gatehouse withdrew this request"
          : `Gatehouse denied this ${what}`;
  const base = `${text} (${by})${reason ? `: ${reason}` : ""}`;
  const said = !allow && decision === "deny" && decidedBy === "user" ? cleanDenyReason(denyReason) : null;
  return { allow, reason: said !== null ? `${base}. The person denied this: ${said}` : base };
}
