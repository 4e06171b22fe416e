// What a refusal means in plain words, and the one command that would change it (issue 15 "Outcomes that
// say what happened"). Used by `gatehouse exec`/`ask`, the hooks' reason and the socket replies, so every
// entry point tells the same story. Pure: a decision and its explanation in, text out.
import { parseMcpPattern } from "../../shared/mcp-entry.js";
import { posixQuote as quoteWord } from "../runtime/shell-quote.js";
import type { DecidedBy, Explanation, PromptDecision } from "./types.js";

/** The outcome vocabulary (docs/decisions.md "Exec host" has the table). */
export type OutcomeKind =
  "allowed" | "denied-by-policy" | "denied-by-person" | "no-approver" | "timeout" | "cancelled";

export function outcomeKind(decision: PromptDecision, decidedBy: DecidedBy | string): OutcomeKind {
  switch (decision) {
    case "allow-once":
    case "allow-always":
      return "allowed";
    case "deny":
      return decidedBy === "user" ? "denied-by-person" : "denied-by-policy";
    default:
      return decision;
  }
}

/** A short sentence for the refusal, without the reason code. */
export function refusalHeadline(kind: OutcomeKind): string {
  switch (kind) {
    case "denied-by-policy":
      return "denied by the exec policy";
    case "denied-by-person":
      return "denied by a person";
    case "no-approver":
      return "not run: nobody could be asked (no Gatehouse app or prompt is attached)";
    case "timeout":
      return "not run: nobody answered the prompt in time";
    case "cancelled":
      return "withdrawn before anyone answered";
    default:
      return "allowed";
  }
}

type ExplanationFacts = Pick<
  Explanation,
  "agentId" | "approvalsFile" | "proposedEntries" | "command" | "sources" | "reason"
> &
  Partial<Pick<Explanation, "identity" | "flags" | "allowAlwaysWithheld">>;

/**
 * The agent whose entries and elevation would change the outcome: for an unproven request only the
 * every-agent ones apply (docs/decisions.md "Proven identity").
 */
function ruledAgent(e: ExplanationFacts): string {
  return e.identity === "unproven" ? "*" : e.agentId;
}

function explainCommandLine(e: ExplanationFacts): string {
  const words = e.command.argv ?? [e.command.command ?? ""];
  const shell = e.command.argv ? "" : " --shell";
  const unproven = e.identity === "unproven" ? " --unproven" : "";
  return `gatehouse policy explain --agent ${quoteWord(e.agentId)}${unproven}${shell} -- ${words.map(quoteWord).join(" ")}`;
}

function allowlistAddLine(e: ExplanationFacts): string | null {
  const entry = e.proposedEntries[0];
  if (!entry || e.proposedEntries.length !== 1) return null;
  const mcp = parseMcpPattern(entry.pattern);
  if (mcp) return `gatehouse allowlist add --agent ${quoteWord(e.agentId)} --mcp ${mcp.server}/${mcp.tool}`;
  const arg = entry.argPattern !== undefined ? ` --arg-pattern ${quoteWord(entry.argPattern)}` : "";
  return `gatehouse allowlist add --agent ${quoteWord(ruledAgent(e))} ${quoteWord(entry.pattern)}${arg}`;
}

/**
 * The one command that would change a refusal (or null when nothing should: a withdrawn request).
 * `reason` is the decision's own reason (the explanation's reason says what the policy alone decided).
 */
export function nextStep(kind: OutcomeKind, reason: string, e: ExplanationFacts): string | null {
  if (kind === "allowed" || kind === "cancelled") return null;
  if (e.approvalsFile.status === "missing")
    return "choose a policy: `gatehouse init --preset ask` (nothing runs until you do)";
  if (e.approvalsFile.status === "invalid")
    return `fix the approvals file ${e.approvalsFile.path} (\`gatehouse status\` shows what is wrong)`;
  if (reason.startsWith("request-loosens"))
    return `drop the looser --security/--ask, or elevate for a while: \`gatehouse elevate --agent ${quoteWord(ruledAgent(e))} --for 15m\``;
  // no entry opens Gatehouse's own folder: only a person can, at a prompt; and no standing rule is
  // suggested where one would be unwise (rm -rf ~, curl … | sh: risk.ts standingRuleUnwise)
  const own = e.flags?.includes("own-files") === true || e.allowAlwaysWithheld !== undefined;
  if (kind === "no-approver") {
    const add = own ? null : allowlistAddLine(e);
    return `start \`gatehouse serve --prompt tty\` in another terminal (or open the Gatehouse app) and run it again${add ? `, or allow it: \`${add}\`` : ""}`;
  }
  if (kind === "denied-by-policy" && reason.startsWith("security=deny")) {
    if (reason.includes("(request)")) return "run it without --security deny";
    const source = e.sources.security;
    return source === "defaults" || source === "built-in"
      ? "pick a mode that runs commands: `gatehouse init --preset ask`"
      : `set ${source}.security in ${e.approvalsFile.path} (or \`gatehouse elevate --agent ${quoteWord(ruledAgent(e))} --for 15m\`)`;
  }
  return (own ? null : allowlistAddLine(e)) ?? explainCommandLine(e);
}

/** `headline (decidedBy): reason. Next: command` — the refusal as one line for people. */
export function refusalText(
  decision: PromptDecision,
  decidedBy: DecidedBy | string,
  reason: string,
  e: ExplanationFacts,
): string {
  const kind = outcomeKind(decision, decidedBy);
  const step = nextStep(kind, reason, e);
  return `${refusalHeadline(kind)} (${decidedBy}): ${reason}${step ? `. Next: ${step}` : ""}`;
}
