// The Claude Code hook decided inside the runner (issue 29): the HTTP hook's body goes down exactly the
// path of `gatehouse hook claude` — the Claude tool table (claude.ts), then decide.ts — but the
// `approval.request` of a gated call goes straight to the approval server's handler, in-process, as the
// task the HTTP hook's token proves (no socket, no process per call). An `ask` waits for the person
// there, as it does for the command hook, within the prompt's timeout.
import { randomUUID } from "node:crypto";
import type { Logger } from "../../core/log.js";
import type { AppPaths } from "../../core/paths.js";
import type { DecisionBody } from "../../approval-server/protocol.js";
import { ApprovalRequestBodySchema } from "../../approval-server/request-bodies.js";
import type { HandlerReply, RequestContext } from "../../approval-server/server.js";
import type { ClientResult } from "../../approval-server/client.js";
import type { RunnerHookTask } from "../../executor/tasks/deps.js";
import { agentShellReading, type AgentShellReading } from "./agent-shell.js";
import { readClaudeToolCall } from "./claude.js";
import { decideToolCall, type HookSession } from "./decide.js";
import type { HookVerdict } from "./tool-call.js";

/** The approval server's `approval.request` handler (handlers.ts). */
export type ApprovalRequestHandler = (
  body: ReturnType<typeof ApprovalRequestBodySchema.parse>,
  ctx: RequestContext,
) => HandlerReply | Promise<HandlerReply>;

export interface RunnerHookDeps {
  paths: AppPaths;
  logger: Logger;
  approvalRequest: ApprovalRequestHandler;
}

/** A handler's reply as the hook's decision path reads a socket reply. */
function asClientResult(reply: HandlerReply): ClientResult<DecisionBody> {
  if ("error" in reply) return { status: "error", code: reply.error, message: reply.message, signed: true };
  return { status: "ok", type: reply.type, body: reply.body as DecisionBody };
}

/**
 * The shells of a turn, read once per turn (a grant's task): what they depend on — the turn's environment
 * and which shell files exist in folders only root can change — is fixed for the turn's life, and reading
 * it walks PATH with a dozen metadata calls (60 % of a decision's time before this cache).
 */
const shellsOfTurn = new WeakMap<RunnerHookTask, AgentShellReading>();

function shellReadingOf(task: RunnerHookTask): AgentShellReading {
  let reading = shellsOfTurn.get(task);
  if (reading === undefined) {
    reading = agentShellReading("claude", task.env);
    shellsOfTurn.set(task, reading);
  }
  return reading;
}

/** Decides one PreToolUse input of `task` (the HTTP hook server's `decide`). */
export async function decideRunnerHook(
  deps: RunnerHookDeps,
  task: RunnerHookTask,
  input: string,
  signal: AbortSignal,
): Promise<HookVerdict> {
  const read = await readClaudeToolCall(input, task.workdir, task.workdir);
  if (!read)
    return {
      allow: false,
      reason: "Gatehouse could not read the hook input from Claude Code, so it denies the call.",
    };
  const session: HookSession = {
    ctx: { env: task.env, paths: deps.paths, logger: deps.logger },
    runtime: "claude",
    agentId: task.verified.agent,
    sessionKey: `task:${task.verified.taskId}`,
    source: "claude-hook",
    workdir: task.workdir,
    promptTimeoutMs: task.promptTimeoutMs,
    shell: shellReadingOf(task),
    ...(task.requested ? { requested: task.requested } : {}),
    ask: async (body) => {
      // The same schema the socket parses with: the handler gets nothing it would not get from a client.
      const parsed = ApprovalRequestBodySchema.safeParse(body);
      if (!parsed.success)
        return { status: "error", code: "bad_request", message: parsed.error.message, signed: true };
      const reply = await deps.approvalRequest(parsed.data, {
        signal,
        id: `http-hook-${randomUUID()}`,
        verified: task.verified,
        arrival: {},
      });
      return asClientResult(reply);
    },
  };
  return decideToolCall(read.call, session);
}
