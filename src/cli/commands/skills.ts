import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "skills",
  "List, index and check the skill catalogue",
  "gatehouse skills list|index|check|rescan … [--json]",
);
