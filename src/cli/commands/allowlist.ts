import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "allowlist",
  "List, add or remove allowlist entries",
  "gatehouse allowlist list|add|remove [--agent ID] … [--json]",
);
