import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "exec",
  "Decide and run a command through the exec policy",
  "gatehouse exec [--agent ID] [--cwd DIR] [--timeout S] [--max-output BYTES] [--shell] [--json] -- COMMAND…",
);
