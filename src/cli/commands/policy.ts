import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "policy",
  "Explain how the exec policy decides a command",
  "gatehouse policy explain [--agent ID] [--cwd DIR] [--shell] [--json] -- COMMAND…",
);
