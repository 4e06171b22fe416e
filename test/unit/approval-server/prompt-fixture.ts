// A prompt as the gate would queue it, with a small explanation (broker and presenter tests).
import type { Explanation, PromptRequest } from "../../../src/core/policy/types.js";

let counter = 0;

export function makePrompt(
  overrides: Partial<PromptRequest> & { ask?: Explanation["ask"] } = {},
): PromptRequest {
  const { ask = "on-miss", ...rest } = overrides;
  const now = Date.now();
  const command = rest.command ?? { argv: ["rm", "-rf", "build"] };
  const explanation: Explanation = {
    outcome: "prompt",
    reason: "allowlist-miss",
    matchedEntryIds: [],
    security: "allowlist",
    ask,
    askFallback: "deny",
    sources: { security: "defaults", ask: "defaults", askFallback: "built-in" },
    agentId: rest.agentId ?? "local",
    cwd: rest.cwd ?? "/tmp",
    command,
    flags: ["redirect"],
    flagDetails: [{ kind: "redirect", detail: "writes to out.txt" }],
    segments: [
      {
        argv: ["rm", "-rf", "build"],
        executable: "rm",
        resolvedPath: "/usr/bin/rm",
        foundVia: "path",
        context: "top",
        matchedEntryId: null,
        missReason: "no allowlist entry matches /usr/bin/rm",
      },
    ],
    allowlistSatisfied: false,
    approvalsFile: { path: "/tmp/exec-approvals.json", status: "ok" },
    proposedEntries: [{ pattern: "/usr/bin/rm", segment: 0 }],
    allowAlwaysAvailable: ask !== "always",
  };
  return {
    id: `p${++counter}`,
    sessionKey: "local",
    agentId: "local",
    source: "test",
    cwd: "/tmp",
    command,
    explanation,
    createdAt: now,
    expiresAt: now + 60_000,
    ...rest,
  };
}
