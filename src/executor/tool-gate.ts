// The gate for an agent's tool call that is neither a command nor a file access (an MCP tool, or a call
// Gatehouse does not fully understand): explained by core/policy/tool-call-explain.ts, then decided
// exactly like a command: a person, askFallback, the audit log; an allowed call takes a use of a limited
// MCP entry and notes when the entry was last used.
import { explainToolCall, type ToolCallRequest } from "../core/policy/tool-call-explain.js";
import { decideExplained, isAllowed, type GateDecision, type GateDeps, type GateRequest } from "./gate.js";

export interface ToolGateRequest
  extends Omit<GateRequest, "command" | "cwd" | "env">, Omit<ToolCallRequest, "agentId"> {}

export async function decideToolCallGate(request: ToolGateRequest, deps: GateDeps): Promise<GateDecision> {
  const approvals = await deps.approvals.load();
  const { runtime, tool, kind, what, reason, input, workdir, ...common } = request;
  const explanation = explainToolCall(
    {
      runtime,
      tool,
      kind,
      what,
      workdir,
      agentId: request.agentId,
      ...(reason !== undefined ? { reason } : {}),
      ...(input !== undefined ? { input } : {}),
    },
    { approvals, now: deps.now(), ...(request.requested ? { requested: request.requested } : {}) },
  );
  const limited =
    approvals.status === "ok" && explanation.allowlistSatisfied
      ? explanation.matchedEntryIds.filter((id) =>
          Object.values(approvals.file.agents).some((agent) =>
            (agent.allowlist ?? []).some((e) => e.id === id && typeof e.usesLeft === "number"),
          ),
        )
      : [];
  const decided = await decideExplained(
    { ...common, command: explanation.command, cwd: workdir },
    explanation,
    deps,
    limited,
  );
  const entryId = explanation.matchedEntryIds[0];
  // The editor's "last used" note, batched by a service's usage recorder (a one-shot decider, the hook
  // deciding alone, leaves it out as it does for commands); it never fails the call.
  if (entryId && deps.usage && explanation.allowlistSatisfied && isAllowed(decided.decision)) {
    const note = deps.usage.record(request.agentId, [{ entryId, command: tool, resolvedPath: null }]);
    if (deps.background) deps.background(note);
    else await note;
  }
  return decided;
}
