// `gatehouse hook claude`: Claude Code's PreToolUse hook for the Bash tool (approval-protocol.md
// "Clients", agent-cli-notes.md "Hooks"). Asks the running Gatehouse through the approval socket and
// prints the hook output that allows or denies. With no Gatehouse running, askFallback decides here,
// from the same approvals file, and the reason says so. Fails closed: unreadable input is a deny.
import { z } from "zod";
import { requestOnce } from "../../approval-server/client.js";
import { MAX_PROMPT_TIMEOUT_MS } from "../../approval-server/protocol.js";
import { SettingsFileSchema } from "../../core/settings.js";
import { readJsonFile } from "../../core/store/index.js";
import { AuditLog } from "../../executor/audit-log.js";
import { decideCommand, isAllowed, type GateDecision } from "../../executor/gate.js";
import { approvalsStoreAt, nonEmptyOption, parseCommandArgs, readAllText } from "../args.js";
import { printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = "gatehouse hook claude [--agent ID]";
const DEFAULT_AGENT = "claude-code";

/** The fields of Claude Code's PreToolUse input this hook reads; the rest is ignored. */
export const ClaudePreToolUseSchema = z.looseObject({
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string().optional(),
  tool_name: z.string(),
  tool_input: z.looseObject({ command: z.string().optional() }).optional(),
});

export interface HookVerdict {
  allow: boolean;
  reason: string;
}

export function hookOutput(verdict: HookVerdict): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict.allow ? "allow" : "deny",
      permissionDecisionReason: verdict.reason,
    },
  });
}

function describe(decision: string, decidedBy: string, reason: string | undefined): HookVerdict {
  const allow = decision === "allow-once" || decision === "allow-always";
  const by =
    decidedBy === "user" ? "by you" : decidedBy === "fallback" ? "by askFallback" : `by ${decidedBy}`;
  const what = allow
    ? "Gatehouse allowed this command"
    : decision === "timeout"
      ? "Gatehouse got no approval in time"
      : decision === "cancelled"
        ? "Gatehouse withdrew this request"
        : "Gatehouse denied this command";
  return { allow, reason: `${what} (${by})${reason ? `: ${reason}` : ""}` };
}

async function agentIdFor(ctx: CliContext, flag: string | undefined): Promise<string> {
  if (flag !== undefined) return flag;
  const settings = await readJsonFile(ctx.paths.settings, SettingsFileSchema);
  if (settings.status === "ok" && settings.value.hook?.claudeAgentId)
    return settings.value.hook.claudeAgentId;
  return DEFAULT_AGENT;
}

/** No Gatehouse answers: the same gate decides here with nobody to ask (askFallback), and audits it. */
async function decideLocally(
  ctx: CliContext,
  request: { command: string; cwd: string; agentId: string; sessionKey: string },
  why: string,
): Promise<HookVerdict> {
  const approvals = approvalsStoreAt(ctx.paths);
  const decided: GateDecision = await decideCommand(
    {
      command: { command: request.command, shell: "posix" },
      agentId: request.agentId,
      sessionKey: request.sessionKey,
      source: "claude-hook",
      cwd: request.cwd,
    },
    {
      approvals,
      audit: new AuditLog({ path: ctx.paths.audit }),
      prompt: null,
      baseEnv: ctx.env,
      home: ctx.paths.home,
      now: Date.now,
      logger: ctx.logger.child("hook"),
    },
  );
  const settings = decided.explanation;
  const verdict = describe(decided.decision, decided.decidedBy, decided.reason);
  const allow = isAllowed(decided.decision);
  return {
    allow,
    reason: `Gatehouse is not running (${why}); askFallback=${settings.askFallback} applied here. ${verdict.reason}`,
  };
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommandArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { agent: { type: "string" } },
  });
  const [agentCli, ...rest] = parsed.positionals;
  if (agentCli !== "claude" || rest.length > 0) throw new UsageError('the only hook is "claude"');
  const agentFlag = nonEmptyOption("agent", parsed.values.agent);

  const text = await readAllText(ctx.stdin);
  let input: z.infer<typeof ClaudePreToolUseSchema>;
  try {
    input = ClaudePreToolUseSchema.parse(JSON.parse(text));
  } catch {
    printLine(
      ctx,
      hookOutput({
        allow: false,
        reason: "Gatehouse could not read the hook input from Claude Code, so it denies the command.",
      }),
    );
    return 0;
  }
  if (input.tool_name !== "Bash") return 0; // other tools are not this hook's business: allow silently
  const command = input.tool_input?.command;
  if (!command || command.trim() === "") {
    printLine(ctx, hookOutput({ allow: false, reason: "Gatehouse denies a Bash call without a command." }));
    return 0;
  }
  const taskId = ctx.env.GATEHOUSE_TASK_ID?.trim();
  const request = {
    command,
    cwd: input.cwd && input.cwd.startsWith("/") ? input.cwd : process.cwd(),
    agentId: await agentIdFor(ctx, agentFlag),
    sessionKey: taskId ? `task:${taskId}` : `claude:${input.session_id ?? "unknown"}`,
  };

  const result = await requestOnce(
    ctx.paths,
    "approval.request",
    {
      command,
      shell: "posix",
      cwd: request.cwd,
      agentId: request.agentId,
      sessionKey: request.sessionKey,
      source: "claude-hook",
    },
    { timeoutMs: MAX_PROMPT_TIMEOUT_MS + 10_000 },
  );
  let verdict: HookVerdict;
  if (result.status === "ok")
    verdict = describe(result.body.decision, result.body.decidedBy, result.body.reason);
  else if (result.status === "unavailable") verdict = await decideLocally(ctx, request, result.reason);
  else
    verdict = {
      allow: false,
      reason: `Gatehouse refused the request (${result.code}: ${result.message}), so the command is denied.`,
    };
  printLine(ctx, hookOutput(verdict));
  return 0;
}

export const command: CommandSpec = {
  name: "hook",
  summary: "Claude Code PreToolUse hook for the Bash tool",
  usage: USAGE,
  run,
  // An untrusted home is a deny, never an error exit (Claude Code would run the command).
  refuse(ctx, message) {
    printLine(ctx, hookOutput({ allow: false, reason: `Gatehouse denies every command here: ${message}` }));
    return 0;
  },
};
