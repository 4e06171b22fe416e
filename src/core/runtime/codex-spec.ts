// The Codex launch spec (device-protocol.md §8.4): one `codex exec --json` turn; MCP servers reach
// Codex only as `-c` overrides (never by writing XH/config.toml); the prompt is the last argument.
import path from "node:path";
import type { AppPaths } from "../paths.js";
import { codexMcpOverrides, userCodexServerNames } from "./codex-overrides.js";
import type { LaunchSpec, RuntimeSpecInput } from "./launch-spec.js";
import { tomlString } from "./toml-value.js";

export interface CodexSpecInput extends RuntimeSpecInput {
  /** Text of `XH/config.toml`, `null` when it is missing or unreadable. */
  userConfigText: string | null;
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
  const mcp = codexMcpOverrides(input.servers, user.names, configFile);
  notices.push(...mcp.notices);
  const args = ["exec", "--json", "--skip-git-repo-check"];
  const instructions = input.systemPrompt?.trim() ? tomlString(input.systemPrompt) : null;
  if (instructions !== null) args.push("-c", `developer_instructions=${instructions}`);
  else if (input.systemPrompt?.trim()) {
    notices.push(
      "The system prompt holds an unpaired surrogate, which TOML cannot encode; it was not passed to Codex.",
    );
  }
  args.push(...mcp.args);
  if (input.resumeId) args.push("resume");
  // `--` keeps a prompt such as "resume" or "-x" from being read as a subcommand or an option.
  args.push("--", ...(input.resumeId ? [input.resumeId] : []), input.prompt);
  return {
    spec: {
      command: input.settings.agents?.codexPath?.trim() || "codex",
      args,
      env: {
        CODEX_HOME: input.paths.codexHome,
        GATEHOUSE_TASK_ID: String(input.task.taskId),
        WEGENT_EXECUTOR_HOME: input.paths.executorHome,
      },
      cwd: input.workdir,
      stdin: null,
      files: [],
    },
    notices,
  };
}
