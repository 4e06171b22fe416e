// The Claude Code launch spec (device-protocol.md §8.2, §8.3; approval-protocol.md "Clients"): one
// `claude -p` turn with the prompt on stdin, the task's MCP servers from `E/runtime/<task_id>/mcp.json`,
// and a task settings file that registers `gatehouse hook claude` for every tool call. The
// user's own settings.json is never edited for this. Only user settings and that file apply
// (`--setting-sources user`): a task folder's `.claude/settings*.json` and `.mcp.json` can neither
// switch the hook off nor widen permissions, and no tool is pre-allowed (the hook's "allow" is the
// only way a Bash call or a file edit runs).
import path from "node:path";
import type { AppPaths } from "../paths.js";
import { CLAUDE_HOOK_MATCHER, hookCommand, hookTimeoutSeconds, type HookLaunch } from "./agent-hook.js";
import { claudeHttpHookSettings, type ClaudeHttpHook } from "./claude-http-hook.js";
import { claudeMcpConfig } from "./claude-mcp-config.js";
import type { LaunchFile, LaunchSpec, RuntimeSpecInput, TaskFacts } from "./launch-spec.js";

export const CLAUDE_AGENT_ID = "claude-code";

export interface ClaudeSpecInput extends RuntimeSpecInput {
  /** How to run gatehouse, e.g. `[process.execPath, "<repo>/bin/gatehouse.js"]` (absolute paths). */
  gatehouseCommand: string[];
  promptTimeoutMs: number;
  requested?: HookLaunch["requested"];
  /** The runner's HTTP hook for this turn (claude-http-hook.ts); absent = the command hook. */
  httpHook?: ClaudeHttpHook | null;
}

export function runtimeFolder(paths: AppPaths, taskId: number | string): string {
  return path.join(paths.runtimeDir, String(taskId));
}

/**
 * A non-project task's own Claude Code folder: in Gatehouse's data (E), which no agent may read or
 * write, and outside every task's working folder, so an agent cannot rewrite the settings, hooks or
 * skills of its next turn. It outlives the turn (the session transcript is resumed from it).
 */
export function taskClaudeHome(paths: AppPaths, taskId: number | string): string {
  return path.join(taskClaudeHomes(paths), String(taskId));
}

/** The folder that holds every non-project task's own Claude folder. */
export function taskClaudeHomes(paths: AppPaths): string {
  return path.join(paths.executorHome, "task-claude");
}

/** §8.2: CH for project tasks, else the task's own folder. */
export function claudeConfigDir(task: TaskFacts, paths: AppPaths): string {
  return task.isProjectTask ? paths.claudeHome : taskClaudeHome(paths, task.taskId);
}

/**
 * The task settings passed with `--settings`: every tool call goes through the hook, which decides. With
 * `httpHook`, the runner's HTTP hook (its token literally here: the file is 0600 in Gatehouse's data).
 */
export function claudeTaskSettings(
  launch: Omit<HookLaunch, "agentId">,
  httpHook?: ClaudeHttpHook | null,
): object {
  if (httpHook) return claudeHttpHookSettings(httpHook, hookTimeoutSeconds(launch.promptTimeoutMs));
  return {
    // Flag settings win over the user's: a `disableAllHooks` in their settings.json does not apply here.
    disableAllHooks: false,
    hooks: {
      PreToolUse: [
        {
          matcher: CLAUDE_HOOK_MATCHER,
          hooks: [
            {
              type: "command",
              command: hookCommand("claude", { ...launch, agentId: CLAUDE_AGENT_ID }),
              timeout: hookTimeoutSeconds(launch.promptTimeoutMs),
            },
          ],
        },
      ],
    },
  };
}

function jsonFile(file: string, value: unknown): LaunchFile {
  return { path: file, content: `${JSON.stringify(value, null, 2)}\n`, mode: 0o600 };
}

export function buildClaudeSpec(input: ClaudeSpecInput): LaunchSpec {
  const { task, paths } = input;
  const folder = runtimeFolder(paths, task.taskId);
  const settingsPath = path.join(folder, "settings.json");
  const mcpPath = path.join(folder, "mcp.json");
  const configDir = claudeConfigDir(task, paths);
  const settings = claudeTaskSettings(
    {
      gatehouseCommand: input.gatehouseCommand,
      workdir: input.workdir,
      promptTimeoutMs: input.promptTimeoutMs,
      ...(input.requested ? { requested: input.requested } : {}),
    },
    input.httpHook,
  );
  const files: LaunchFile[] = [jsonFile(settingsPath, settings)];
  const args = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--setting-sources",
    "user",
    "--settings",
    settingsPath,
  ];
  if (input.servers.length > 0) {
    files.push(jsonFile(mcpPath, claudeMcpConfig(input.servers)));
    args.push("--mcp-config", mcpPath);
  }
  // `=` keeps a value that starts with "-" from being read as an option.
  if (input.systemPrompt?.trim()) args.push(`--append-system-prompt=${input.systemPrompt}`);
  if (input.resumeId) args.push("--resume", input.resumeId);
  return {
    command: input.settings.agents?.claudePath?.trim() || "claude",
    args,
    env: {
      CLAUDE_CONFIG_DIR: configDir,
      SKILLS_DIR: path.join(configDir, "skills"),
      // Claude Code keys its stored login by config folder once CLAUDE_CONFIG_DIR is set; pointing its
      // secure storage at CH keeps the user's login, also in a non-project task's own folder ("" = the
      // default ~/.claude, which is what an unset CLAUDE_CONFIG_DIR means to it). claude 2.1.197.
      CLAUDE_SECURESTORAGE_CONFIG_DIR:
        paths.claudeHome === path.join(paths.home, ".claude") ? "" : paths.claudeHome,
      GATEHOUSE_TASK_ID: String(task.taskId),
      WEGENT_EXECUTOR_HOME: paths.executorHome,
    },
    cwd: input.workdir,
    stdin: input.prompt,
    files,
  };
}
