// THE one path from a request to "ran" or "refused" (exec-policy.md "Deciding" and "Running",
// approval-protocol.md "Requests and replies"). Used by `gatehouse exec`, the approval socket
// (`approval.request`, `exec.run`) and the backend's `device:execute_command`: policy → prompt or
// askFallback → spawn → usage bookkeeping → events → audit log, with who decided.
import { randomBytes } from "node:crypto";
import type { ApprovalsState, ApprovalsStore } from "../core/approvals/index.js";
import type { Logger } from "../core/log.js";
import {
  explainCommand,
  fallbackDecision,
  type ExecutableResolver,
  type OwnFiles,
} from "../core/policy/index.js";
import { nextStep, outcomeKind } from "../core/policy/outcome-text.js";
import type {
  AllowlistEntry,
  Ask,
  CommandInput,
  DecidedBy,
  Explanation,
  Identity,
  PromptAnswer,
  PromptDecision,
  PromptFn,
  PromptRequest,
  Security,
} from "../core/policy/types.js";
import { cleanDenyReason } from "../shared/deny-reason.js";
import type { VerifiedTask } from "../shared/schemas/prompt.js";
import type { AuditLog, AuditRecord } from "./audit-log.js";
import { buildChildEnv, type ChildEnv, type InheritRules } from "./child-env.js";
import { displayCommand, quoteWord } from "./command-text.js";
import { loadInheritSettings, secretTest, type InheritSettings } from "./env-sources.js";
import { OutputTail, type OutputMode, type StreamName } from "./output-capture.js";
import { runProcess, type RunHooks, type RunResult, type RunSpec } from "./run-process.js";
import { findBash } from "./shells.js";
import type { EntryUse, UsageRecorder } from "./usage-recorder.js";

export const DEFAULT_PROMPT_TIMEOUT_MS = 120_000;
export const MAX_PROMPT_TIMEOUT_MS = 30 * 60_000;
/** `exec.finished` carries this much of the end of the output. */
export const FINISHED_OUTPUT_CHARS = 20_000;
/** A prompt function gets this long past `expiresAt` to answer `timeout` itself before the gate does. */
const PROMPT_SLACK_MS = 250;

export interface GateRequest {
  command: CommandInput;
  agentId: string;
  sessionKey: string;
  /** Who asked: `cli`, `socket`, `claude-hook`, `backend`, … */
  source: string;
  /** Free text shown in the prompt (e.g. the backend's command_key). */
  reason?: string;
  cwd: string;
  env?: Record<string, string>;
  /** A request can only tighten the configured settings. */
  requested?: { security?: Security; ask?: Ask };
  /** Default 120 s, at most 30 min. */
  promptTimeoutMs?: number;
  commandKey?: string;
  /** Withdraws a pending prompt (`cancelled`) and cancels a run (client gone, task cancelled). */
  signal?: AbortSignal;
  /** The running Gatehouse task the request provably comes from (its task key); absent = a claim. */
  verified?: VerifiedTask;
  /**
   * `unproven`: `agentId` is only what a socket client claimed (docs/decisions.md "Proven identity"): the
   * least-trusted agent decides (only `*` entries, so no agent's own uses are spent), *allow always*
   * saves for every agent, and the audit line says so. Absent: the agent's own rights (decided in
   * Gatehouse's own process, or `verified`).
   */
  identity?: Identity;
  /**
   * Executable lookups shared with requests that arrived together (approval socket: one per read);
   * every observation in it must postdate this request's arrival. Absent: a fresh one.
   */
  resolver?: ExecutableResolver;
}

export interface GateRunRequest extends GateRequest {
  /** Run timeout, default 60 s. */
  timeoutMs?: number;
  maxOutputBytes?: number;
  outputMode?: OutputMode;
  killGraceMs?: number;
  /**
   * One budget for the prompt and the run (device-protocol.md §6.5): the prompt times out at the
   * budget at the latest and the command runs with what remains; nothing remains → it does not run.
   */
  budgetMs?: number;
  /** Live output (e.g. the CLI printing it through); a returned promise pauses that stream (backpressure). */
  onOutput?: RunHooks["onOutput"];
}

/** The approvals store operations the gate needs. */
export type GateApprovals = Pick<ApprovalsStore, "load" | "consumeUses" | "recordUse" | "saveAllowAlways">;

export interface GateDeps {
  approvals: GateApprovals;
  audit: AuditLog;
  /** Null = nobody to ask: askFallback decides. */
  prompt: PromptFn | null;
  /** The runner's environment: commands inherit only what child-env.ts allows from it. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** `E/settings.json`: its `environment.inherit` names also reach commands (read per request). */
  settingsFile?: string;
  /**
   * Where a long-running service gets `environment.inherit` instead (a watched, cached reading of the
   * same file: no filesystem call per request). Default: read `settingsFile` each time.
   */
  inheritSettings?: () => Promise<InheritSettings>;
  /**
   * The bash shell strings run under (the policy is told the same): undefined = look in the fixed
   * locations (shells.ts), null = this machine has none.
   */
  bash?: string | null;
  /** Gatehouse's own folder: a command naming it needs a person (core/policy/own-files.ts). */
  ownFiles?: OwnFiles;
  home: string;
  now: () => number;
  logger: Logger;
  onEvent?: (event: ExecEvent) => void;
  recheckCwd?: RunSpec["recheckCwd"];
  platform?: NodeJS.Platform;
  /**
   * Receives work the result need not wait for (the run's audit line, lastUsed* notes of unlimited
   * entries), so a service can await it at shutdown. Without a sink the gate awaits it itself.
   * Such work never rejects (failures are logged).
   */
  background?: (work: Promise<void>) => void;
  /** One per approvals store in a long-running service: serialises and merges usage bookkeeping. */
  usage?: UsageRecorder;
}

export interface GateDecision {
  runId: string;
  decision: PromptDecision;
  decidedBy: DecidedBy;
  reason: string;
  /** A person's denial: what they told the agent (shared/deny-reason.ts), for its hook, the ack, the audit. */
  denyReason?: string;
  /** Entries written by *allow always*. */
  savedEntries?: AllowlistEntry[];
  explanation: Explanation;
  /** Notes for the requester, e.g. a PATH override that was ignored. */
  warnings: string[];
  /** For a refusal: the one command that would change it (core/policy/outcome-text.ts). */
  nextStep?: string;
}

export type GateRunResult = GateDecision & RunResult;

export type ExecEvent =
  | {
      type: "exec.started";
      runId: string;
      ts: number;
      agentId: string;
      sessionKey: string;
      source: string;
      command: string;
      cwd: string;
      decidedBy: DecidedBy;
    }
  | {
      type: "exec.finished";
      runId: string;
      ts: number;
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      cancelled: boolean;
      durationMs: number;
      truncated: boolean;
      stdoutTruncated: boolean;
      stderrTruncated: boolean;
      /** The last 20 000 characters of stdout and stderr, in arrival order. */
      output: string;
      /** Why it did not start, when it did not. */
      error?: string;
    }
  | {
      type: "exec.denied";
      runId: string;
      ts: number;
      agentId: string;
      sessionKey: string;
      source: string;
      command: string;
      decision: PromptDecision;
      decidedBy: DecidedBy;
      reason: string;
      /** The one command that would change it (core/policy/outcome-text.ts). */
      nextStep?: string;
    };

export function isAllowed(decision: PromptDecision): boolean {
  return decision === "allow-once" || decision === "allow-always";
}

/**
 * Random bytes for run ids, drawn 4 KiB at a time: one call into the CSPRNG per 512 ids instead of one
 * per decision (it showed in the server's profile). Only ever read forward, never reused.
 */
const runIdPool = { bytes: Buffer.alloc(0), offset: 0 };

export function newRunId(): string {
  if (runIdPool.offset + 8 > runIdPool.bytes.length) {
    runIdPool.bytes = randomBytes(4096);
    runIdPool.offset = 0;
  }
  const id = runIdPool.bytes.toString("hex", runIdPool.offset, runIdPool.offset + 8);
  runIdPool.offset += 8;
  return `run_${id}`;
}

function clampPromptTimeout(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return DEFAULT_PROMPT_TIMEOUT_MS;
  return Math.min(MAX_PROMPT_TIMEOUT_MS, Math.max(1, Math.floor(ms)));
}

function emit(deps: GateDeps, event: ExecEvent): void {
  if (!deps.onEvent) return;
  try {
    deps.onEvent(event);
  } catch (error) {
    deps.logger.warn("exec event listener failed", { type: event.type, error });
  }
}

async function writeAudit(deps: GateDeps, record: AuditRecord): Promise<void> {
  try {
    await deps.audit.appendBuilt(record); // built here, typed: no zod pass (audit-log.ts)
  } catch (error) {
    // The gate keeps working when the log cannot be written (disk full, a file in the way); say so loudly.
    deps.logger.error(`could not write the audit log ${deps.audit.path}`, { error, runId: record.runId });
  }
}

/** Asks `prompt`, turning an abort into `cancelled`, a missed deadline into `timeout`, a failure into null. */
async function askPerson(
  prompt: PromptFn,
  request: PromptRequest,
  deps: GateDeps,
  signal: AbortSignal | undefined,
): Promise<PromptAnswer | null> {
  const controller = new AbortController();
  let settle: (answer: PromptAnswer) => void = () => undefined;
  const forced = new Promise<PromptAnswer>((resolve) => (settle = resolve));
  const onAbort = () => {
    settle({ decision: "cancelled" });
    controller.abort();
  };
  const timer = setTimeout(
    () => {
      settle({ decision: "timeout" });
      controller.abort();
    },
    Math.max(0, request.expiresAt - deps.now()) + PROMPT_SLACK_MS,
  );
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([prompt(request, controller.signal), forced]);
  } catch (error) {
    deps.logger.warn("the approval prompt failed; askFallback decides", { error, runId: request.id });
    return null;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

type Verdict = Pick<GateDecision, "decision" | "decidedBy" | "reason" | "denyReason" | "savedEntries">;

/** askFallback's verdict: a timeout or nobody-to-ask is never reported as a user denial, nor as each other. */
function fallbackVerdict(explanation: Explanation, why: "timeout" | "no-approver", note?: string): Verdict {
  const { allowed, reason } = fallbackDecision(explanation, why);
  return {
    decision: allowed ? "allow-once" : why,
    decidedBy: "fallback",
    reason: note ? `${reason}; ${note}` : reason,
  };
}

/** exec-policy.md "Deciding": the policy's outcome, then a person, then askFallback. */
async function verdictFor(
  req: GateRequest,
  deps: GateDeps,
  explanation: Explanation,
  at: { runId: string; startedAt: number; promptBudgetMs: number | undefined },
): Promise<Verdict> {
  if (explanation.outcome === "run") {
    const firstRule = explanation.matchedEntryIds[0];
    const decidedBy: DecidedBy =
      explanation.security !== "full" && firstRule ? `rule:${firstRule}` : "policy";
    return { decision: "allow-once", decidedBy, reason: explanation.reason };
  }
  if (explanation.outcome === "deny")
    return { decision: "deny", decidedBy: "policy", reason: explanation.reason };
  if (!deps.prompt) return fallbackVerdict(explanation, "no-approver");

  const timeoutMs = Math.max(
    1,
    Math.min(clampPromptTimeout(req.promptTimeoutMs), at.promptBudgetMs ?? Infinity),
  );
  const reason = req.reason ?? req.commandKey;
  const answer = await askPerson(
    deps.prompt,
    {
      id: at.runId,
      sessionKey: req.sessionKey,
      agentId: req.agentId,
      source: req.source,
      ...(reason !== undefined ? { reason } : {}),
      cwd: req.cwd,
      command: req.command,
      explanation,
      createdAt: at.startedAt,
      expiresAt: at.startedAt + timeoutMs,
      ...(req.verified ? { verified: { ...req.verified } } : {}),
    },
    deps,
    req.signal,
  );
  if (answer === null) return fallbackVerdict(explanation, "no-approver", "the approval prompt failed");
  switch (answer.decision) {
    case "timeout":
      return fallbackVerdict(explanation, "timeout");
    case "no-approver":
      return fallbackVerdict(explanation, "no-approver");
    case "cancelled":
      return {
        decision: "cancelled",
        decidedBy: "fallback",
        reason: "cancelled: the request was withdrawn before anyone answered",
      };
    case "deny": {
      const denyReason = cleanDenyReason(answer.denyReason);
      return {
        decision: "deny",
        decidedBy: "user",
        reason: "denied by user",
        ...(denyReason !== null ? { denyReason } : {}),
      };
    }
    case "allow-always":
      if (explanation.ask === "always") {
        return {
          decision: "allow-once",
          decidedBy: "user",
          reason: "allowed once by user (allow always is not offered under ask=always)",
        };
      }
      // Not offered for this command, whatever a presenter answers: nothing is saved.
      if (explanation.allowAlwaysWithheld !== undefined) {
        return {
          decision: "allow-once",
          decidedBy: "user",
          reason: `allowed once by user (allow always is not offered: it ${explanation.allowAlwaysWithheld})`,
        };
      }
      return saveAllowAlways(req, deps, answer, explanation, at.runId);
    default:
      return { decision: "allow-once", decidedBy: "user", reason: "allowed once by user" };
  }
}

async function saveAllowAlways(
  req: GateRequest,
  deps: GateDeps,
  answer: PromptAnswer,
  explanation: Explanation,
  runId: string,
): Promise<Verdict> {
  try {
    // an unproven request is decided by the every-agent list: that is where its grant can take effect
    const savedEntries = await deps.approvals.saveAllowAlways(
      req.identity === "unproven" ? "*" : req.agentId,
      answer.entries ?? explanation.proposedEntries,
    );
    return { decision: "allow-always", decidedBy: "user", reason: "allowed always by user", savedEntries };
  } catch (error) {
    // The person said yes: run it once, and say why nothing was saved.
    deps.logger.warn("allow always: entries not saved", { error, runId });
    return {
      decision: "allow-once",
      decidedBy: "user",
      reason: `allowed by user; the allowlist was not changed: ${(error as Error).message}`,
    };
  }
}

interface Decided {
  result: GateDecision;
  childEnv: Record<string, string>;
  /** The bash the policy was told about (gateAndRun runs the string under it). */
  bash: string | null | undefined;
  /** The decision's audit line, still being written (gateAndRun spawns meanwhile). */
  audited: Promise<void>;
}

interface PolicyEnvMemo {
  key: string;
  built: ChildEnv;
}
const policyEnvMemos = new WeakMap<object, PolicyEnvMemo>();

/**
 * A decision that runs nothing and sets no variables (approval.request, the hook) needs the child
 * environment only for what the policy reads from it: PATH to resolve programs, and any variable a
 * command's file names use (the read rule). A long-running service builds it once per inherit list and
 * socket token and reuses it while none of its values holds a secret it has learnt since; what it
 * returns is exactly what buildChildEnv would (no warnings, no request variables).
 */
function policyEnvFor(
  baseEnv: GateDeps["baseEnv"],
  rules: InheritRules & { holdsSecret: (value: string) => boolean },
  socketToken: string | null,
): ChildEnv {
  const key = `${rules.platform ?? ""}\0${socketToken ?? ""}\0${(rules.inherit ?? []).join("\0")}`;
  const memo = policyEnvMemos.get(baseEnv);
  if (
    memo?.key === key &&
    Object.values(memo.built.env).every((value) => value === undefined || !rules.holdsSecret(value))
  ) {
    return memo.built;
  }
  const built = buildChildEnv(baseEnv, undefined, rules);
  policyEnvMemos.set(baseEnv, { key, built });
  return built;
}

/**
 * The environment of a child Gatehouse starts itself once the gate allowed it (a git clone, a terminal):
 * the user's inherit list applied, secrets (the socket token included) kept out.
 */
export async function gatedChildEnv(gate: GateDeps): Promise<Record<string, string>> {
  const settings = gate.inheritSettings
    ? await gate.inheritSettings()
    : await loadInheritSettings(gate.settingsFile);
  const approvals = await gate.approvals.load();
  const socketToken = approvals.status === "ok" ? approvals.file.socket.token : null;
  const { env } = buildChildEnv(gate.baseEnv, undefined, {
    inherit: settings.inherit,
    holdsSecret: secretTest(gate.logger, [socketToken]),
    ...(gate.platform ? { platform: gate.platform } : {}),
  });
  return env;
}

/** How the command would run: with `runs`, under the bash the policy is told about; else by the requester itself. */
interface DecideMode {
  runs: boolean;
  promptBudgetMs?: number;
}

async function bashToRunUnder(deps: GateDeps): Promise<string | null> {
  return deps.bash !== undefined ? deps.bash : findBash(undefined, deps.platform);
}

/**
 * How many times a request is decided when, each time, another decision took the last use of a limited
 * entry it matched in between (the last time it is denied instead of decided again).
 */
const USE_RACE_ATTEMPTS = 3;

async function decide(req: GateRequest, deps: GateDeps, mode: DecideMode): Promise<Decided> {
  for (let attempt = 1; ; attempt++) {
    const decided = await decideOnce(req, deps, mode, attempt >= USE_RACE_ATTEMPTS);
    if (decided) return decided;
  }
}

/** One decision; null when a limited entry it matched had no use left once it was allowed (decide again). */
async function decideOnce(
  req: GateRequest,
  deps: GateDeps,
  mode: DecideMode,
  lastAttempt: boolean,
): Promise<Decided | null> {
  const runId = newRunId();
  const startedAt = deps.now();
  const approvals = await deps.approvals.load(); // per request: edits from the UI/CLI apply at once
  const settings = deps.inheritSettings
    ? await deps.inheritSettings()
    : await loadInheritSettings(deps.settingsFile);
  const socketToken = approvals.status === "ok" ? approvals.file.socket.token : null;
  const rules = {
    inherit: settings.inherit,
    holdsSecret: secretTest(deps.logger, [socketToken]),
    ...(deps.platform ? { platform: deps.platform } : {}),
  };
  const {
    env: childEnv,
    requestEnv,
    warnings: envWarnings,
  } = !mode.runs && req.env === undefined
    ? policyEnvFor(deps.baseEnv, rules, socketToken)
    : buildChildEnv(deps.baseEnv, req.env, rules);
  const warnings = [...envWarnings];
  if (settings.warning) warnings.unshift(settings.warning);
  // A string the requester runs itself (approval.request, the hook) is analysed as bash; one run here
  // runs under exactly the bash the policy is told about, or is never covered when there is none.
  const bash = mode.runs ? await bashToRunUnder(deps) : undefined;
  const explanation = await explainCommand(req.command, {
    agentId: req.agentId,
    cwd: req.cwd,
    // the environment the command will really run with: executables are resolved and `$NAME`/`~` in the
    // files it opens are worked out (the read rule) against it; for a command the agent's own shell runs
    // (approval.request, the hook) it is what Gatehouse would give it, and a variable it lacks is unknown
    env: childEnv,
    home: deps.home,
    ...(deps.platform ? { platform: deps.platform } : {}),
    approvals,
    ...(req.requested ? { requested: req.requested } : {}),
    now: startedAt,
    requestEnv,
    // what runs here runs under bash, whichever shell the request names
    ...(bash !== undefined ? { bash, dialect: "bash" as const } : {}),
    ...(deps.ownFiles ? { ownFiles: deps.ownFiles } : {}),
    ...(req.resolver ? { resolver: req.resolver } : {}),
    ...(req.identity ? { identity: req.identity } : {}),
  });

  const settled = await settle(req, deps, explanation, warnings, {
    runId,
    startedAt,
    promptBudgetMs: mode.promptBudgetMs,
    limited: limitedMatches(approvals, explanation),
    lastAttempt,
  });
  if (!settled) return null;
  return { result: settled.result, childEnv, bash, audited: settled.audited };
}

/**
 * The explained request's verdict (a person or askFallback when it prompts), its audit line and event.
 * An allowed request takes one use of each limited entry it matched (`at.limited`) before anything is
 * written or answered; null when one had no use left by then (another decision took it: decide again),
 * or on the last attempt a denial.
 */
async function settle(
  req: GateRequest,
  deps: GateDeps,
  explanation: Explanation,
  warnings: string[],
  at: {
    runId: string;
    startedAt: number;
    promptBudgetMs: number | undefined;
    limited: string[];
    lastAttempt: boolean;
  },
): Promise<{ result: GateDecision; audited: Promise<void> } | null> {
  const { runId, startedAt } = at;
  let verdict = await verdictFor(req, deps, explanation, at);
  if (at.limited.length > 0 && isAllowed(verdict.decision)) {
    const refusal = await takeUses(req, deps, at.limited);
    if (refusal !== null) {
      if (!at.lastAttempt) return null;
      verdict = { decision: "deny", decidedBy: "policy", reason: refusal };
    }
  }
  const step = nextStep(outcomeKind(verdict.decision, verdict.decidedBy), verdict.reason, explanation);
  // Built field by field, not by spreads: this runs for every decided request (issue 12).
  const result: GateDecision = {
    runId,
    decision: verdict.decision,
    decidedBy: verdict.decidedBy,
    reason: verdict.reason,
    explanation,
    warnings,
  };
  if (verdict.savedEntries !== undefined) result.savedEntries = verdict.savedEntries;
  if (verdict.denyReason !== undefined) result.denyReason = verdict.denyReason;
  if (step !== null) result.nextStep = step;
  const command = displayCommand(req.command);
  const record = auditBase(req, runId, command, deps.now(), explanation);
  record.event = "decision";
  record.decision = result.decision;
  record.decidedBy = result.decidedBy;
  record.reason = result.reason;
  if (result.denyReason !== undefined) record.denyReason = result.denyReason;
  record.exitCode = null;
  record.timedOut = false;
  record.durationMs = Math.max(0, deps.now() - startedAt);
  const audited = writeAudit(deps, record);
  if (!isAllowed(result.decision)) {
    emit(deps, {
      type: "exec.denied",
      runId,
      ts: deps.now(),
      agentId: req.agentId,
      sessionKey: req.sessionKey,
      source: req.source,
      command,
      decision: result.decision,
      decidedBy: result.decidedBy,
      reason: result.reason,
      ...(result.nextStep !== undefined ? { nextStep: result.nextStep } : {}),
    });
  }
  return { result, audited };
}

/**
 * Decides a request the caller has already explained (a file access, core/policy/file-edit.ts; a tool
 * call, tool-call-explain.ts): the same prompt, askFallback, event and audit path as a command.
 * `req.command` is what the log shows. `limited`: the matched entries with a use limit (an MCP entry
 * with `usesLeft`); an allowed request takes one use of each, or is denied when one has none left.
 */
export async function decideExplained(
  req: GateRequest,
  explanation: Explanation,
  deps: GateDeps,
  limited: string[] = [],
): Promise<GateDecision> {
  const settled = await settle(req, deps, explanation, [], {
    runId: newRunId(),
    startedAt: deps.now(),
    promptBudgetMs: undefined,
    limited,
    lastAttempt: true,
  });
  if (!settled) throw new Error("the last attempt is never decided again"); // settle returns null only before it
  await settled.audited;
  return settled.result;
}

/** Ids of the entries with a use limit, per approvals file object (a new object on every change). */
const limitedEntries = new WeakMap<object, ReadonlySet<string>>();

/** The entries with a use limit that the explanation matched (an allowed run takes one use of each). */
function limitedMatches(approvals: ApprovalsState, explanation: Explanation): string[] {
  if (approvals.status !== "ok" || !explanation.allowlistSatisfied) return [];
  let limited = limitedEntries.get(approvals.file);
  if (!limited) {
    const ids = new Set<string>();
    for (const agent of Object.values(approvals.file.agents))
      for (const entry of agent.allowlist ?? []) if (typeof entry.usesLeft === "number") ids.add(entry.id);
    limited = ids;
    limitedEntries.set(approvals.file, limited);
  }
  return limited.size > 0 ? explanation.matchedEntryIds.filter((id) => limited.has(id)) : [];
}

/**
 * Takes one use of each limited entry, atomically across every decider (ApprovalsStore.consumeUses);
 * null when taken, else why the request may not run on them. A failure to count denies: a grant limited
 * to N runs must never run an N+1st time because the file could not be written.
 */
async function takeUses(req: GateRequest, deps: GateDeps, entryIds: string[]): Promise<string | null> {
  try {
    const usedUp = await deps.approvals.consumeUses(req.agentId, entryIds);
    if (usedUp.length === 0) return null;
    const names = usedUp.join(", ");
    return `allowlist entr${usedUp.length === 1 ? "y" : "ies"} ${names} had no use left`;
  } catch (error) {
    return `could not count a use of allowlist entry ${entryIds.join(", ")}: ${(error as Error).message.replace(/\.$/, "")}`;
  }
}

/**
 * The fields every line of a request shares, in their order on the line; the caller sets the rest
 * (event, decision, decidedBy, reason, exitCode, timedOut, durationMs) before it is written.
 */
function auditBase(
  req: GateRequest,
  runId: string,
  command: string,
  ts: number,
  explanation: Pick<Explanation, "elevatedUntil">,
): AuditRecord {
  const record = {
    ts,
    runId,
    agentId: req.agentId,
    sessionKey: req.sessionKey,
    source: req.source,
    command,
    cwd: req.cwd,
  } as AuditRecord;
  if (req.commandKey !== undefined) record.commandKey = req.commandKey;
  if (explanation.elevatedUntil !== undefined) record.elevatedUntil = explanation.elevatedUntil;
  if (req.requested) record.requested = { ...req.requested };
  if (req.verified) record.verified = { ...req.verified };
  if (req.identity) record.identity = req.identity;
  return record;
}

/**
 * Decides without running (`approval.request`): policy, then a person or askFallback. Audited: with a
 * background sink (a service) the answer goes out while the line is written, else after it.
 */
export async function decideCommand(req: GateRequest, deps: GateDeps): Promise<GateDecision> {
  const { result, audited } = await decide(req, deps, { runs: false });
  if (deps.background) {
    deps.background(audited);
    // The requester runs it: a covered run all the same (exec-policy.md "Deciding", last paragraph). A
    // one-shot decider (the hook deciding alone) leaves the notes out: a locked, fsynced rewrite of the
    // approvals file on every tool call; the use itself was counted when it was decided.
    if (isAllowed(result.decision)) deps.background(recordUse(req, result.explanation, deps));
  } else await audited;
  return result;
}

function describeRun(run: RunResult, timeoutMs: number | undefined, signal?: AbortSignal): string {
  if (run.spawnError) return run.spawnError;
  if (run.timedOut) return `timed out after ${Math.round((timeoutMs ?? 60_000) / 100) / 10} s`;
  // A reason given as text says who stopped it (the approval server: the caller went away).
  if (run.cancelled)
    return typeof signal?.reason === "string"
      ? `cancelled while running: ${signal.reason}`
      : "cancelled while running";
  if (run.signal) return `killed by ${run.signal}`;
  return `exited with ${run.exitCode}`;
}

/** Decides and, when allowed, runs (`gatehouse exec`, `exec.run`, `device:execute_command`). */
export async function gateAndRun(req: GateRunRequest, deps: GateDeps): Promise<GateRunResult> {
  const startedAt = deps.now();
  const {
    result: decision,
    childEnv,
    bash,
    audited,
  } = await decide(req, deps, {
    runs: true,
    ...(req.budgetMs !== undefined ? { promptBudgetMs: req.budgetMs } : {}),
  });
  const notRun = (extra: Partial<RunResult> = {}): RunResult => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: decision.decision === "cancelled",
    durationMs: 0,
    cwd: req.cwd,
    stdout: "",
    stderr: "",
    truncated: false,
    stdoutTruncated: false,
    stderrTruncated: false,
    stdoutBytes: 0,
    stderrBytes: 0,
    ...extra,
  });
  if (!isAllowed(decision.decision)) {
    await audited;
    return { ...decision, ...notRun() };
  }

  let timeoutMs = req.timeoutMs;
  const command = displayCommand(req.command);
  let run: RunResult;
  const tail = deps.onEvent ? new OutputTail(FINISHED_OUTPUT_CHARS) : null;
  let bookkeeping: Promise<void> = Promise.resolve();
  const remaining = req.budgetMs === undefined ? undefined : req.budgetMs - (deps.now() - startedAt);
  emit(deps, {
    type: "exec.started",
    runId: decision.runId,
    ts: deps.now(),
    agentId: req.agentId,
    sessionKey: req.sessionKey,
    source: req.source,
    command,
    cwd: req.cwd,
    decidedBy: decision.decidedBy,
  });
  if (remaining !== undefined && remaining <= 0) {
    run = notRun({ spawnError: "Command approval timed out" });
  } else {
    if (remaining !== undefined) timeoutMs = Math.min(timeoutMs ?? remaining, remaining);
    run = await runProcess(
      {
        command: req.command,
        cwd: req.cwd,
        env: childEnv,
        shells: { bash, baseEnv: deps.baseEnv },
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(req.killGraceMs !== undefined ? { killGraceMs: req.killGraceMs } : {}),
        ...(req.maxOutputBytes !== undefined ? { maxOutputBytes: req.maxOutputBytes } : {}),
        outputMode: req.outputMode ?? "combined",
        ...(req.signal ? { signal: req.signal } : {}),
        ...(deps.recheckCwd ? { recheckCwd: deps.recheckCwd } : {}),
        ...(deps.platform ? { platform: deps.platform } : {}),
      },
      {
        onSpawn: () => {
          // Uses were counted when the run was decided; lastUsed* is a note for the editor, written
          // in the background (it costs a locked, fsynced rewrite of the file).
          const pending = recordUse(req, decision.explanation, deps);
          if (!deps.background) bookkeeping = pending;
          else deps.background(pending);
        },
        // The tail copies what it keeps; only a caller's own hook gets chunks it may keep (copies).
        ...(tail ? { onOutputView: (_stream: StreamName, bytes: Buffer) => tail.push(bytes) } : {}),
        ...(req.onOutput ? { onOutput: req.onOutput } : {}),
      },
    );
  }
  emit(deps, {
    type: "exec.finished",
    runId: decision.runId,
    ts: deps.now(),
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    cancelled: run.cancelled,
    durationMs: run.durationMs,
    truncated: run.truncated,
    stdoutTruncated: run.stdoutTruncated,
    stderrTruncated: run.stderrTruncated,
    output: tail?.text() ?? "",
    ...(run.spawnError ? { error: run.spawnError } : {}),
  });
  const runLine = audited.then(() =>
    // after the decision line, which was being written while the command ran
    writeAudit(deps, {
      ...auditBase(req, decision.runId, command, deps.now(), decision.explanation),
      cwd: run.cwd,
      event: "run",
      decision: decision.decision,
      decidedBy: decision.decidedBy,
      reason: describeRun(run, timeoutMs, req.signal),
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      signal: run.signal,
      truncated: run.truncated,
    }),
  );
  // The run line waits for nobody: with a background sink the result goes out while it is written.
  if (deps.background) deps.background(runLine);
  else await runLine;
  await bookkeeping;
  const warnings = run.note ? [...decision.warnings, run.note] : decision.warnings;
  return { ...decision, ...run, warnings };
}

/** After a covered run: lastUsedAt/lastUsedCommand/lastResolvedPath (never fails the run). */
async function recordUse(req: GateRequest, explanation: Explanation, deps: GateDeps): Promise<void> {
  if (!explanation.allowlistSatisfied) return;
  const uses: EntryUse[] = explanation.segments.flatMap((segment) =>
    segment.matchedEntryId
      ? [
          {
            entryId: segment.matchedEntryId,
            command: segment.argv.map(quoteWord).join(" "),
            resolvedPath: segment.resolvedPath,
          },
        ]
      : [],
  );
  if (deps.usage) return deps.usage.record(req.agentId, uses);
  if (uses.length === 0) return;
  try {
    await deps.approvals.recordUse(req.agentId, uses);
  } catch (error) {
    deps.logger.warn("could not record allowlist usage", { error, agentId: req.agentId });
  }
}
