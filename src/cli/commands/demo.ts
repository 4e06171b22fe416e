import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "demo",
  "Run the whole device flow against an embedded test backend",
  "gatehouse demo [--json]",
);
