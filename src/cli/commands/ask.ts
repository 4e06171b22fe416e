// `gatehouse ask`: asks the running Gatehouse (over the approval socket) whether a command may run.
// Exit 0 allowed, 1 denied or timed out, 2 when no Gatehouse answers (the caller applies its own
// fallback) or the request was refused.
import path from "node:path";
import { requestOnce } from "../../approval-server/client.js";
import { MAX_PROMPT_TIMEOUT_MS } from "../../approval-server/protocol.js";
import { expandHome } from "../../core/paths.js";
import { nonEmptyOption, parseCommandLine, requestedSettingsOption, secondsOption } from "../args.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE =
  "gatehouse ask [--agent ID] [--cwd DIR] [--timeout S] [--security S] [--ask A] [--shell] [--json] -- COMMAND…";
/** The server answers by the prompt's deadline; the client waits a little longer. */
const DEFAULT_PROMPT_TIMEOUT_MS = 120_000;
const REPLY_SLACK_MS = 10_000;

export const EXIT_ALLOWED = 0;
export const EXIT_REFUSED = 1;
export const EXIT_UNAVAILABLE = 2;

async function run(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandLine(args, [
    "agent",
    "cwd",
    "timeout",
    "shell",
    "json",
    "security",
    "ask",
  ]);
  if (positionals.length === 0) throw new UsageError("give the command to ask about after --");
  const agentId = nonEmptyOption("agent", values.agent, "local");
  const timeoutMs = secondsOption("timeout", values.timeout, MAX_PROMPT_TIMEOUT_MS / 1000);
  const cwd = path.resolve(expandHome(values.cwd ?? process.cwd(), ctx.paths.home));
  const body = {
    ...(values.shell ? { command: positionals.join(" ") } : { argv: positionals }),
    cwd,
    agentId,
    sessionKey: "local",
    source: "cli",
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...requestedSettingsOption(values),
  };

  const result = await requestOnce(ctx.paths, "approval.request", body, {
    timeoutMs: (timeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS) + REPLY_SLACK_MS,
  });
  if (result.status !== "ok") {
    const reason = result.status === "unavailable" ? result.reason : `${result.code}: ${result.message}`;
    if (values.json)
      printJson(
        ctx,
        result.status === "unavailable"
          ? result
          : { status: "error", code: result.code, message: result.message },
      );
    ctx.stderr.write(`gatehouse ask: no decision (${reason})\n`);
    return EXIT_UNAVAILABLE;
  }
  const { re: _re, ...decision } = result.body as typeof result.body & { re?: string };
  const allowed = decision.decision === "allow-once" || decision.decision === "allow-always";
  if (values.json) printJson(ctx, decision);
  else {
    const verdict = allowed ? "allowed" : decision.decision === "deny" ? "denied" : decision.decision;
    printLine(ctx, `${verdict} (${decision.decidedBy})${decision.reason ? `: ${decision.reason}` : ""}`);
    const step = (decision as { nextStep?: unknown }).nextStep;
    if (!allowed && typeof step === "string") printLine(ctx, `Next: ${step}`);
  }
  return allowed ? EXIT_ALLOWED : EXIT_REFUSED;
}

export const command: CommandSpec = {
  name: "ask",
  summary: "Ask the running Gatehouse to approve a command",
  usage: USAGE,
  run,
};
