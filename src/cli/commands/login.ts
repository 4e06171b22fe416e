import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "login",
  "Save the backend token in the OS keychain (read from stdin)",
  "gatehouse login [--backend URL]",
);
