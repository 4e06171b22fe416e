// The decision (exec-policy.md "Deciding" 1–5): pure functions of the effective settings and whether the
// allowlist alone covers the command.
import type { EffectiveSettings, Explanation, Outcome } from "./types.js";

export function decide(
  settings: Pick<EffectiveSettings, "security" | "ask">,
  allowlistSatisfied: boolean,
): { outcome: Outcome; reason: string } {
  if (settings.security === "deny") return { outcome: "deny", reason: "security=deny" };
  if (settings.ask === "always") return { outcome: "prompt", reason: "ask=always" };
  if (settings.security === "full") return { outcome: "run", reason: "security=full" };
  if (allowlistSatisfied) return { outcome: "run", reason: "allowlist" };
  if (settings.ask === "on-miss") return { outcome: "prompt", reason: "allowlist-miss" };
  return { outcome: "deny", reason: "allowlist-miss" };
}

/**
 * What happens when a prompt gets no answer in time, or no UI is reachable: askFallback decides, and the
 * reason always says it was a timeout, never that a person denied it.
 */
export function fallbackDecision(
  explanation: Pick<Explanation, "askFallback" | "allowlistSatisfied" | "approvalsFile">,
): {
  allowed: boolean;
  reason: string;
} {
  if (explanation.approvalsFile.status === "invalid")
    return { allowed: false, reason: "approval-timeout (approvals-file-invalid)" };
  switch (explanation.askFallback) {
    case "full":
      return { allowed: true, reason: "approval-timeout (askFallback=full)" };
    case "allowlist":
      return explanation.allowlistSatisfied
        ? { allowed: true, reason: "approval-timeout (allowlist)" }
        : { allowed: false, reason: "approval-timeout (allowlist-miss)" };
    default:
      return { allowed: false, reason: "approval-timeout" };
  }
}
