// Launch specs for agent runtimes: from a `task:execute` payload, the capability manifest, the
// resolved workdir, settings and paths to the command, argv, env, cwd, stdin and files of one turn.
// Nothing here spawns or writes: the executor writes `spec.files` (0600, folders 0700) and spawns.
import type { AppPaths } from "../paths.js";
import type { SettingsFile } from "../settings.js";
import { buildClaudeSpec } from "./claude-spec.js";
import type { ClaudeHttpHook } from "./claude-http-hook.js";
import { buildCodexSpec, codexConfigFile } from "./codex-spec.js";
import type { LaunchResult, LaunchSpec, TaskFacts } from "./launch-spec.js";
import { SKILL_SERVER_NAME, SKILL_TOOL } from "../skills/skill-tool.js";
import { parseManifestMcps, taskMcpServers, type NamedMcpServer } from "./mcp-servers.js";
import { parseTaskPayload, projectInfo, promptText, runtimeForShellType } from "./task-payload.js";
import { isRecord } from "../../shared/is-record.js";

export type { LaunchFile, LaunchResult, LaunchSpec, RuntimeKind, TaskFacts } from "./launch-spec.js";
export { maskSpec, MASK } from "./mask-spec.js";
export { parseTaskPayload, projectInfo, runtimeForShellType, TaskPayloadSchema } from "./task-payload.js";
export type { TaskPayload } from "./task-payload.js";
export { ManifestMcpsSchema, parseManifestMcps } from "./mcp-servers.js";
export { claudeMcpConfig, normaliseClaudeServer } from "./claude-mcp-config.js";
export { codexMcpOverrides } from "./codex-overrides.js";
export { claudeTaskSettings, runtimeFolder, taskClaudeHome, taskClaudeHomes } from "./claude-spec.js";
export { codexGateArgs } from "./codex-spec.js";
export { hookCommand, hookTimeoutSeconds } from "./agent-hook.js";
export { honoursHttpHookBlock, type ClaudeHttpHook } from "./claude-http-hook.js";

export interface LaunchInput {
  /** The `task:execute` payload as received (validated here), blanks already filled from the device config (§6.1 rule 2). */
  payload: unknown;
  /** The capability manifest (§7.8) as loaded; only its `mcps` section is read. */
  manifest: unknown;
  /** The resolved working directory (workdir.md). */
  workdir: string;
  paths: AppPaths;
  settings: SettingsFile;
  /** argv prefix that runs gatehouse, absolute paths: `[node, <repo>/bin/gatehouse.js]` or the packaged app's. */
  gatehouseCommand: string[];
  /** Claude session id / Codex thread id of the task's previous turn. */
  resumeId?: string | null;
  /** How long an approval prompt may wait; the hooks' timeout is this plus 10 s. */
  promptTimeoutMs: number;
  /** Instructions Gatehouse adds for this turn (the skill index and active skill blocks, skills.md §8–§10). */
  skillInstructions?: string | null;
  /** Claude Code: the runner's HTTP hook for this turn (its address and token); absent = the command hook. */
  claudeHttpHook?: ClaudeHttpHook | null;
  /** Give the agent the Gatehouse Skill tool (the task's `gatehouse skills mcp` server, skills.md §9). */
  skillTool?: boolean;
  /** Environment overlay for the agent process (skills.md §10); the spec's own variables win. */
  envOverlay?: Readonly<Record<string, string>>;
  /** Reads `XH/config.toml` for Codex (the caller's file system); a rejection counts as no file. */
  readTextFile: (file: string) => Promise<string>;
}

export type LaunchSuccess = Extract<LaunchResult, { ok: true }>;

/** The launch spec of one turn, or an error value (invalid payload, unsupported shell type). */
export async function buildLaunchSpec(input: LaunchInput): Promise<LaunchResult> {
  const parsed = parseTaskPayload(input.payload);
  if (!parsed.ok) return { ok: false, code: "invalid_payload", error: parsed.error };
  const payload = parsed.payload;
  const shell = runtimeForShellType(payload);
  if (!shell.ok) return { ok: false, code: "unsupported_shell_type", error: shell.error };

  const project = projectInfo(payload);
  const task: TaskFacts = {
    taskId: payload.task_id,
    subtaskId: payload.subtask_id,
    projectId: project.projectId,
    isProjectTask: project.isProjectTask,
  };
  const manifest = parseManifestMcps(input.manifest);
  const runtime = shell.runtime;
  const mcp = taskMcpServers(payload, manifest, {
    isProjectTask: task.isProjectTask,
    recordFallback: runtime === "claude-code",
  });
  const prompt = promptText(payload.prompt);
  const notices = [...mcp.notices];
  if (prompt.skippedParts > 0) {
    notices.push(
      `${prompt.skippedParts} non-text part(s) of the prompt (images, files) were not passed to ${runtime}.`,
    );
  }
  const secrets = launchSecrets(payload.auth_token, [
    ...mcp.servers.map((s) => s.server),
    { env: input.envOverlay ?? {} },
  ]);
  // The Skill tool's server name is Gatehouse's: a configured server of that name never replaces it.
  const servers = mcp.servers.filter((s) => s.name !== SKILL_SERVER_NAME);
  if (servers.length < mcp.servers.length) {
    notices.push(`The MCP server "${SKILL_SERVER_NAME}" was not injected: that name is Gatehouse's own.`);
  }
  if (input.skillTool) {
    servers.push(skillToolServer(input.gatehouseCommand, task.taskId, input.paths));
  }
  // Gatehouse extension: the launch may tighten the policy its agent's hook applies (checked by the runner).
  const requested = {
    ...(payload.security ? { security: payload.security } : {}),
    ...(payload.ask ? { ask: payload.ask } : {}),
  };
  const common = {
    task,
    servers,
    prompt: prompt.text,
    systemPrompt: [payload.system_prompt, input.skillInstructions].filter((t) => t?.trim()).join("\n\n"),
    workdir: input.workdir,
    paths: input.paths,
    settings: input.settings,
    resumeId: input.resumeId ?? null,
  };

  if (runtime === "claude-code") {
    const spec = buildClaudeSpec({
      ...common,
      gatehouseCommand: input.gatehouseCommand,
      promptTimeoutMs: input.promptTimeoutMs,
      requested,
      httpHook: input.claudeHttpHook ?? null,
    });
    return { ok: true, runtime, spec: withOverlay(spec, input.envOverlay), notices, task, secrets };
  }
  const userConfigText = await input.readTextFile(codexConfigFile(input.paths)).catch(() => null);
  const codex = buildCodexSpec({
    ...common,
    userConfigText,
    gatehouseCommand: input.gatehouseCommand,
    promptTimeoutMs: input.promptTimeoutMs,
    requested,
    secrets: payload.auth_token ? [payload.auth_token] : [],
  });
  const spec = withOverlay(codex.spec, input.envOverlay);
  return { ok: true, runtime, spec, notices: [...notices, ...codex.notices], task, secrets };
}

/** The task's Skill tool server (a stdio MCP server; skills-mcp.ts). */
function skillToolServer(gatehouseCommand: string[], taskId: number, paths: AppPaths): NamedMcpServer {
  const [command, ...args] = gatehouseCommand;
  return {
    name: SKILL_SERVER_NAME,
    server: {
      type: "stdio",
      command,
      // Gatehouse's folder goes as an argument: Codex gives stdio servers only a few variables, and a
      // server's env values are shown masked like secrets (this is none).
      args: [...args, "skills", "mcp", "--task", String(taskId), "--executor-home", paths.executorHome],
      alwaysLoad: true,
    },
    // Codex would otherwise refuse every call in `codex exec` (codex-overrides.ts).
    codexApprovedTools: [SKILL_TOOL],
  };
}

function withOverlay(spec: LaunchSpec, overlay: LaunchInput["envOverlay"]): LaunchSpec {
  return overlay ? { ...spec, env: { ...overlay, ...spec.env } } : spec;
}

/** Values to register with the logger and to mask: the task token, MCP header and env values. */
function launchSecrets(taskToken: string | null | undefined, servers: Record<string, unknown>[]): string[] {
  const out = new Set<string>();
  if (taskToken) out.add(taskToken);
  for (const server of servers) {
    for (const key of ["headers", "http_headers", "env"]) {
      const map = server[key];
      if (!isRecord(map)) continue;
      for (const value of Object.values(map)) if (typeof value === "string" && value) out.add(value);
    }
  }
  return [...out];
}
