import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "socket",
  "Manage the approval socket",
  "gatehouse socket rotate-token [--json]",
);
