// The Codex launch spec (device-protocol.md §8.4): one `codex exec --json` turn; MCP servers reach
// Codex only as `-c` overrides (never by writing XH/config.toml); the prompt is the last argument.
// Every turn is gated (codex-cli 0.169, each setting checked with the real CLI; docs/decisions.md
// "Agent runtimes gated"): `gatehouse hook codex` is the PreToolUse hook of every tool call, hooks
// stay on whatever the user's or a repository's configuration says, the task's folder is never a
// trusted project (its `.codex/` config, hooks and MCP servers do not load), commands get no TTY
// (`write_stdin` into a running program is not hooked) and no login shell, and Codex's own sandbox
// and approvals are off: the gate is the one place that decides, as for Claude Code.
import path from "node:path";
import type { AppPaths } from "../paths.js";
import { hookCommand, hookTimeoutSeconds, type HookLaunch } from "./agent-hook.js";
import { codexMcpOverrides, userCodexServerNames } from "./codex-overrides.js";
import type { LaunchSpec, RuntimeSpecInput } from "./launch-spec.js";
import { tomlArray, tomlString } from "./toml-value.js";
import { TASK_ID_ENV, TASK_KEY_ENV } from "../../shared/task-env.js";

export const CODEX_AGENT_ID = "codex";

export interface CodexSpecInput extends RuntimeSpecInput {
  /** Text of `XH/config.toml`, `null` when it is missing or unreadable. */
  userConfigText: string | null;
  /** How to run gatehouse, e.g. `[process.execPath, "<repo>/bin/gatehouse.js"]` (absolute paths). */
  gatehouseCommand: string[];
  promptTimeoutMs: number;
  requested?: HookLaunch["requested"];
  /** Values that never go on the command line (the task token). */
  secrets?: readonly string[];
}

/** The `-c` overrides and flags that put every tool call of a turn through the gate. */
export function codexGateArgs(input: {
  gatehouseCommand: string[];
  workdir: string;
  promptTimeoutMs: number;
  requested?: HookLaunch["requested"] | undefined;
}): string[] {
  const command = tomlString(
    hookCommand("codex", {
      gatehouseCommand: input.gatehouseCommand,
      agentId: CODEX_AGENT_ID,
      workdir: input.workdir,
      promptTimeoutMs: input.promptTimeoutMs,
      ...(input.requested ? { requested: input.requested } : {}),
    }),
  );
  const folder = tomlString(input.workdir);
  if (command === null || folder === null) {
    throw new Error("the working folder's path cannot be written in TOML (an unpaired surrogate)");
  }
  const hook = `{type="command",command=${command},timeout=${hookTimeoutSeconds(input.promptTimeoutMs)}}`;
  const overrides = [
    "features.hooks=true",
    `hooks.PreToolUse=[{matcher="*",hooks=[${hook}]}]`,
    `projects={${folder}={trust_level="untrusted"}}`,
    "features.unified_exec_tty=false",
    "allow_login_shell=false",
    'sandbox_mode="danger-full-access"',
    'approval_policy="never"',
  ];
  return ["--dangerously-bypass-hook-trust", ...overrides.flatMap((o) => ["-c", o])];
}

export function codexConfigFile(paths: AppPaths): string {
  return path.join(paths.codexHome, "config.toml");
}

export function buildCodexSpec(input: CodexSpecInput): { spec: LaunchSpec; notices: string[] } {
  const notices: string[] = [];
  const configFile = codexConfigFile(input.paths);
  const user = userCodexServerNames(input.userConfigText);
  if (user.error) {
    notices.push(
      `${configFile} could not be parsed (${user.error}); its MCP servers were not checked for clashes.`,
    );
  }
  const mcp = codexMcpOverrides(input.servers, user.names, configFile, { secrets: input.secrets ?? [] });
  notices.push(...mcp.notices);
  const args = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    ...codexGateArgs({
      gatehouseCommand: input.gatehouseCommand,
      workdir: input.workdir,
      promptTimeoutMs: input.promptTimeoutMs,
      requested: input.requested,
    }),
  ];
  const instructions = input.systemPrompt?.trim() ? tomlString(input.systemPrompt) : null;
  if (instructions !== null) args.push("-c", `developer_instructions=${instructions}`);
  else if (input.systemPrompt?.trim()) {
    notices.push(
      "The system prompt holds an unpaired surrogate, which TOML cannot encode; it was not passed to Codex.",
    );
  }
  args.push(...mcp.args);
  // The moved values are in Codex's environment only: its commands never inherit them.
  const moved = Object.keys(mcp.env).sort();
  // So is the task's provenance key: it is for the hook Codex runs, never for the commands it runs.
  args.push("-c", `shell_environment_policy.exclude=${tomlArray([...moved, TASK_KEY_ENV])}`);
  if (input.resumeId) args.push("resume");
  // `--` keeps a prompt such as "resume" or "-x" from being read as a subcommand or an option.
  args.push("--", ...(input.resumeId ? [input.resumeId] : []), input.prompt);
  return {
    spec: {
      command: input.settings.agents?.codexPath?.trim() || "codex",
      args,
      env: {
        ...mcp.env,
        CODEX_HOME: input.paths.codexHome,
        [TASK_ID_ENV]: String(input.task.taskId),
        WEGENT_EXECUTOR_HOME: input.paths.executorHome,
      },
      cwd: input.workdir,
      stdin: null,
      files: [],
    },
    notices,
  };
}
