import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "runtime",
  "Show the launch spec of an agent task",
  "gatehouse runtime spec --task-json FILE [--show-secrets] --json",
);
