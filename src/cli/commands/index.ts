// Every subcommand, in the order `gatehouse --help` lists them. Each module exports `command`; it is
// imported only when that command runs (or when the full help is printed), so a call pays for its
// own command alone — the Claude Code hook runs on every Bash tool call (docs/decisions.md "Start-up").
import type { CommandSpec } from "../context.js";

export interface CommandEntry {
  name: string;
  /** Imports the command's module. */
  load(): Promise<CommandSpec>;
}

export const commands: CommandEntry[] = [
  { name: "init", load: async () => (await import("./init.js")).command },
  { name: "policy", load: async () => (await import("./policy.js")).command },
  { name: "allowlist", load: async () => (await import("./allowlist.js")).command },
  { name: "exec", load: async () => (await import("./exec.js")).command },
  { name: "elevate", load: async () => (await import("./elevate.js")).command },
  { name: "serve", load: async () => (await import("./serve.js")).command },
  { name: "ask", load: async () => (await import("./ask.js")).command },
  { name: "hook", load: async () => (await import("./hook.js")).command },
  { name: "socket", load: async () => (await import("./socket.js")).command },
  { name: "workdir", load: async () => (await import("./workdir.js")).command },
  { name: "runtime", load: async () => (await import("./runtime.js")).command },
  { name: "skills", load: async () => (await import("./skills.js")).command },
  { name: "caps", load: async () => (await import("./caps.js")).command },
  { name: "status", load: async () => (await import("./status.js")).command },
  { name: "doctor", load: async () => (await import("./doctor.js")).command },
  { name: "login", load: async () => (await import("./login.js")).command },
  { name: "logout", load: async () => (await import("./logout.js")).command },
  { name: "demo", load: async () => (await import("./demo.js")).command },
];
