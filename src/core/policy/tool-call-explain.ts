// An agent's tool call that is neither a command nor a file access (exec-policy.md "Tool calls other than
// a shell string"), under the same settings as commands: an MCP tool is covered by an `mcp:SERVER/TOOL`
// entry like a program by its path; a call Gatehouse does not fully understand (an unknown tool, field or
// value) is covered by nothing, so it is decided exactly like an allowlist miss: a person under
// ask=on-miss, refused under ask=off, askFallback when nobody answers. Pure: the caller audits and asks.
import { mcpPattern, type ApprovalsState } from "../approvals/index.js";
import { decide, loosenedReason } from "./decide.js";
import { matchMcpEntry, mcpTargetOfName, type AgentRuntime } from "./mcp-tools.js";
import { resolveSettings } from "./resolve-settings.js";
import type { Ask, Explanation, Outcome, ProposedEntry, Security } from "./types.js";
import type { ToolCallKind, ToolCallView } from "../../shared/schemas/explanation.js";

export type { ToolCallKind, ToolCallView };

export interface ToolCallRequest {
  runtime: AgentRuntime;
  /** The tool's name as the runtime gave it. */
  tool: string;
  kind: ToolCallKind;
  /** Plain words: what the tool does. */
  what: string;
  /** Why a person decides (`person` calls). */
  reason?: string;
  /** The tool's input as JSON text, for the person and the audit line. */
  input?: string;
  workdir: string;
  agentId: string;
}

export type ToolCallExplanation = Explanation & { toolCall: ToolCallView };

export interface ToolCallContext {
  approvals: ApprovalsState;
  /** Request settings: they can only tighten (a looser one is refused). */
  requested?: { security?: Security; ask?: Ask };
  now: number;
}

/** How much of a tool's input the audit line and the prompt carry. */
export const TOOL_INPUT_SHOWN_CHARS = 2_000;

function shortened(text: string | undefined, max: number): string | undefined {
  if (text === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The call as an argv for the audit log and presenters that know nothing of tools: `mcp__docs__search {…}`. */
export function toolCallArgv(request: Pick<ToolCallRequest, "tool" | "input">): string[] {
  const input = shortened(request.input, 500);
  return input === undefined || input === "{}" ? [request.tool] : [request.tool, input];
}

function policyOutcome(
  request: ToolCallRequest,
  settings: { security: Security; ask: Ask },
  covered: boolean,
): { outcome: Outcome; reason: string } {
  // security=full runs what Gatehouse understands. A call it does not (an unknown tool, field or value, a
  // patch or shell it cannot read) might open Gatehouse's own data, which no setting opens: full does not
  // cover it, so it is decided as a miss of the allowlist (a person, or refused with ask=off).
  const decided = decide(
    request.kind === "person" && settings.security === "full"
      ? { ...settings, security: "allowlist" }
      : settings,
    covered,
  );
  if (decided.reason !== "allowlist-miss" && !decided.reason.startsWith("allowlist-miss ")) return decided;
  const why =
    request.kind === "person"
      ? `needs-a-person: ${request.reason ?? `Gatehouse does not fully understand ${request.tool}`}`
      : `allowlist-miss: no allowlist entry covers the MCP tool ${request.tool}`;
  return { outcome: decided.outcome, reason: decided.outcome === "deny" ? `${why} (ask=off)` : why };
}

/**
 * How the policy decides a tool call: `run`, `prompt` or `deny` with its reason, shaped as a command
 * explanation (the gate, the prompt broker and askFallback take it as is) plus `toolCall` for the
 * presenters. *Allow always* is offered for an MCP tool (its entry); never for a `person` call.
 */
export function explainToolCall(request: ToolCallRequest, ctx: ToolCallContext): ToolCallExplanation {
  const settings = resolveSettings(ctx.approvals, request.agentId, ctx.requested, ctx.now);
  const target = request.kind === "mcp" ? mcpTargetOfName(request.tool) : null;
  const match =
    request.kind === "mcp" && ctx.approvals.status === "ok"
      ? matchMcpEntry(ctx.approvals.file, request.agentId, request.runtime, request.tool, ctx.now)
      : null;
  const { outcome, reason } = settings.loosening
    ? { outcome: "deny" as const, reason: loosenedReason(settings.loosening) }
    : ctx.approvals.status === "invalid"
      ? { outcome: "deny" as const, reason: "approvals-file-invalid" }
      : policyOutcome(request, settings, match !== null);
  const proposed: ProposedEntry[] = target ? [{ pattern: mcpPattern(target), segment: 0 }] : [];
  const input = shortened(request.input, TOOL_INPUT_SHOWN_CHARS);
  return {
    outcome,
    reason,
    matchedEntryIds: match ? [match.entryId] : [],
    security: settings.security,
    ask: settings.ask,
    askFallback: settings.askFallback,
    sources: settings.sources,
    agentId: request.agentId,
    cwd: request.workdir,
    command: { argv: toolCallArgv(request) },
    flags: [],
    flagDetails: [],
    segments: [],
    // askFallback=allowlist allows what an entry covers; a call nobody understood is never covered.
    allowlistSatisfied: match !== null,
    approvalsFile:
      ctx.approvals.status === "invalid"
        ? { path: ctx.approvals.path, status: "invalid", error: ctx.approvals.error }
        : { path: ctx.approvals.path, status: ctx.approvals.status },
    proposedEntries: proposed,
    allowAlwaysAvailable: proposed.length > 0,
    toolCall: {
      runtime: request.runtime,
      tool: request.tool,
      kind: request.kind,
      what: request.what,
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      ...(target ? { mcp: target } : {}),
      ...(input !== undefined ? { input } : {}),
      workdir: request.workdir,
    },
  };
}

const RUNTIMES = new Set(["claude", "codex"]);

/** The tool call an explanation (or a prompt's explanation) describes, or null for anything else. */
export function toolCallOf(explanation: unknown): ToolCallView | null {
  if (typeof explanation !== "object" || explanation === null) return null;
  const view = (explanation as { toolCall?: unknown }).toolCall;
  if (typeof view !== "object" || view === null) return null;
  const v = view as Partial<ToolCallView>;
  if (typeof v.tool !== "string" || typeof v.what !== "string" || typeof v.workdir !== "string") return null;
  if (!RUNTIMES.has(v.runtime as string) || (v.kind !== "mcp" && v.kind !== "person")) return null;
  return {
    runtime: v.runtime!,
    tool: v.tool,
    kind: v.kind,
    what: v.what,
    ...(typeof v.reason === "string" ? { reason: v.reason } : {}),
    ...(v.mcp && typeof v.mcp.server === "string" && typeof v.mcp.tool === "string"
      ? { mcp: { server: v.mcp.server, tool: v.mcp.tool } }
      : {}),
    ...(typeof v.input === "string" ? { input: v.input } : {}),
    workdir: v.workdir,
  };
}
