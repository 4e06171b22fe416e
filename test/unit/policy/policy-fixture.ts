// A temp folder with real executables (small scripts) on a PATH of its own, and helpers to explain
// commands against an approvals file held in memory. The design's /usr/bin/git etc. are stand-ins for
// the real paths built here.
import fs from "node:fs/promises";
import path from "node:path";
import type {
  AllowlistEntry,
  ApprovalsFile,
  ApprovalsState,
  PolicySettings,
} from "../../../src/core/approvals/index.js";
import {
  explainCommand,
  type CommandInput,
  type Explanation,
  type PolicyContext,
} from "../../../src/core/policy/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

export const TOOL_NAMES = [
  "git",
  "grep",
  "rm",
  "echo",
  "ls",
  "env",
  "curl",
  "python3",
  "node",
  "perl",
  "ruby",
  "awk",
  "osascript",
  "pwsh",
  "rg",
  "bash",
  "sh",
  "sudo",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "time",
  "command",
  "cat",
  "true",
  "printf",
  "test",
  "[",
  "xargs",
  "sort",
  "sed",
  "tar",
  "date",
  "hostname",
  "shuf",
  "sdiff",
  "xxd",
  "yq",
  "less",
  "unshare",
  "tmux",
  "arch",
  "openssl",
  "tool",
] as const;

export interface PolicyFixture {
  t: TempHome;
  bin: string;
  /** Real path of a tool in the fixture's bin. */
  tool(name: string): string;
  env: Record<string, string>;
  cwd: string;
  cleanup(): Promise<void>;
}

export async function makeExecutable(file: string, body = "#!/bin/sh\nexit 0\n"): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, body, { mode: 0o755 });
  return fs.realpath(file);
}

export async function makePolicyFixture(): Promise<PolicyFixture> {
  const t = await makeTempHome("gatehouse-policy-");
  const bin = path.join(t.home, "bin");
  for (const name of TOOL_NAMES) await makeExecutable(path.join(bin, name));
  const cwd = path.join(t.home, "project");
  await fs.mkdir(cwd, { recursive: true });
  return {
    t,
    bin,
    tool: (name) => path.join(bin, name),
    env: { PATH: bin, HOME: t.home },
    cwd,
    cleanup: () => t.cleanup(),
  };
}

let ids = 0;
export function entry(pattern: string, extra: Partial<AllowlistEntry> = {}): AllowlistEntry {
  ids += 1;
  return { id: extra.id ?? `e${ids}`, pattern, ...extra };
}

export function approvalsWith(
  allowlist: AllowlistEntry[],
  defaults: PolicySettings = { security: "allowlist", ask: "on-miss", askFallback: "deny" },
  agents: ApprovalsFile["agents"] = {},
): ApprovalsState {
  return {
    status: "ok",
    path: "/nonexistent/exec-approvals.json",
    file: {
      version: 1,
      socket: { path: "/nonexistent/exec-approvals.sock", token: "t".repeat(43) },
      defaults,
      agents: { "*": { allowlist }, ...agents },
    },
  };
}

export function explainWith(
  fx: PolicyFixture,
  approvals: ApprovalsState,
  overrides: Partial<PolicyContext> = {},
): (command: string | string[] | CommandInput) => Promise<Explanation> {
  return (command) =>
    explainCommand(
      typeof command === "string" ? { command } : Array.isArray(command) ? { argv: command } : command,
      {
        agentId: "local",
        cwd: fx.cwd,
        env: fx.env,
        home: fx.t.home,
        approvals,
        now: 1_000_000,
        ...overrides,
      },
    );
}
