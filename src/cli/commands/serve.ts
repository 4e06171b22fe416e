import { notImplemented } from "./not-implemented.js";

export const command = notImplemented(
  "serve",
  "Run the headless runner: approval server and backend connection",
  "gatehouse serve [--prompt tty] [--ask-via HOME]",
);
