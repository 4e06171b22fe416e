// The agent CLIs Gatehouse supports and what it knows about each version (docs/agent-clis.md): the one
// table of the oldest and newest Claude Code and Codex versions, how their `--version` output reads, the
// verdict for a version (run, run with a warning, refuse), which hook form a task gets and why, and the
// launch options a version needs. Pure: the executor runs `<cli> --version` (agent-cli-probe.ts) and
// brings the text here.
import { HTTP_HOOK_BLOCK_SINCE, honoursHttpHookBlock } from "./claude-http-hook.js";
import type { RuntimeKind } from "./launch-spec.js";

export interface AgentCliSupport {
  /** How people call it. */
  label: string;
  /** The npm package that installs it (for the fix a person reads). */
  npmPackage: string;
  /** The setting that points Gatehouse at a binary of one's choice. */
  setting: string;
  /** The oldest version Gatehouse supports: CI runs the real-CLI tests against it. */
  oldest: string;
  /** The newest version Gatehouse was tested with: package.json pins it, CI runs against it. */
  newest: string;
}

/** The support range, one row per agent CLI. package.json's pins and docs/agent-clis.md follow it (tested). */
export const AGENT_CLI_SUPPORT: Readonly<Record<RuntimeKind, AgentCliSupport>> = {
  "claude-code": {
    label: "Claude Code",
    npmPackage: "@anthropic-ai/claude-code",
    setting: "agents.claudePath",
    oldest: "2.1.197",
    newest: "2.1.332",
  },
  codex: {
    label: "Codex",
    npmPackage: "@openai/codex",
    setting: "agents.codexPath",
    oldest: "0.169.0",
    newest: "0.171.0",
  },
};

export const AGENT_RUNTIMES: readonly RuntimeKind[] = ["claude-code", "codex"];

/** The command name Gatehouse looks up on PATH when no path is configured. */
export const AGENT_COMMAND: Readonly<Record<RuntimeKind, string>> = {
  "claude-code": "claude",
  codex: "codex",
};

const VERSION = String.raw`(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?`;

/** `2.1.332 (Claude Code)` / `codex-cli 0.171.0`: the version a CLI prints, or null when it says something else. */
export function parseAgentVersion(runtime: RuntimeKind, output: string): string | null {
  const pattern =
    runtime === "claude-code"
      ? new RegExp(String.raw`^\s*${VERSION}\s+\(Claude Code\)\s*$`, "m")
      : new RegExp(String.raw`^\s*codex-cli\s+${VERSION}\s*$`, "m");
  const match = pattern.exec(output);
  if (!match) return null;
  return `${match[1]}.${match[2]}.${match[3]}${match[4] ? `-${match[4]}` : ""}`;
}

/** Semantic-version order: numbers, then a pre-release (`-alpha.1`) before its release. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = "", pre] = v.split(/-(.*)/s, 2);
    return { nums: core.split(".").map((n) => Number(n)), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

export type SupportStatus = "supported" | "newer-than-tested" | "too-old" | "unknown-version";

export interface SupportVerdict {
  status: SupportStatus;
  /** Whether a task may run with this binary. */
  runs: boolean;
  /** What a person reads (a task's error or warning event, doctor): what happened and what to do. */
  message: string | null;
}

/**
 * The verdict for a binary's version: inside the range it runs; newer than the newest tested it runs
 * with a warning (docs/decisions.md "Agent CLI versions"); older, or a version that cannot be read,
 * is refused with the fix.
 */
export function supportVerdict(
  runtime: RuntimeKind,
  file: string,
  version: string | null,
  settingsFile: string,
): SupportVerdict {
  const s = AGENT_CLI_SUPPORT[runtime];
  const range = `${s.oldest} to ${s.newest}`;
  const install = `npm install -g ${s.npmPackage}@${s.newest}`;
  if (version === null) {
    return {
      status: "unknown-version",
      runs: false,
      message:
        `Gatehouse could not tell which version of ${s.label} ${file} is, so it did not start it. ` +
        `It supports ${s.label} ${range}: install one (${install}), or set ${s.setting} in ${settingsFile} to one.`,
    };
  }
  if (compareVersions(version, s.oldest) < 0) {
    return {
      status: "too-old",
      runs: false,
      message:
        `${s.label} ${version} (${file}) is older than the oldest version Gatehouse supports (${s.oldest}), ` +
        `so it did not start it. Update it (${install}), or set ${s.setting} in ${settingsFile} to a newer one.`,
    };
  }
  if (compareVersions(version, s.newest) > 0) {
    return {
      status: "newer-than-tested",
      runs: true,
      message:
        `${s.label} ${version} (${file}) is newer than the newest version Gatehouse was tested with ` +
        `(${s.newest}). The task runs, and every tool call still goes through the gate; if it misbehaves, ` +
        `install ${s.newest} (${install}) or set ${s.setting} in ${settingsFile} to it.`,
    };
  }
  return { status: "supported", runs: true, message: null };
}

/** What Gatehouse read from a binary: its version and the options its help lists. */
export interface AgentCliFacts {
  runtime: RuntimeKind;
  file: string;
  version: string | null;
  /** Long options `<cli> --help` lists (`--system-prompt-snapshot`, …); empty when not read. */
  options: ReadonlySet<string>;
}

/** The long options a help text lists. */
export function helpOptions(help: string): Set<string> {
  return new Set([...help.matchAll(/(?:^|[\s,[])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
}

export type HookForm = "command" | "http";

/**
 * How the gate is attached to a task's agent, and why (the one place that decides; the task start and
 * `gatehouse status`/`doctor` read it). Claude Code versions that block a call when an HTTP hook fails
 * get the runner's HTTP hook (issue 29: no process per tool call); older ones and Codex (no HTTP hooks)
 * get the PreToolUse command hook `gatehouse hook claude|codex` (agent-hook.ts).
 */
export function hookFormFor(facts: Pick<AgentCliFacts, "runtime" | "version">): {
  form: HookForm;
  reason: string;
} {
  if (facts.runtime === "codex")
    return {
      form: "command",
      reason:
        'a PreToolUse command hook given as -c overrides with --dangerously-bypass-hook-trust: every supported Codex (≥ 0.124) runs it before every command and patch; Codex has no HTTP hook, and its mcp_tool hook lets the call run when its MCP server is gone, fails or times out (0.169.0, 0.171.0; docs/decisions.md "Codex keeps the command hook")',
    };
  if (honoursHttpHookBlock(facts.version))
    return {
      form: "http",
      reason: `an HTTP hook served by the running Gatehouse, listed in the task's settings file (--settings, --setting-sources user) with onFailure "block": Claude Code ${facts.version} blocks a call whose hook fails, so no process is started per tool call`,
    };
  return {
    form: "command",
    reason: `a PreToolUse command hook in the task's settings file (--settings, --setting-sources user; slower: one process per tool call): Claude Code ${facts.version ?? "of an unknown version"} does not block a tool call when an HTTP hook fails (since ${HTTP_HOOK_BLOCK_SINCE}), so an HTTP hook would not keep the gate closed`,
  };
}

/**
 * Options a version needs beyond the launch spec, in the order they go after the spec's own. Claude
 * Code 2.1.332 records the system prompt on a conversation's first request and sends that record on
 * every resume ("--system-prompt-snapshot", on by default), which would freeze the skill index and
 * active skill blocks of a task's first turn (skills.md §10): off where the option exists.
 */
export function versionLaunchArgs(facts: AgentCliFacts): string[] {
  if (facts.runtime === "claude-code" && facts.options.has("--system-prompt-snapshot"))
    return ["--system-prompt-snapshot", "off"];
  return [];
}
