// The one decision path of every agent hook (Claude Code and Codex): a command or a file access is
// asked of the running Gatehouse through the approval socket (the person may be prompted there);
// with no Gatehouse running the same gate decides here with nobody to ask (askFallback), audited.
// The hook gives up before the agent's own hook timeout, so an answer always comes from here.
// The policy engine (gate, file gate, audit log) is imported only where the hook decides by itself: with
// Gatehouse running, a command costs the hook a socket round trip and nothing else (issue 12).
import { requestOnce } from "../../approval-server/client.js";
import type { ClientResult } from "../../approval-server/client.js";
import type { DecisionBody } from "../../approval-server/protocol.js";
import type { PosixShell } from "../../core/policy/types.js";
import type { GateDecision, GateDeps } from "../../executor/gate.js";
import type { CliContext } from "../context.js";
import type { AgentShellReading } from "./agent-shell.js";
import {
  describeDecision,
  type DecidedThing,
  type HookRuntime,
  type HookVerdict,
  type ToolCall,
} from "./tool-call.js";

/** How long the hook itself waits past the prompt's timeout before it denies on its own. */
export const HOOK_REPLY_SLACK_MS = 5_000;

/** How a gated call's `approval.request` is asked: the socket (the command hook) or, inside the runner, in-process. */
export type AskGatehouse = (body: Record<string, unknown>) => Promise<ClientResult<DecisionBody>>;

export interface HookSession {
  /** What the hook knows of its home: paths, environment, logger (the runner passes its own). */
  ctx: Pick<CliContext, "env" | "paths" | "logger">;
  /**
   * Asks the running Gatehouse in-process (the runner's HTTP hook: the task is proven by its token);
   * absent = over the approval socket with the task's proof.
   */
  ask?: AskGatehouse;
  /** Whose hook this is. */
  runtime: HookRuntime;
  agentId: string;
  /** `task:<id>` inside a Gatehouse task, else `<runtime>:<session id>`. */
  sessionKey: string;
  /** `claude-hook` or `codex-hook` (the audit log's `source`). */
  source: string;
  /** The task's working folder (file accesses are judged against it). */
  workdir: string;
  /** How long a prompt may wait for the person. */
  promptTimeoutMs: number;
  /** The shells the agent may run commands with (each read the way it reads them), or why none can be read. */
  shell: AgentShellReading;
  /** Inside a task Gatehouse launched: its id and key (from the environment), proving each request is its own. */
  task?: { taskId: string; key: string } | null;
  /** Settings the task's launch tightened (hook `--security`/`--ask`); sent with every request. */
  requested?: { security?: "deny" | "allowlist" | "full"; ask?: "off" | "on-miss" | "always" };
}

async function localDeps(session: HookSession): Promise<GateDeps> {
  const { ctx } = session;
  const [{ AuditLog }, { ownFilesOf }, { approvalsStoreAt }] = await Promise.all([
    import("../../executor/audit-log.js"),
    import("../../core/policy/own-files.js"),
    import("../../core/approvals/index.js"),
  ]);
  return {
    approvals: approvalsStoreAt(ctx.paths),
    audit: new AuditLog({ path: ctx.paths.audit }),
    prompt: null,
    baseEnv: ctx.env,
    ownFiles: ownFilesOf(ctx.paths),
    home: ctx.paths.home,
    now: Date.now,
    logger: ctx.logger.child("hook"),
  };
}

async function places(session: HookSession) {
  const { fileGatePlaces } = await import("../../executor/file-access.js");
  return fileGatePlaces(session.ctx.paths, session.ctx.env, session.ctx.paths.defaultWorkspaceRoot);
}

/** A call the gate decides: everything but what the hook answers itself. */
type GatedCall = Exclude<ToolCall, { kind: "refuse" | "allow" }>;

function thingOf(call: GatedCall): DecidedThing {
  return call.kind === "command" ? "command" : call.kind === "file" ? "file access" : "tool call";
}

/** Plain words for what an MCP tool call does. */
function mcpWhat(call: Extract<ToolCall, { kind: "mcp" }>): string {
  return `calls the tool "${call.tool}" of the MCP server "${call.server}"`;
}

/** A file call's fields as the file gate and the socket body take them. */
function fileFields(call: Extract<ToolCall, { kind: "file" }>) {
  const { tool, access, paths, runtime, base } = call;
  return { tool, access, paths, runtime, ...(base !== undefined ? { base } : {}) };
}

/** The tool call as the approval socket's `tool` body (and the local tool gate's request). */
function toolBody(call: Extract<ToolCall, { kind: "mcp" | "person" }>, session: HookSession) {
  return call.kind === "mcp"
    ? {
        runtime: session.runtime,
        name: call.name,
        kind: "mcp" as const,
        what: mcpWhat(call),
        input: call.input,
      }
    : {
        runtime: session.runtime,
        name: call.tool,
        kind: "person" as const,
        what: call.what ?? `a call of ${call.tool}`,
        reason: call.reason,
        ...(call.input !== undefined ? { input: call.input } : {}),
      };
}

/** No Gatehouse answers: the same gate decides here with nobody to ask, and the reason says so. */
async function decideLocally(call: GatedCall, session: HookSession, posixShells: PosixShell[], why: string) {
  // Before the gate loads: its parsers' WebAssembly, and the code cache of what loads from here on
  // (bin/gatehouse.js leaves the hook on V8's default flags).
  (await import("../../core/policy/io/wasm-tier.js")).useBaselineWasmOnly();
  const [{ decideCommand, isAllowed }, { decideFileAccess }, { decideToolCallGate }] = await Promise.all([
    import("../../executor/gate.js"),
    import("../../executor/file-access.js"),
    import("../../executor/tool-gate.js"),
  ]);
  const common = {
    agentId: session.agentId,
    sessionKey: session.sessionKey,
    source: session.source,
    // Only a running Gatehouse can check a task's proof: deciding here, the agent id is a claim.
    identity: "unproven" as const,
    ...(session.requested ? { requested: session.requested } : {}),
  };
  let decided: GateDecision;
  if (call.kind === "command") {
    decided = await decideCommand(
      {
        ...common,
        command: { command: call.command, shell: "posix", posixShell: posixShells },
        cwd: call.cwd,
      },
      await localDeps(session),
    );
  } else if (call.kind === "file") {
    decided = await decideFileAccess(
      { ...common, ...fileFields(call), workdir: session.workdir },
      await places(session),
      await localDeps(session),
    );
  } else {
    const { name, ...body } = toolBody(call, session);
    decided = await decideToolCallGate(
      { ...common, ...body, tool: name, workdir: session.workdir },
      await localDeps(session),
    );
  }
  const what = thingOf(call);
  const verdict = describeDecision(
    decided.decision,
    decided.decidedBy,
    decided.reason,
    what,
    decided.denyReason,
  );
  // Said once: why nobody was asked, what decided here, and the one command that would change it.
  const notRunning = why.startsWith("Gatehouse is not running") ? why : `Gatehouse is not running (${why})`;
  const decidedHere =
    decided.decision === "no-approver"
      ? `nobody could be asked, so askFallback=${decided.explanation.askFallback} refused this ${what}`
      : verdict.reason;
  return {
    allow: isAllowed(decided.decision),
    reason: `${notRunning}; ${decidedHere}${decided.nextStep && decided.denyReason === undefined ? `. Next: ${decided.nextStep}` : ""}`,
  };
}

/** Reading the task's own folder needs no one and is not worth an audit line: answered here. */
async function readsOnlyInside(call: Extract<ToolCall, { kind: "file" }>, session: HookSession) {
  if (call.access !== "read") return false;
  const { resolveFileTargets } = await import("../../executor/file-access.js");
  const targets = await resolveFileTargets(
    { ...fileFields(call), access: "read", workdir: session.workdir },
    await places(session),
  );
  return targets.every((t) => t.where === "inside");
}

/** The request body of a gated call on the approval socket. */
function requestBody(call: GatedCall, session: HookSession, posixShells: PosixShell[]) {
  const common = {
    agentId: session.agentId,
    sessionKey: session.sessionKey,
    source: session.source,
    timeoutMs: session.promptTimeoutMs,
    ...session.requested,
  };
  switch (call.kind) {
    case "command":
      return {
        ...common,
        command: call.command,
        shell: "posix",
        posixShell: posixShells,
        cwd: call.cwd,
      };
    case "file":
      return {
        ...common,
        file: { ...fileFields(call), workdir: session.workdir },
      };
    default:
      return { ...common, tool: { ...toolBody(call, session), workdir: session.workdir } };
  }
}

/** Asks the running Gatehouse (or, with none, the gate here) about one gated call. */
async function decideGated(call: GatedCall, session: HookSession): Promise<HookVerdict> {
  if (call.kind === "file" && (await readsOnlyInside(call, session)))
    return { allow: true, reason: "Gatehouse allows reading the task's own folder." };
  const posixShells = "posixShells" in session.shell ? session.shell.posixShells : [];
  const body = requestBody(call, session, posixShells);
  const result: ClientResult<DecisionBody> = session.ask
    ? await session.ask(body)
    : await requestOnce(session.ctx.paths, "approval.request", body, {
        timeoutMs: session.promptTimeoutMs + HOOK_REPLY_SLACK_MS,
        ...(session.task ? { task: session.task } : {}),
      });
  const what = thingOf(call);
  if (result.status === "ok") {
    const { decision, decidedBy, reason, denyReason } = result.body;
    const verdict = describeDecision(decision, decidedBy, reason, what, denyReason);
    const step = (result.body as { nextStep?: unknown }).nextStep;
    // A person who said why needs no suggestion after their words: what they said is the next step.
    return typeof step === "string" && !verdict.allow && denyReason === undefined
      ? { ...verdict, reason: `${verdict.reason}. Next: ${step}` }
      : verdict;
  }
  if (result.status === "unavailable") return decideLocally(call, session, posixShells, result.reason);
  return {
    allow: false,
    reason: `Gatehouse refused the request (${result.code}: ${result.message}), so the ${what} is denied.`,
  };
}

/**
 * The verdict on a tool call: every call gets one. A command in a folder the agent chose (Codex's
 * `workdir`) is decided twice: the folder like a file the command reads (Gatehouse's own data is never
 * a command's folder; a protected one or one outside the task's folder needs a person), then the command.
 */
export async function decideToolCall(call: ToolCall, session: HookSession): Promise<HookVerdict> {
  if (call.kind === "refuse") return { allow: false, reason: call.reason };
  if (call.kind === "allow") return { allow: true, reason: call.reason };
  if (call.kind === "command" && call.cwdChosen) {
    const folder = await decideGated(
      {
        kind: "file",
        tool: "exec_command.workdir",
        access: "read",
        paths: [call.cwd],
        runtime: session.runtime,
      },
      session,
    );
    if (!folder.allow) return { allow: false, reason: `The command's folder ${call.cwd}: ${folder.reason}` };
  }
  if (call.kind === "command" && "unreadable" in session.shell)
    // A command string whose shell Gatehouse cannot read: only a person can judge it.
    return decideGated(
      {
        kind: "person",
        tool: session.runtime === "claude" ? "Bash" : "exec_command",
        reason: session.shell.unreadable,
        what: "runs a shell command",
        input: call.command,
      },
      session,
    );
  return decideGated(call, session);
}
