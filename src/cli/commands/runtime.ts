// `gatehouse runtime spec`: shows the launch spec Gatehouse would use for a `task:execute` payload,
// without starting anything or writing any file. Secrets are masked unless --show-secrets.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import {
  buildLaunchSpec,
  maskSpec,
  parseTaskPayload,
  projectInfo,
  runtimeForShellType,
  type LaunchSpec,
} from "../../core/runtime/index.js";
import { RUNTIME_INHERIT } from "../../core/env-rules.js";
import { SkillCatalogue } from "../../core/skills/index.js";
import { inheritedEnv } from "../../executor/child-env.js";
import { inheritSettingsOf, secretTest } from "../../executor/env-sources.js";
import { skillLaunch } from "../../executor/tasks/skill-launch.js";
import { bundledSkillsRoot } from "../../core/skills/bundled-root.js";
import { createSecretStore } from "../../secrets/secret-store.js";
import { posixCommandLine } from "../../core/runtime/shell-quote.js";
// found by walking up from the module, so it holds in dist/src/ and in the bundle (dist/cli/) alike
import { defaultGatehouseCommand } from "../../executor/tasks/gatehouse-command.js";
import { emptySettings, SettingsFileSchema, type SettingsFile } from "../../core/settings.js";
import { loadJsonFile, readJsonFile } from "../../core/store/index.js";
import { parseCommandArgs, readAllText } from "../args.js";
import { printJson, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE =
  "gatehouse runtime spec --task-json FILE [--cwd DIR] [--prompt-timeout SECONDS] [--resume ID] [--json] [--show-secrets]";
const DEFAULT_PROMPT_TIMEOUT_SECONDS = 120;

async function readTaskJson(file: string, ctx: CliContext): Promise<unknown> {
  let text: string;
  try {
    text = file === "-" ? await readAllText(ctx.stdin) : await fs.readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON (${(error as Error).message})`);
  }
}

function taskIdOf(payload: unknown): string {
  const id = (payload as { task_id?: unknown } | null)?.task_id;
  return typeof id === "number" || typeof id === "string" ? String(id).trim() : "";
}

function describeSpec(runtime: string, spec: LaunchSpec, notices: string[]): string {
  const lines = [
    `runtime: ${runtime}`,
    `command: ${posixCommandLine([spec.command, ...spec.args])}`,
    `cwd:     ${spec.cwd}`,
    "env:",
    ...Object.entries(spec.env).map(([k, v]) => `  ${k}=${v}`),
    `stdin:   ${spec.stdin === null ? "(not piped)" : JSON.stringify(spec.stdin)}`,
  ];
  for (const file of spec.files) {
    lines.push(`file ${file.path} (mode ${file.mode.toString(8).padStart(4, "0")}):`);
    lines.push(
      ...file.content
        .trimEnd()
        .split("\n")
        .map((l) => `  ${l}`),
    );
  }
  for (const notice of notices) lines.push(`notice: ${notice}`);
  return `${lines.join("\n")}\n`;
}

function parseSpecArgs(args: string[]) {
  return parseCommandArgs({
    args,
    allowPositionals: true,
    options: {
      "task-json": { type: "string" },
      cwd: { type: "string" },
      "prompt-timeout": { type: "string" },
      resume: { type: "string" },
      json: { type: "boolean", default: false },
      "show-secrets": { type: "boolean", default: false },
    },
  });
}

/** The turn's skill index, Skill tool and overlay for this payload; null when the payload is not runnable. */
async function skillsForSpec(ctx: CliContext, payload: unknown, workdir: string, settings: SettingsFile) {
  const parsed = parseTaskPayload(payload);
  if (!parsed.ok) return null;
  const shell = runtimeForShellType(parsed.payload);
  if (!shell.ok) return null;
  const engine = new SkillCatalogue({
    paths: ctx.paths,
    env: ctx.env,
    secrets: createSecretStore({ paths: ctx.paths, logger: ctx.logger }),
    logger: ctx.logger,
    bundledRoot: bundledSkillsRoot(),
  });
  const inherit = inheritSettingsOf(settings, ctx.paths.settings);
  const rules = { inherit: inherit.inherit, holdsSecret: secretTest(ctx.logger) };
  const launch = await skillLaunch(engine, {
    sessionKey: `task:${parsed.payload.task_id}`,
    taskId: parsed.payload.task_id,
    workspace: workdir,
    runtime: shell.runtime,
    isProjectTask: projectInfo(parsed.payload).isProjectTask,
    paths: ctx.paths,
    inheritedEnv: inheritedEnv(ctx.env, rules, RUNTIME_INHERIT[shell.runtime]).env,
  });
  for (const secret of Object.values(launch.envOverlay)) ctx.logger.addSecret(secret);
  return launch;
}

async function runSpec(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseSpecArgs(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const taskFile = values["task-json"];
  if (!taskFile) throw new UsageError("--task-json FILE is required (use - for stdin)");
  const timeoutText = values["prompt-timeout"] ?? String(DEFAULT_PROMPT_TIMEOUT_SECONDS);
  const timeoutSeconds = Number(timeoutText);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError(`--prompt-timeout must be a positive number of seconds, got "${timeoutText}"`);
  }

  const payload = await readTaskJson(taskFile, ctx);
  const settings = await loadJsonFile(ctx.paths.settings, SettingsFileSchema, emptySettings);
  const manifest = await readJsonFile(ctx.paths.capabilityManifest, z.unknown());
  if (manifest.status === "invalid") {
    ctx.stderr.write(
      `gatehouse runtime: Invalid capability manifest ${ctx.paths.capabilityManifest}: ${manifest.error}\n`,
    );
    return 1;
  }
  // The real workdir resolver is wired in by the executor; here: --cwd, else the managed folder W/<task_id>.
  const workspaceRoot = path.resolve(ctx.env.LOCAL_WORKSPACE_ROOT?.trim() || ctx.paths.defaultWorkspaceRoot);
  const workdir = values.cwd ? path.resolve(values.cwd) : path.join(workspaceRoot, taskIdOf(payload));

  // The skill part of the launch, built exactly as a task's turn builds it (skill-launch.ts).
  const skills = await skillsForSpec(ctx, payload, workdir, settings);
  const result = await buildLaunchSpec({
    payload,
    manifest: manifest.status === "ok" ? manifest.value : {},
    workdir,
    paths: ctx.paths,
    settings,
    gatehouseCommand: defaultGatehouseCommand(),
    resumeId: values.resume ?? null,
    promptTimeoutMs: timeoutSeconds * 1000,
    readTextFile: (file) => fs.readFile(file, "utf8"),
    skillInstructions: skills?.instructions ?? null,
    skillTool: (skills?.instructions ?? null) !== null,
    ...(skills ? { envOverlay: skills.envOverlay } : {}),
  });
  if (!result.ok) {
    if (values.json) printJson(ctx, { ok: false, code: result.code, error: result.error });
    else ctx.stderr.write(`gatehouse runtime: ${result.error}\n`);
    return 1;
  }
  const show = values["show-secrets"];
  const spec = show ? result.spec : maskSpec(result.spec, result.secrets);
  const text = values.json
    ? `${JSON.stringify({ ok: true, runtime: result.runtime, task: result.task, spec, notices: result.notices }, null, 2)}\n`
    : describeSpec(result.runtime, spec, result.notices);
  // --show-secrets is the person asking, in their own terminal, for the values the launch passes: the one
  // place stdout bypasses the redactor (bytes are written as they are; see cli/context.ts)
  ctx.stdout.write(show ? Buffer.from(text) : text);
  return 0;
}

export const command: CommandSpec = {
  name: "runtime",
  summary: "Show the launch spec of an agent task",
  usage: USAGE,
  run: async (args, ctx) => {
    const [sub, ...rest] = args;
    if (sub === "spec") return runSpec(rest, ctx);
    throw new UsageError(sub ? `unknown subcommand "${sub}"` : "a subcommand is required (spec)");
  },
};
