// What each request type does (approval-protocol.md "Requests and replies"). The policy and the
// spawning stay in the gate (executor/gate.ts) and the policy engine: services.ts passes them in as
// `ApprovalGate`, so this folder never decides or spawns anything itself.
import fs from "node:fs/promises";
import path from "node:path";
import { expandHome } from "../core/paths.js";
import { ExecutableResolver } from "../core/policy/io/resolve-executable.js";
import type {
  CommandInput,
  Explanation,
  Identity,
  PromptFn,
  RequestedSettings,
} from "../core/policy/types.js";
import type { FileGateRequest } from "../executor/file-access.js";
import type { GateDecision, GateRequest, GateRunRequest, GateRunResult } from "../executor/gate.js";
import type { ToolGateRequest } from "../executor/tool-gate.js";
import type { VerifiedTask } from "../shared/schemas/prompt.js";
import { APP_VERSION } from "../version.js";
import type { PromptBroker } from "./broker.js";
import { runReport } from "./exec-result.js";
import type { ApprovalRequestBody, ExecRunBody, ExplainBody, SkillCallBody } from "./protocol.js";
import type { HandlerReply, RequestContext, RequestHandlers } from "./server.js";

/** The gate as the socket uses it: `prompt` is the broker's, bound to the requesting connection. */
export interface ApprovalGate {
  explain(
    command: CommandInput,
    context: { agentId: string; cwd: string; requested?: RequestedSettings; identity?: Identity },
  ): Promise<Explanation>;
  decide(request: GateRequest, prompt: PromptFn): Promise<GateDecision>;
  /** A file an agent's own tool reads or writes (executor/file-access.ts). */
  decideFile(request: FileGateRequest, prompt: PromptFn): Promise<GateDecision>;
  /** Another tool call of an agent: an MCP tool, or one a person decides (executor/tool-gate.ts). */
  decideTool(request: ToolGateRequest, prompt: PromptFn): Promise<GateDecision>;
  run(request: GateRunRequest, prompt: PromptFn, recheckCwd?: RecheckCwd): Promise<GateRunResult>;
}

/** workdir.md §8, just before the spawn: the folder to spawn in (with a fallback notice), or why nothing may run. */
export type RecheckCwd = (
  cwd: string,
) => Promise<{ ok: true; cwd: string; notice?: string | null } | { ok: false; message: string }>;

export type CwdResolution =
  | {
      ok: true;
      cwd: string;
      /** The workdir fallback (workdir.md §7), delivered to the client in `exec.result`. */
      fallback?: { code: string; message: string } | null;
      recheck?: RecheckCwd;
    }
  | { ok: false; message: string };

/**
 * Where an `exec.run` runs. The workdir resolver (workdir.md) plugs in here; until then the default
 * takes the requested folder, else the managed workspace root.
 */
export type CwdResolver = (sessionKey: string, requestedCwd: string | undefined) => Promise<CwdResolution>;

export interface HandlerDeps {
  gate: ApprovalGate;
  broker: PromptBroker;
  home: string;
  /** The folder `approval.request` and `policy.explain` assume when the request names none. */
  defaultCwd: string;
  cwdResolver: CwdResolver;
  /** The skill engine's Skill tool (skills.md §9); absent when the app runs without a device side. */
  skills?: SkillToolPort | null;
}

/** The Gatehouse Skill tool: reads skill files of the session's snapshot, never runs anything. */
export interface SkillToolPort {
  handleToolCall(sessionKey: string, args: unknown): Promise<{ text: string; isError: boolean }>;
}

/**
 * One executable resolver per socket read: the requests that arrived together share what it observes
 * (each observation is made after they all arrived), and a request read later starts afresh.
 */
const resolvers = new WeakMap<object, ExecutableResolver>();

function resolverFor(arrival: object): ExecutableResolver {
  let resolver = resolvers.get(arrival);
  if (!resolver) {
    resolver = new ExecutableResolver();
    resolvers.set(arrival, resolver);
  }
  return resolver;
}

const DEFAULT_AGENT = "local";
const DEFAULT_SESSION = "local";

function commandOf(body: {
  argv?: string[];
  command?: string | string[];
  shell?: CommandInput["shell"];
  posixShell?: CommandInput["posixShell"];
}): CommandInput {
  if (Array.isArray(body.command)) return { argv: body.command };
  const input: CommandInput = body.argv ? { argv: body.argv } : { command: body.command ?? "" };
  if (body.shell) input.shell = body.shell;
  if (body.posixShell && input.command !== undefined) input.posixShell = body.posixShell;
  return input;
}

/** The request's own security/ask (they may only tighten; the gate refuses a looser one). */
function requestedOf(body: { security?: RequestedSettings["security"]; ask?: RequestedSettings["ask"] }): {
  requested?: RequestedSettings;
} {
  if (body.security === undefined && body.ask === undefined) return {};
  return {
    requested: {
      ...(body.security !== undefined ? { security: body.security } : {}),
      ...(body.ask !== undefined ? { ask: body.ask } : {}),
    },
  };
}

/** An absolute folder from the request (`~` expanded), or a refusal in plain words. */
function requestedCwd(cwd: string | undefined, home: string): CwdResolution | null {
  if (cwd === undefined) return null;
  const expanded = expandHome(cwd, home);
  if (!path.isAbsolute(expanded)) return { ok: false, message: `cwd must be an absolute path, got "${cwd}"` };
  return { ok: true, cwd: path.normalize(expanded) };
}

/** The default cwd resolver: the requested folder as is, else the managed workspace root (created 0700). */
export function defaultCwdResolver(workspaceRoot: string, home: string): CwdResolver {
  return async (_sessionKey, cwd) => {
    const requested = requestedCwd(cwd, home);
    if (requested) return requested;
    try {
      await fs.mkdir(workspaceRoot, { recursive: true, mode: 0o700 });
    } catch (error) {
      return {
        ok: false,
        message: `cannot create the workspace folder ${workspaceRoot}: ${(error as Error).message}`,
      };
    }
    return { ok: true, cwd: workspaceRoot };
  };
}

/**
 * The broker's PromptFn for one request: refuses a new prompt when the queue is full (the request is
 * then answered `busy`) and is withdrawn when the requester disconnects.
 */
function promptFor(broker: PromptBroker, onBusy: () => void): PromptFn {
  return (prompt, signal) => {
    if (!broker.canAccept(prompt)) {
      onBusy();
      return Promise.resolve({ decision: "cancelled" });
    }
    return broker.request(prompt, signal);
  };
}

/**
 * A proved task asks as itself: the agent id Gatehouse gave its hook and its own session. Anything else
 * would show "verified: task 12" on a request that another agent's allowlist decides.
 */
function verifiedMismatch(
  body: { agentId?: string; sessionKey?: string },
  verified: VerifiedTask,
): string | null {
  if (body.agentId !== undefined && body.agentId !== verified.agent)
    return `task ${verified.taskId} runs as agent ${verified.agent}, but the request names agent ${body.agentId}`;
  const session = `task:${verified.taskId}`;
  if (body.sessionKey !== undefined && body.sessionKey !== session)
    return `task ${verified.taskId}'s session is ${session}, but the request names ${body.sessionKey}`;
  return null;
}

/**
 * Who asks, as the gate decides it (docs/decisions.md "Proven identity"): a request with a running task's
 * proof asks as that task's agent and session, with that agent's rights; any other request only claims
 * its agent id (every client holds the token) and is decided as the least-trusted agent.
 */
interface Asker {
  agentId: string;
  sessionKey: string;
  verified?: VerifiedTask;
  identity?: Identity;
}

function askerOf(body: { agentId?: string; sessionKey?: string }, ctx: RequestContext): Asker {
  const verified = ctx.verified;
  if (verified) {
    return {
      agentId: verified.agent,
      sessionKey: body.sessionKey ?? `task:${verified.taskId}`,
      verified,
    };
  }
  return {
    agentId: body.agentId ?? DEFAULT_AGENT,
    sessionKey: body.sessionKey ?? DEFAULT_SESSION,
    identity: "unproven",
  };
}

/** The gate request of an `approval.request`, built field by field (no spreads: it runs for every request). */
function gateRequestOf(
  body: ApprovalRequestBody,
  ctx: RequestContext,
  command: CommandInput,
  cwd: string,
): GateRequest {
  const asker = askerOf(body, ctx);
  const request: GateRequest = {
    command,
    agentId: asker.agentId,
    sessionKey: asker.sessionKey,
    source: body.source ?? "socket",
    cwd,
    signal: ctx.signal,
  };
  if (body.reason !== undefined) request.reason = body.reason;
  if (body.timeoutMs !== undefined) request.promptTimeoutMs = body.timeoutMs;
  const { requested } = requestedOf(body);
  if (requested) request.requested = requested;
  if (asker.verified) request.verified = asker.verified;
  if (asker.identity) request.identity = asker.identity;
  return request;
}

const BUSY: HandlerReply = {
  error: "busy",
  message: "too many approvals are waiting for a person; try again later",
};

export function createRequestHandlers(deps: HandlerDeps): RequestHandlers {
  const cwdOrDefault = (cwd: string | undefined): CwdResolution =>
    requestedCwd(cwd, deps.home) ?? { ok: true, cwd: deps.defaultCwd };

  return {
    ping: () => ({ type: "pong", body: { version: APP_VERSION, ui: deps.broker.hasPresenter() } }),

    "policy.explain": async (body: ExplainBody, ctx: RequestContext) => {
      // explained as this client's own requests would be decided: its claim is not proof
      const mismatch = ctx.verified ? verifiedMismatch(body, ctx.verified) : null;
      if (mismatch) return { error: "bad_task_proof", message: mismatch };
      const cwd = cwdOrDefault(body.cwd);
      if (!cwd.ok) return { error: "bad_request", message: cwd.message };
      const asker = askerOf(body, ctx);
      const explanation = await deps.gate.explain(commandOf(body), {
        agentId: asker.agentId,
        cwd: cwd.cwd,
        ...requestedOf(body),
        ...(asker.identity ? { identity: asker.identity } : {}),
      });
      return { type: "explanation", body: { ...explanation } };
    },

    "approval.request": async (body: ApprovalRequestBody, ctx: RequestContext) => {
      const mismatch = ctx.verified ? verifiedMismatch(body, ctx.verified) : null;
      if (mismatch) return { error: "bad_task_proof", message: mismatch };
      let busy = false;
      const prompt = promptFor(deps.broker, () => (busy = true));
      let decided: GateDecision;
      if (body.file) {
        const workdir = requestedCwd(body.file.workdir, deps.home);
        if (!workdir?.ok) return { error: "bad_request", message: `file.workdir must be an absolute path` };
        // a file access has no command or cwd of its own
        const { command: _command, cwd: _cwd, ...fields } = gateRequestOf(body, ctx, { argv: [] }, "");
        decided = await deps.gate.decideFile({ ...fields, ...body.file, workdir: workdir.cwd }, prompt);
      } else if (body.tool) {
        const workdir = requestedCwd(body.tool.workdir, deps.home);
        if (!workdir?.ok) return { error: "bad_request", message: `tool.workdir must be an absolute path` };
        // a tool call has no command or cwd of its own
        const { command: _command, cwd: _cwd, ...fields } = gateRequestOf(body, ctx, { argv: [] }, "");
        const { name, ...call } = body.tool;
        decided = await deps.gate.decideTool(
          { ...fields, ...call, tool: name, workdir: workdir.cwd },
          prompt,
        );
      } else {
        const cwd = cwdOrDefault(body.cwd);
        if (!cwd.ok) return { error: "bad_request", message: cwd.message };
        const request = gateRequestOf(body, ctx, commandOf(body), cwd.cwd);
        request.resolver = resolverFor(ctx.arrival);
        decided = await deps.gate.decide(request, prompt);
      }
      if (busy) return BUSY;
      return {
        type: "decision",
        body: {
          decision: decided.decision,
          decidedBy: decided.decidedBy,
          reason: decided.reason,
          ...(decided.denyReason !== undefined ? { denyReason: decided.denyReason } : {}),
          ...(decided.savedEntries ? { savedEntries: decided.savedEntries } : {}),
          ...(decided.nextStep ? { nextStep: decided.nextStep } : {}),
        },
      };
    },

    "skill.call": async (body: SkillCallBody) => {
      if (!deps.skills) return { error: "unsupported", message: "this Gatehouse runs no agent tasks" };
      const result = await deps.skills.handleToolCall(body.sessionKey, body.args);
      return { type: "skill.result", body: { text: result.text, isError: result.isError } };
    },

    "exec.run": async (body: ExecRunBody, ctx: RequestContext) => {
      // the same proof check as approval.request: a claim never runs with another agent's rights
      const mismatch = ctx.verified ? verifiedMismatch(body, ctx.verified) : null;
      if (mismatch) return { error: "bad_task_proof", message: mismatch };
      const asker = askerOf(body, ctx);
      const sessionKey = asker.sessionKey;
      const cwd = await deps.cwdResolver(sessionKey, body.cwd);
      if (!cwd.ok) return { error: "bad_request", message: cwd.message };
      let busy = false;
      let workdirNotice = cwd.fallback?.message ?? null;
      const recheck: RecheckCwd | undefined = cwd.recheck
        ? async (dir) => {
            const again = await cwd.recheck!(dir);
            if (again.ok && again.notice) workdirNotice = again.notice;
            return again;
          }
        : undefined;
      const result = await deps.gate.run(
        {
          command: commandOf(body),
          agentId: asker.agentId,
          sessionKey,
          source: "socket",
          cwd: cwd.cwd,
          ...(asker.verified ? { verified: asker.verified } : {}),
          ...(asker.identity ? { identity: asker.identity } : {}),
          ...(body.env ? { env: body.env } : {}),
          ...(body.timeoutMs !== undefined ? { timeoutMs: body.timeoutMs } : {}),
          ...(body.maxOutputBytes !== undefined ? { maxOutputBytes: body.maxOutputBytes } : {}),
          ...requestedOf(body),
          signal: ctx.signal,
        },
        promptFor(deps.broker, () => (busy = true)),
        recheck,
      );
      if (busy) return BUSY;
      return {
        type: "exec.result",
        body: {
          ...runReport(result),
          ...(workdirNotice ? { workdirFallback: workdirNotice } : {}),
        },
      };
    },
  };
}
