import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "hook",
  "Claude Code PreToolUse hook for the Bash tool",
  "gatehouse hook claude [--agent ID]",
);
