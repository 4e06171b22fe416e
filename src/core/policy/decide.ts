// The decision (exec-policy.md "Deciding" 1–5): pure functions of the effective settings and whether the
// allowlist alone covers the command.
import type { Ask, EffectiveSettings, Explanation, Outcome } from "./types.js";

export function decide(
  settings: Pick<EffectiveSettings, "security" | "ask"> & Partial<Pick<EffectiveSettings, "sources">>,
  allowlistSatisfied: boolean,
): { outcome: Outcome; reason: string } {
  // A setting the request tightened, or elevated mode, is named in the reason: it decided, not the file.
  const from = (key: "security" | "ask"): string => {
    const source = settings.sources?.[key];
    return source === "request" || source === "elevated" ? ` (${source})` : "";
  };
  if (settings.security === "deny") return { outcome: "deny", reason: `security=deny${from("security")}` };
  if (settings.ask === "always") return { outcome: "prompt", reason: `ask=always${from("ask")}` };
  if (settings.security === "full") return { outcome: "run", reason: `security=full${from("security")}` };
  if (allowlistSatisfied) return { outcome: "run", reason: "allowlist" };
  const miss = `allowlist-miss${from("security") ? " (security=allowlist from the request)" : ""}`;
  if (settings.ask === "on-miss") return { outcome: "prompt", reason: miss };
  return { outcome: "deny", reason: miss };
}

/**
 * A command that opens Gatehouse's own folder where the settings would run it (security=full, elevated):
 * a person decides all the same, and with ask=off nobody can, so it is refused (own-files.ts).
 */
export function ownFilesDecision(ask: Ask, why: string): { outcome: Outcome; reason: string } {
  return ask === "off"
    ? { outcome: "deny", reason: `own-files (ask=off): ${why}` }
    : { outcome: "prompt", reason: `own-files: ${why}` };
}

/** A request that asked to loosen the policy is refused whole; the reason says what it asked for. */
export function loosenedReason(loosening: readonly string[]): string {
  return `request-loosens: the request asked for ${loosening.join(" and ")}; a request may only tighten`;
}

/**
 * What happens when a prompt gets no answer in time (`approval-timeout`), or nobody could be asked at
 * all (`no-approver`): askFallback decides, and the reason says which of the two happened, never that a
 * person denied it.
 */
export function fallbackDecision(
  explanation: Pick<Explanation, "askFallback" | "allowlistSatisfied" | "approvalsFile"> &
    Partial<Pick<Explanation, "flags">>,
  why: "timeout" | "no-approver" = "timeout",
): {
  allowed: boolean;
  reason: string;
} {
  const code = why === "timeout" ? "approval-timeout" : "no-approver";
  if (explanation.approvalsFile.status === "invalid")
    return { allowed: false, reason: `${code} (approvals-file-invalid)` };
  // a secret never reaches an agent without a person saying so: askFallback=full does not open E
  if (explanation.flags?.includes("own-files")) return { allowed: false, reason: `${code} (own-files)` };
  switch (explanation.askFallback) {
    case "full":
      return { allowed: true, reason: `${code} (askFallback=full)` };
    case "allowlist":
      return explanation.allowlistSatisfied
        ? { allowed: true, reason: `${code} (allowlist)` }
        : { allowed: false, reason: `${code} (allowlist-miss)` };
    default:
      return { allowed: false, reason: code };
  }
}
