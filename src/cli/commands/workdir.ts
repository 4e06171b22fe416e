import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "workdir",
  "Resolve and check per-session working folders, roots and bindings",
  "gatehouse workdir resolve|check|roots|bindings|repos … [--json]",
);
