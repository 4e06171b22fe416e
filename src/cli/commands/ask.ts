import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "ask",
  "Ask the running Gatehouse to approve a command",
  "gatehouse ask [--agent ID] [--cwd DIR] [--timeout S] [--json] -- COMMAND…",
);
