import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "logout",
  "Remove the backend token from the OS keychain",
  "gatehouse logout",
);
