// A pending prompt as the approval dialog receives it: the broker's PromptRequest plus the command as
// one string exactly as it will run (executor/command-text.ts is the one place that formats commands),
// and for an agent's file access the paths and where they lie.
import { fileAccessOf } from "../core/policy/file-edit.js";
import { escapeGlob } from "../core/approvals/index.js";
import { exactArgPattern } from "../core/policy/proposals.js";
import { assessRisks } from "../core/policy/risk.js";
import type { PromptRequest } from "../core/policy/types.js";
import { displayCommand } from "../executor/command-text.js";
import type { PromptView } from "./contract.js";

export function promptView(prompt: PromptRequest): PromptView {
  const fileAccess = fileAccessOf(prompt.explanation);
  return {
    id: prompt.id,
    sessionKey: prompt.sessionKey,
    agentId: prompt.agentId,
    source: prompt.source,
    ...(prompt.reason !== undefined ? { reason: prompt.reason } : {}),
    cwd: prompt.cwd,
    command: prompt.command,
    commandText: displayCommand(prompt.command),
    explanation: prompt.explanation,
    ...(fileAccess ? { fileAccess } : {}),
    risks: assessRisks(prompt.explanation, fileAccess ?? undefined),
    narrowing: {
      cwdPattern: escapeGlob(prompt.cwd.replace(/\\/g, "/")),
      exactArgPatterns: prompt.explanation.segments.map((s) =>
        s.dynamicArgs ? null : exactArgPattern(s.argv.slice(1)),
      ),
    },
    createdAt: prompt.createdAt,
    expiresAt: prompt.expiresAt,
  };
}
