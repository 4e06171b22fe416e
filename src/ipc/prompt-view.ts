// A pending prompt as the approval dialog receives it: the broker's PromptRequest as it is, plus the
// command as one string exactly as it will run (executor/command-text.ts is the one place that formats
// commands) and, for an agent's file access, the paths and where they lie; for another tool call, what
// the tool is and does. The shape is
// PromptViewSchema (src/shared/schemas/prompt.ts): a field added to the request passes through here.
import { fileAccessOf } from "../core/policy/file-edit.js";
import { toolCallOf } from "../core/policy/tool-call-explain.js";
import { escapeGlob } from "../core/approvals/index.js";
import { exactArgPattern } from "../core/policy/proposals.js";
import { assessRisks } from "../core/policy/risk.js";
import type { PromptRequest } from "../core/policy/types.js";
import { displayCommand } from "../executor/command-text.js";
import type { PromptView } from "../shared/schemas/prompt.js";

/** `home`: the user's home (what a shell's `~` in the command names, for the risk words). */
export function promptView(prompt: PromptRequest, home: string): PromptView {
  const fileAccess = fileAccessOf(prompt.explanation);
  const toolCall = toolCallOf(prompt.explanation);
  return {
    ...prompt,
    commandText: displayCommand(prompt.command),
    ...(fileAccess ? { fileAccess } : {}),
    ...(toolCall ? { toolCall } : {}),
    risks: assessRisks(prompt.explanation, { home, ...(fileAccess ? { fileAccess } : {}) }),
    narrowing: {
      cwdPattern: escapeGlob(prompt.cwd.replace(/\\/g, "/")),
      exactArgPatterns: prompt.explanation.segments.map((s) =>
        s.dynamicArgs ? null : exactArgPattern(s.argv.slice(1)),
      ),
    },
  };
}
