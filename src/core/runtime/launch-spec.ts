// The launch spec: everything the executor needs to start one agent runtime turn, as plain data.
// Secrets (task token, MCP headers and env values) are present in the real spec; `maskSpec` hides
// them for display.
import type { AppPaths } from "../paths.js";
import type { SettingsFile } from "../settings.js";
import type { NamedMcpServer } from "./mcp-servers.js";

export type RuntimeKind = "claude-code" | "codex";

/** A file the executor writes (atomically, parent folders 0700) before it spawns the runtime. */
export interface LaunchFile {
  path: string;
  content: string;
  mode: number;
}

export interface LaunchSpec {
  command: string;
  /** argv after the command; passed without a shell. */
  args: string[];
  /** Variables set on top of the base environment of the child (the app's own env is never changed). */
  env: Record<string, string>;
  cwd: string;
  /** Text written to the child's stdin, then closed; `null` = stdin is not piped (Codex would read it). */
  stdin: string | null;
  files: LaunchFile[];
}

export interface TaskFacts {
  taskId: number;
  subtaskId: number;
  /** The §8.1 project id ("" when none). */
  projectId: string;
  isProjectTask: boolean;
}

/** What both runtimes' spec builders take (claude-spec.ts and codex-spec.ts add their own). */
export interface RuntimeSpecInput {
  task: TaskFacts;
  /** Servers after collection, merge and substitution (mcp-servers.ts). */
  servers: NamedMcpServer[];
  prompt: string;
  systemPrompt?: string | null;
  workdir: string;
  paths: AppPaths;
  settings: SettingsFile;
  resumeId?: string | null;
}

export type LaunchResult =
  | {
      ok: true;
      runtime: RuntimeKind;
      spec: LaunchSpec;
      /** Lines for the task log: servers not injected, placeholders left, prompt parts dropped. */
      notices: string[];
      task: TaskFacts;
      /** Secret values in the spec (task token, MCP header and env values): register with the logger. */
      secrets: string[];
    }
  | { ok: false; code: "invalid_payload" | "unsupported_shell_type"; error: string };
