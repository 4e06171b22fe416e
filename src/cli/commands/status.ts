import { notImplemented } from "./not-implemented.js";

export const command = notImplemented("status", "Connection and service status", "gatehouse status [--json]");
