// Whether the backend may open a terminal here (issue 31): decided as what it is — the user's shell,
// started in the session's folder, running whatever is typed into it — not as a command the analyser
// could read. Under the backend's settings (agent `backend`, exec-policy.md "Deciding"):
// - an allowlist entry covers it only when its pattern names that shell (not `*`) and it has a `cwd`
//   glob that covers the folder: an entry for the shell alone was written for commands, not terminals;
// - otherwise a person decides, told "the backend wants a terminal in ~/Projects/app; a terminal runs
//   anything typed into it"; nobody answering is askFallback (its `allowlist` allows only what an
//   entry covers), and the answer must come before the backend stops waiting for its ack;
// - *allow always* is not offered (a grant here is for this terminal; an entry is written by hand).
// The decision line goes to the audit log with who decided, like any command's.
import type { ApprovalsFile } from "../../core/approvals/index.js";
import {
  compileAllowlist,
  decide,
  matchSegment,
  resolveSettings,
  type Explanation,
  type Segment,
} from "../../core/policy/index.js";
import { tildify } from "../../core/workdir/messages.js";
import { decideExplained, isAllowed, type GateDecision, type GateDeps } from "../gate.js";
import type { TerminalShell } from "./terminal-shell.js";

export const TERMINAL_AGENT_ID = "backend";
export const TERMINAL_COMMAND_KEY = "terminal";

export interface TerminalDecisionRequest {
  shell: TerminalShell;
  /** The folder's real path. */
  folder: string;
  /** `terminal:<session_id>`. */
  sessionKey: string;
  /** How long a person may take (the backend stops waiting for the ack soon after). */
  promptTimeoutMs: number;
}

/** What the prompt says: the folder as the person knows it, and what a terminal means. */
export function terminalPromptReason(folder: string, home: string, platform: NodeJS.Platform): string {
  return `the backend wants a terminal in ${tildify(folder, home, platform)}; a terminal runs anything typed into it`;
}

/** Only entries written for terminals: a named shell with a cwd glob (the folders it may open in). */
function terminalEntriesOnly(file: ApprovalsFile): ApprovalsFile {
  const agents: ApprovalsFile["agents"] = {};
  for (const [id, agent] of Object.entries(file.agents)) {
    agents[id] = {
      ...agent,
      allowlist: (agent.allowlist ?? []).filter(
        (entry) => entry.pattern.trim() !== "*" && typeof entry.cwd === "string" && entry.cwd.trim() !== "",
      ),
    };
  }
  return { ...file, agents };
}

/** The policy's view of opening the terminal, shaped as an explanation the gate and presenters take. */
export function explainTerminal(
  request: TerminalDecisionRequest,
  approvals: Awaited<ReturnType<GateDeps["approvals"]["load"]>>,
  ctx: { home: string; now: number; platform: NodeJS.Platform },
): Explanation {
  const settings = resolveSettings(approvals, TERMINAL_AGENT_ID, undefined, ctx.now);
  const segment: Segment = {
    argv: [request.shell.given],
    executable: request.shell.given,
    resolvedPath: request.shell.real,
    foundVia: "absolute",
    context: "terminal",
    matchedEntryId: null,
  };
  if (approvals.status === "ok") {
    const compiled = compileAllowlist(terminalEntriesOnly(approvals.file), TERMINAL_AGENT_ID, {
      home: ctx.home,
      platform: ctx.platform,
    });
    const match = matchSegment(compiled, segment, {
      cwd: request.folder,
      now: ctx.now,
      platform: ctx.platform,
    });
    if (match.matched) {
      segment.matchedEntryId = match.matched.entry.id;
      segment.matchedAgentId = match.matched.agentId;
    } else {
      segment.missReason = `${match.missReason}; a terminal needs an entry for ${request.shell.real} with a cwd covering the folder`;
    }
  }
  const satisfied = segment.matchedEntryId !== null;
  const decided =
    approvals.status === "invalid"
      ? { outcome: "deny" as const, reason: "approvals-file-invalid" }
      : decide(settings, satisfied);
  return {
    outcome: decided.outcome,
    reason: decided.reason,
    matchedEntryIds: satisfied ? [segment.matchedEntryId!] : [],
    security: settings.security,
    ask: settings.ask,
    askFallback: settings.askFallback,
    sources: settings.sources,
    ...(settings.elevatedUntil !== undefined ? { elevatedUntil: settings.elevatedUntil } : {}),
    agentId: TERMINAL_AGENT_ID,
    cwd: request.folder,
    command: { argv: [request.shell.given] },
    flags: [],
    flagDetails: [],
    segments: [segment],
    allowlistSatisfied: satisfied,
    approvalsFile:
      approvals.status === "invalid"
        ? { path: approvals.path, status: "invalid", error: approvals.error }
        : { path: approvals.path, status: approvals.status },
    proposedEntries: [],
    allowAlwaysAvailable: false,
  };
}

/** Decides opening a terminal: the policy, then a person or askFallback; audited. Uses of a limited entry are taken. */
export async function decideTerminal(
  request: TerminalDecisionRequest,
  deps: GateDeps,
): Promise<GateDecision> {
  const platform = deps.platform ?? process.platform;
  const approvals = await deps.approvals.load();
  const explanation = explainTerminal(request, approvals, { home: deps.home, now: deps.now(), platform });
  const decision = await decideExplained(
    {
      command: { argv: [request.shell.given] },
      agentId: TERMINAL_AGENT_ID,
      sessionKey: request.sessionKey,
      source: "backend",
      reason: terminalPromptReason(request.folder, deps.home, platform),
      commandKey: TERMINAL_COMMAND_KEY,
      cwd: request.folder,
      promptTimeoutMs: request.promptTimeoutMs,
    },
    explanation,
    deps,
  );
  const entryId = decision.decidedBy.startsWith("rule:") ? decision.decidedBy.slice(5) : null;
  if (!entryId || !isAllowed(decision.decision) || approvals.status !== "ok") return decision;
  const limited = Object.values(approvals.file.agents).some((agent) =>
    (agent.allowlist ?? []).some((entry) => entry.id === entryId && typeof entry.usesLeft === "number"),
  );
  if (!limited) return decision;
  try {
    const usedUp = await deps.approvals.consumeUses(TERMINAL_AGENT_ID, [entryId]);
    if (usedUp.length === 0) return decision;
  } catch (error) {
    deps.logger.warn("could not count a use of a terminal's allowlist entry", { error, entryId });
  }
  return {
    ...decision,
    decision: "deny",
    decidedBy: "policy",
    reason: `allowlist entry ${entryId} had no use left`,
  };
}

/** The ack error for a terminal the gate refused: what happened and what would change it. */
export function terminalRefusal(decision: GateDecision, shell: TerminalShell, folder: string): string {
  const how =
    decision.decidedBy === "user"
      ? "denied by the person at this device"
      : decision.decision === "timeout" || decision.decision === "no-approver"
        ? `nobody at this device allowed it in time (${decision.reason})`
        : `Gatehouse's policy refused it (${decision.reason})`;
  return (
    `Terminal not opened: ${how}. A terminal opens when a person allows it, or with an allowlist entry ` +
    `for ${shell.real} (agent backend) whose cwd covers ${folder}.`
  );
}
