// The Claude Code launch spec (device-protocol.md §8.2, §8.3; approval-protocol.md "Clients"): one
// `claude -p` turn with the prompt on stdin, the task's MCP servers from `E/runtime/<task_id>/mcp.json`,
// and a task settings file that registers `gatehouse hook claude` as the Bash PreToolUse hook. The
// user's own settings.json is never edited for this.
import path from "node:path";
import type { AppPaths } from "../paths.js";
import { claudeMcpConfig } from "./claude-mcp-config.js";
import type { LaunchFile, LaunchSpec, RuntimeSpecInput, TaskFacts } from "./launch-spec.js";
import { posixCommandLine } from "./shell-quote.js";

export const CLAUDE_AGENT_ID = "claude-code";
/** Claude Code gives up on a hook after its `timeout`; a person deciding must not be cut short. */
export const HOOK_TIMEOUT_MARGIN_SECONDS = 10;

export interface ClaudeSpecInput extends RuntimeSpecInput {
  /** Workspace root W (non-project tasks keep their Claude folder in `W/<task_id>/.claude`). */
  workspaceRoot: string;
  /** How to run gatehouse, e.g. `[process.execPath, "<repo>/bin/gatehouse.js"]` (absolute paths). */
  gatehouseCommand: string[];
  promptTimeoutMs: number;
}

export function runtimeFolder(paths: AppPaths, taskId: number): string {
  return path.join(paths.runtimeDir, String(taskId));
}

/** §8.2: CH for project tasks, else the task's own folder. */
export function claudeConfigDir(task: TaskFacts, paths: AppPaths, workspaceRoot: string): string {
  return task.isProjectTask ? paths.claudeHome : path.join(workspaceRoot, String(task.taskId), ".claude");
}

export function hookCommand(gatehouseCommand: string[]): string {
  return posixCommandLine([...gatehouseCommand, "hook", "claude", "--agent", CLAUDE_AGENT_ID]);
}

export function hookTimeoutSeconds(promptTimeoutMs: number): number {
  return Math.ceil(Math.max(0, promptTimeoutMs) / 1000) + HOOK_TIMEOUT_MARGIN_SECONDS;
}

/** The task settings passed with `--settings`: Bash goes through the hook, which decides. */
export function claudeTaskSettings(gatehouseCommand: string[], promptTimeoutMs: number): object {
  return {
    permissions: { allow: ["Bash"] },
    hooks: {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              command: hookCommand(gatehouseCommand),
              timeout: hookTimeoutSeconds(promptTimeoutMs),
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
  const configDir = claudeConfigDir(task, paths, input.workspaceRoot);
  const files: LaunchFile[] = [
    jsonFile(settingsPath, claudeTaskSettings(input.gatehouseCommand, input.promptTimeoutMs)),
  ];
  const args = ["-p", "--output-format", "stream-json", "--verbose", "--settings", settingsPath];
  if (input.servers.length > 0) {
    files.push(jsonFile(mcpPath, claudeMcpConfig(input.servers)));
    args.push("--mcp-config", mcpPath);
  }
  args.push("--allowedTools", "Bash");
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
