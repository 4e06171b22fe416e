import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "caps",
  "Capability report and sync status",
  "gatehouse caps report|status --json",
);
