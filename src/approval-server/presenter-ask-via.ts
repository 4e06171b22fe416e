// The ask-via presenter (`gatehouse serve --ask-via HOME`): forwards each prompt as an
// `approval.request` to the Gatehouse serving another home (its socket and token) and maps the
// answer back. Withdrawing a prompt here closes the forwarded request, which withdraws it there.
import { existsSync } from "node:fs";
import path from "node:path";
import type { Logger } from "../core/log.js";
import { resolvePaths, type AppPaths, type Env } from "../core/paths.js";
import type { PromptAnswer, PromptRequest } from "../core/policy/types.js";
import { cleanDenyReason } from "../shared/deny-reason.js";
import type { Presenter } from "./broker.js";
import { connectToHome, type ClientResult } from "./client.js";
import type { DecisionBody } from "./protocol.js";

/**
 * The paths of the home to ask: `dir` itself when it holds an approvals file (an executor home E),
 * else `dir` taken as a user's home folder (its E is `dir/.wegent-executor`).
 */
export function askViaPaths(dir: string, env: Env): AppPaths {
  const absolute = path.resolve(dir);
  if (existsSync(path.join(absolute, "exec-approvals.json"))) {
    return resolvePaths({ ...env, WEGENT_EXECUTOR_HOME: absolute });
  }
  return resolvePaths({ ...env, HOME: absolute, WEGENT_EXECUTOR_HOME: undefined });
}

/**
 * Maps the other Gatehouse's decision. Only a person there, or that home's standing rules, can
 * allow here; its askFallback cannot (that becomes `timeout`, or `no-approver` when nobody could be asked
 * there or it is unreachable, so this home's askFallback decides). A refusal by that home's policy asked
 * nobody either (the forwarded request is unproven there, so the least-trusted agent's settings decided
 * it, docs/decisions.md "Proven identity"): `no-approver`, never a person's denial.
 */
export function mapForwardedDecision(
  result: ClientResult<DecisionBody>,
  prompt: PromptRequest,
): PromptAnswer {
  if (result.status === "unavailable") return { decision: "no-approver" };
  if (result.status !== "ok")
    return { decision: result.status === "error" && result.code === "cancelled" ? "cancelled" : "timeout" };
  const { decision, decidedBy } = result.body;
  if (decidedBy === "fallback") return { decision: decision === "no-approver" ? "no-approver" : "timeout" };
  if (decidedBy === "policy" && decision === "deny") return { decision: "no-approver" };
  if (decision === "allow-always")
    return { decision: "allow-always", entries: prompt.explanation.proposedEntries };
  const denyReason = decision === "deny" ? cleanDenyReason(result.body.denyReason) : null;
  return denyReason !== null ? { decision, denyReason } : { decision };
}

export function createAskViaPresenter(options: {
  target: AppPaths;
  logger: Logger;
  now?: () => number;
}): Presenter {
  const now = options.now ?? Date.now;
  const inFlight = new Map<string, AbortController>();
  const logger = options.logger;
  return {
    kind: "ask-via",
    show(prompt, decide) {
      const abort = new AbortController();
      inFlight.set(prompt.id, abort);
      void (async () => {
        const timeoutMs = Math.max(1, prompt.expiresAt - now());
        const connected = await connectToHome(options.target, { timeoutMs: timeoutMs + 5_000 });
        if (connected.status !== "connected") {
          logger.warn("cannot forward the prompt; askFallback decides", {
            to: options.target.executorHome,
            reason: connected.reason,
          });
          inFlight.delete(prompt.id);
          decide({ decision: "no-approver" });
          return;
        }
        const client = connected.client;
        const result = await client.request(
          "approval.request",
          {
            ...(prompt.command.argv
              ? { argv: prompt.command.argv }
              : { command: prompt.command.command ?? "" }),
            ...(prompt.command.shell ? { shell: prompt.command.shell } : {}),
            cwd: prompt.cwd,
            agentId: prompt.agentId,
            sessionKey: prompt.sessionKey,
            source: `ask-via:${prompt.source}`.slice(0, 100),
            ...(prompt.reason ? { reason: prompt.reason } : {}),
            // what the request tightened here is tightened there too (its rules must not allow more)
            ...(prompt.explanation.requested ?? {}),
            timeoutMs: Math.min(timeoutMs, 30 * 60_000),
          },
          { signal: abort.signal, timeoutMs: timeoutMs + 5_000 },
        );
        client.close();
        inFlight.delete(prompt.id);
        if (result.status !== "ok") {
          logger.warn("the forwarded prompt got no decision", {
            to: options.target.executorHome,
            result: result.status === "error" ? result.code : result.reason,
          });
        }
        decide(mapForwardedDecision(result, prompt));
      })();
    },
    withdraw(id) {
      inFlight.get(id)?.abort();
      inFlight.delete(id);
    },
  };
}
