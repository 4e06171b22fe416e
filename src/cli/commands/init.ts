import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "init",
  "Write the approvals file with a policy preset",
  "gatehouse init [--preset locked|ask|trust] [--json]",
);
