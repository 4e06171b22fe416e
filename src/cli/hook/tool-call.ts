// What an agent's PreToolUse hook asks Gatehouse about, in runtime-neutral terms: each runtime's input
// (claude.ts, codex.ts) becomes one ToolCall, the shared path (decide.ts) turns it into a verdict,
// and each runtime prints that verdict its own way.
import type { FileAccessKind } from "../../core/policy/file-edit.js";
import type { AgentRuntime } from "../../core/workdir/runtime-path.js";

export type ToolCall =
  /** A shell command the agent's shell runs (analysed as bash). */
  | { kind: "command"; command: string; cwd: string }
  /**
   * Files the agent's own tool reads or writes, as the tool was given them: `runtime` says how they
   * become the paths opened, `base` the folder relative ones are taken from (default the task's folder).
   */
  | {
      kind: "file";
      tool: string;
      access: FileAccessKind;
      paths: string[];
      runtime: AgentRuntime;
      base?: string;
    }
  /** Not Gatehouse's business: the runtime's own rules apply (Claude Code's permissions, Codex: run). */
  | { kind: "pass" }
  /** Gatehouse's own read-only tool (the Skill tool): allowed without asking. */
  | { kind: "allow"; reason: string }
  /** Fail closed: refused without asking, with the reason the model sees. */
  | { kind: "refuse"; reason: string };

export interface HookVerdict {
  allow: boolean;
  reason: string;
}

/** The verdict's words for a decision from the gate: what happened, who decided, why. */
export function describeDecision(
  decision: string,
  decidedBy: string,
  reason: string | undefined,
  what: "command" | "file access",
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
  return { allow, reason: `${text} (${by})${reason ? `: ${reason}` : ""}` };
}
