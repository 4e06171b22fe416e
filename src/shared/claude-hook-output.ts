// Claude Code's PreToolUse answer (agent-cli-notes.md "Hooks"), one shape for the command hook's stdout
// and the runner's HTTP hook's reply body: allow or deny with the reason the model sees. Every call gets
// one: no output (or an HTTP 200 with an empty body) would be "no decision", and the call would then run
// under Claude Code's own permissions.

export interface HookVerdict {
  allow: boolean;
  reason: string;
}

export function claudeHookOutput(verdict: HookVerdict): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict.allow ? "allow" : "deny",
      permissionDecisionReason: verdict.reason,
    },
  });
}
