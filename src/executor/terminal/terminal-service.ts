// Opening a terminal the backend asks for (issue 31), in order: room for one more → the folder,
// resolved like a task's workdir (allowed roots, protected folders, escapes; relative and blank paths
// in the workspace root, created only there and only when asked) → the user's shell → the gate (an
// allowlist entry for that shell whose cwd covers the folder, or a person) → the PTY. Each refusal is
// the ack's error, in Wegent's words where Wegent has them. The environment is what commands get
// (child-env.ts: never one of Gatehouse's secrets), with TERM and SHELL set.
import type { Logger } from "../../core/log.js";
import type { WorkdirService } from "../../core/workdir/io/service.js";
import { gatedChildEnv, isAllowed, type GateDeps } from "../gate.js";
import { decideTerminal, terminalRefusal } from "./terminal-decision.js";
import { DEFAULT_TTL_SECONDS, type TerminalOwner, type TerminalSessions } from "./terminal-sessions.js";
import { terminalShell } from "./terminal-shell.js";

/** The backend waits 15 s for the start ack (session_service.py): a person's answer must come before. */
export const TERMINAL_PROMPT_TIMEOUT_MS = 12_000;

export interface TerminalStartRequest {
  sessionId: string;
  path: string;
  rows: number | null;
  cols: number | null;
  createIfMissing: boolean;
  ttlSeconds: number | null;
}

export interface TerminalServiceDeps {
  sessions: TerminalSessions;
  workdir: Pick<WorkdirService, "checkFolder">;
  /** The gate with whoever answers prompts (the broker, or nobody: askFallback). */
  gate: GateDeps;
  logger: Logger;
  promptTimeoutMs?: number;
}

async function terminalEnv(gate: GateDeps, shell: string): Promise<Record<string, string>> {
  return { ...(await gatedChildEnv(gate)), TERM: "xterm-256color", SHELL: shell };
}

export async function startTerminal(
  request: TerminalStartRequest,
  owner: TerminalOwner,
  deps: TerminalServiceDeps,
): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
  if (!deps.sessions.hasRoomFor(request.sessionId))
    return { ok: false, error: "Too many open terminal sessions" };
  const folder = await deps.workdir.checkFolder(request.path, { create: request.createIfMissing });
  if (!folder.ok) {
    if (folder.code === "missing-directory")
      return { ok: false, error: `Project path does not exist: ${request.path}` };
    if (folder.code === "not-a-directory")
      return { ok: false, error: `Project path is not a directory: ${request.path}` };
    return { ok: false, error: `Project path is outside allowed workspace roots. ${folder.message}` };
  }
  const found = await terminalShell(deps.gate.baseEnv, deps.gate.platform);
  if (!found.ok) return { ok: false, error: found.error };
  const shell = found.shell;
  const decision = await decideTerminal(
    {
      shell,
      folder: folder.cwd,
      sessionKey: `terminal:${request.sessionId}`,
      promptTimeoutMs: deps.promptTimeoutMs ?? TERMINAL_PROMPT_TIMEOUT_MS,
    },
    deps.gate,
  );
  if (!isAllowed(decision.decision)) {
    deps.logger.info(`terminal ${request.sessionId} refused`, {
      decidedBy: decision.decidedBy,
      reason: decision.reason,
    });
    return { ok: false, error: terminalRefusal(decision, shell, folder.cwd) };
  }
  if (!owner.isLive()) return { ok: false, error: "The connection that asked for the terminal has ended" };
  const opened = deps.sessions.open({
    sessionId: request.sessionId,
    folder: folder.cwd,
    shell,
    env: await terminalEnv(deps.gate, shell.given),
    rows: Math.max(1, request.rows ?? 24),
    cols: Math.max(1, request.cols ?? 80),
    ttlSeconds: request.ttlSeconds && request.ttlSeconds > 0 ? request.ttlSeconds : DEFAULT_TTL_SECONDS,
    owner,
    runId: decision.runId,
    decidedBy: decision.decidedBy,
  });
  return opened.ok ? { ok: true, path: folder.cwd } : opened;
}
