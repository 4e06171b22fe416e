// The runner's HTTP hook in a Claude Code task's settings (issue 29; docs/decisions.md "The runner serves
// Claude Code's hook over HTTP"). Checked with the real 2.1.332: the request body is the command hook's
// stdin JSON and the answer the same `hookSpecificOutput`; the URL must be listed in
// `allowedHttpHookUrls`; `onFailure: "block"` blocks the call when the server is down, answers an error
// status or garbage, or times out. 2.1.197 ignores `onFailure` (a dead server lets the call run), so the
// HTTP hook is only for a CLI that honours it; any other gets the command hook.
import { CLAUDE_HOOK_MATCHER } from "./agent-hook.js";

export interface ClaudeHttpHook {
  /** `http://127.0.0.1:<port>/hook/<id>`: the turn's own address on the runner. */
  url: string;
  /** The turn's bearer token: written literally (a `$VAR` header would be visible to the agent's Bash). */
  token: string;
}

/** The first Claude Code version known to honour `onFailure: "block"` on an HTTP hook (checked: 2.1.332). */
export const HTTP_HOOK_BLOCK_SINCE = "2.1.332";

/** Whether Claude Code `version` (`x.y.z`) blocks a call when its HTTP hook fails; unknown = no. */
export function honoursHttpHookBlock(version: string | null): boolean {
  const given = version?.match(/^(\d+)\.(\d+)\.(\d+)/);
  if (!given) return false;
  const since = HTTP_HOOK_BLOCK_SINCE.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const part = Number(given[i + 1]);
    if (part !== since[i]) return part > since[i]!;
  }
  return true;
}

/** The task settings with the HTTP hook for every tool call. */
export function claudeHttpHookSettings(hook: ClaudeHttpHook, timeoutSeconds: number): object {
  return {
    // Flag settings win over the user's: a `disableAllHooks` in their settings.json does not apply here.
    disableAllHooks: false,
    allowedHttpHookUrls: [hook.url],
    hooks: {
      PreToolUse: [
        {
          matcher: CLAUDE_HOOK_MATCHER,
          hooks: [
            {
              type: "http",
              url: hook.url,
              headers: { Authorization: `Bearer ${hook.token}` },
              onFailure: "block",
              timeout: timeoutSeconds,
            },
          ],
        },
      ],
    },
  };
}
