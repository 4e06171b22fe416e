// `gatehouse hook claude|codex`: the PreToolUse hook of Claude Code and of Codex (approval-protocol.md
// "Clients", agent-cli-notes.md "Gating both runtimes"). Each runtime's input becomes one tool call
// (cli/hook/claude.ts, codex.ts) and goes down one decision path (cli/hook/decide.ts); the verdict
// is printed the way that runtime reads it; every call gets one. Fails closed: unreadable input or any
// failure here is a block; a tool, field or value the tables do not know goes to a person.
import type { z } from "zod/mini";
import type { RequestedSettings } from "../../shared/schemas/explanation.js";
import { MAX_PROMPT_TIMEOUT_MS } from "../../approval-server/protocol.js";
import { TASK_ID_ENV, taskCredentialsFrom } from "../../approval-server/task-proof.js";
import { SettingsHookViewSchema } from "../../core/settings-hook.js";
import { parseJsonText, readJsonFileSync, type JsonSchema } from "../../core/store/json-file.js";
import { nonEmptyOption, parseCommandLine, requestedSettingsOption, secondsOption } from "../args.js";
import { printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";
import { claudeHookOutput, readClaudeToolCall } from "../hook/claude.js";
import { codexToolCall, codexPreToolUseSchema } from "../hook/codex.js";
import { agentShellReading } from "../hook/agent-shell.js";
import { decideToolCall, type HookSession } from "../hook/decide.js";
import type { HookVerdict, ToolCall } from "../hook/tool-call.js";

const USAGE = [
  "gatehouse hook claude|codex [--agent ID] [--workdir DIR] [--timeout S]",
  "gatehouse hook install|uninstall claude|codex [--dry-run] [--json]   (the gate for your own sessions)",
].join("\n");
const RUNTIMES = ["claude", "codex"] as const;
type Runtime = (typeof RUNTIMES)[number];
const DEFAULT_AGENT: Record<Runtime, string> = { claude: "claude-code", codex: "codex" };
const DEFAULT_PROMPT_TIMEOUT_MS = 120_000;
/** Codex blocks a tool call when its hook exits with this status (the reason on stderr). */
export const CODEX_BLOCK_EXIT = 2;

function agentIdFor(ctx: CliContext, runtime: Runtime, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  if (runtime === "claude") {
    const settings = readJsonFileSync(ctx.paths.settings, SettingsHookViewSchema);
    if (settings.status === "ok" && settings.value.hook?.claudeAgentId)
      return settings.value.hook.claudeAgentId;
  }
  return DEFAULT_AGENT[runtime];
}

function absoluteOr(cwd: string | undefined, fallback: string): string {
  return cwd && cwd.startsWith("/") ? cwd : fallback;
}

/** Prints the verdict as the runtime reads it; returns the exit status. */
function answer(ctx: CliContext, runtime: Runtime, verdict: HookVerdict): number {
  if (runtime === "claude") {
    printLine(ctx, claudeHookOutput(verdict));
    return 0;
  }
  if (!verdict.allow) {
    ctx.stderr.write(`${verdict.reason}\n`);
    return CODEX_BLOCK_EXIT;
  }
  return 0;
}

function parseInput<S extends JsonSchema>(schema: S, text: string): z.output<S> | null {
  const parsed = parseJsonText(text, schema);
  return parsed.status === "ok" ? parsed.value : null;
}

/** The runtime's input as a tool call, with the session and folder it names; null when unreadable. */
async function readToolCall(
  runtime: Runtime,
  text: string,
  workdir: string | undefined,
): Promise<{ call: ToolCall; sessionId: string | undefined; cwd: string } | null> {
  if (runtime === "claude") return readClaudeToolCall(text, workdir, process.cwd());
  const input = parseInput(codexPreToolUseSchema(), text);
  if (!input) return null;
  const cwd = absoluteOr(input.cwd, process.cwd());
  const ctx = { cwd, ...(workdir !== undefined ? { workdir } : {}) };
  return { call: await codexToolCall(input, ctx), sessionId: input.session_id, cwd };
}

async function decide(runtime: Runtime, text: string, ctx: CliContext, flags: Flags): Promise<HookVerdict> {
  const read = await readToolCall(runtime, text, flags.workdir);
  if (!read) {
    const agent = runtime === "claude" ? "Claude Code" : "Codex";
    return {
      allow: false,
      reason: `Gatehouse could not read the hook input from ${agent}, so it denies the call.`,
    };
  }
  const taskId = ctx.env[TASK_ID_ENV]?.trim();
  const session: HookSession = {
    ctx,
    runtime,
    agentId: agentIdFor(ctx, runtime, flags.agent),
    sessionKey: taskId ? `task:${taskId}` : `${runtime}:${read.sessionId ?? "unknown"}`,
    source: `${runtime}-hook`,
    // Outside a Gatehouse task the session's own folder is the one it works in.
    workdir: flags.workdir ?? read.cwd,
    promptTimeoutMs: flags.timeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS,
    shell: agentShellReading(runtime, ctx.env),
    // Gatehouse gave the task a key in its environment: each request carries a proof, never the key.
    task: taskCredentialsFrom(ctx.env),
    ...(flags.requested ? { requested: flags.requested } : {}),
  };
  return decideToolCall(read.call, session);
}

function requestedOrUndefined(requested: RequestedSettings): RequestedSettings | undefined {
  return requested.security === undefined && requested.ask === undefined ? undefined : requested;
}

interface Flags {
  agent: string | undefined;
  workdir: string | undefined;
  timeoutMs: number | undefined;
  /** `--security`/`--ask` from the task's launch: every request asks for them (they only tighten). */
  requested: RequestedSettings | undefined;
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  // Loaded only for these: the hook itself starts on every tool call.
  if (args[0] === "install" || args[0] === "uninstall")
    return (await import("./hook-install.js")).runHookInstall(args, ctx);
  const parsed = parseCommandLine(args, ["agent", "timeout", "security", "ask"], {
    workdir: { type: "string" },
  });
  const [runtime, ...rest] = parsed.positionals;
  if (!RUNTIMES.includes(runtime as Runtime) || rest.length > 0)
    throw new UsageError('the hooks are "claude" and "codex"');
  const workdir = nonEmptyOption("workdir", parsed.values.workdir);
  if (workdir !== undefined && !workdir.startsWith("/")) throw new UsageError("--workdir must be absolute");
  const flags: Flags = {
    agent: nonEmptyOption("agent", parsed.values.agent),
    workdir,
    timeoutMs: secondsOption("timeout", parsed.values.timeout, MAX_PROMPT_TIMEOUT_MS / 1000),
    requested: requestedOrUndefined(requestedSettingsOption(parsed.values)),
  };
  const which = runtime as Runtime;
  let verdict: HookVerdict;
  try {
    verdict = await decide(which, await ctx.readStdin(), ctx, flags);
  } catch (error) {
    // A hook that fails would let Codex run the call (and, with rules of its own, Claude Code): block it.
    verdict = {
      allow: false,
      reason: `Gatehouse failed to decide (${(error as Error).message}), so it blocks this call.`,
    };
  }
  return answer(ctx, which, verdict);
}

export const command: CommandSpec = {
  name: "hook",
  summary: "PreToolUse hook of Claude Code and Codex: every tool call goes through the gate",
  usage: USAGE,
  run,
  // An untrusted home is a deny in the runtime's own words, never an error exit (the agent would run the call).
  refuse(ctx, message, args) {
    const runtime: Runtime = args.includes("codex") ? "codex" : "claude";
    return answer(ctx, runtime, { allow: false, reason: `Gatehouse denies every command here: ${message}` });
  },
};
