// One agent CLI process (Claude Code or Codex) for one turn: spawned without a shell in its own
// process group, the prompt written to stdin (or stdin closed), stdout read line by line, the end of
// stderr kept for the error message. `stop()` ends the whole tree: SIGTERM to the group, SIGKILL after
// the grace period (exec-policy.md "Running"), so a cancelled task leaves nothing behind.
import { spawn, type ChildProcess } from "node:child_process";
import { processGroupAlive, signalProcessGroup } from "../kill-tree.js";

export const DEFAULT_AGENT_KILL_GRACE_MS = 3_000;
/** After the agent exits, how long leftover descendants may hold stdout open before reading stops. */
export const STDOUT_GRACE_MS = 1_000;
const STDERR_TAIL_CHARS = 4_000;
/** A single output line longer than this is dropped (memory stays bounded whatever the agent prints). */
const MAX_LINE_CHARS = 32 * 1024 * 1024;

export interface AgentLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Written to stdin, then closed; null = stdin is not connected. */
  stdin: string | null;
  killGraceMs?: number;
  platform?: NodeJS.Platform;
}

export interface AgentExit {
  code: number | null;
  signal: string | null;
  /** Why nothing ran (the file could not be executed). */
  spawnError: string | null;
  /** The last characters the agent wrote to stderr. */
  stderrTail: string;
}

export interface AgentProcess {
  readonly pid: number | null;
  /** Resolves once the agent exited and its output was read. */
  readonly exited: Promise<AgentExit>;
  /** Ends the process tree (SIGTERM, SIGKILL after the grace); resolves when the agent has exited. */
  stop(): Promise<AgentExit>;
}

export function startAgentProcess(launch: AgentLaunch, onLine: (line: string) => void): AgentProcess {
  const platform = launch.platform ?? process.platform;
  const grace = launch.killGraceMs ?? DEFAULT_AGENT_KILL_GRACE_MS;
  let child: ChildProcess;
  try {
    child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: [launch.stdin === null ? "ignore" : "pipe", "pipe", "pipe"],
      detached: platform !== "win32", // its own process group: one signal reaches every descendant
      windowsHide: true,
    });
  } catch (error) {
    const exit: AgentExit = {
      code: null,
      signal: null,
      spawnError: (error as Error).message,
      stderrTail: "",
    };
    return { pid: null, exited: Promise.resolve(exit), stop: () => Promise.resolve(exit) };
  }

  let stderrTail = "";
  let buffer = "";
  let stopping: Promise<AgentExit> | null = null;
  let killTimer: NodeJS.Timeout | null = null;

  const flushLines = (final: boolean) => {
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
    if (buffer.length > MAX_LINE_CHARS) buffer = "";
    if (final && buffer.trim()) {
      onLine(buffer);
      buffer = "";
    }
  };

  const exited = new Promise<AgentExit>((resolve) => {
    let exit: { code: number | null; signal: string | null } | null = null;
    let stdoutOpen = child.stdout !== null;
    let settled = false;
    const settle = (spawnError: string | null) => {
      if (settled) return;
      settled = true;
      flushLines(true);
      if (killTimer && !(child.pid !== undefined && processGroupAlive(child.pid, platform))) {
        clearTimeout(killTimer);
        killTimer = null;
      }
      resolve({ code: exit?.code ?? null, signal: exit?.signal ?? null, spawnError, stderrTail });
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // e.g. a failed kill or EPIPE on stdin; the run goes on
      settle(error.code === "ENOENT" ? `${launch.file}: command not found` : error.message);
    });
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      buffer += chunk;
      flushLines(false);
    });
    child.stdout?.on("error", () => undefined);
    child.stdout?.on("close", () => {
      stdoutOpen = false;
      if (exit) settle(null);
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.stderr?.on("error", () => undefined);
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (!stdoutOpen) return settle(null);
      // Something the agent left running still holds stdout: stop reading after a grace.
      setTimeout(() => {
        child.stdout?.destroy();
        settle(null);
      }, STDOUT_GRACE_MS).unref();
    });
  });

  if (child.stdin) {
    child.stdin.on("error", () => undefined); // the agent may exit before reading its prompt
    child.stdin.end(launch.stdin ?? "");
  }

  return {
    pid: child.pid ?? null,
    exited,
    stop() {
      if (stopping) return stopping;
      const pid = child.pid;
      if (pid === undefined || child.exitCode !== null || child.signalCode !== null) {
        // Already gone (or never started); descendants still in the group are ended too.
        if (pid !== undefined && processGroupAlive(pid, platform))
          signalProcessGroup(pid, "SIGKILL", platform);
        stopping = exited;
        return stopping;
      }
      const stopAt = Date.now();
      signalProcessGroup(pid, "SIGTERM", platform);
      killTimer = setTimeout(() => {
        killTimer = null;
        signalProcessGroup(pid, "SIGKILL", platform);
      }, grace);
      killTimer.unref();
      stopping = exited.then(async (exit) => {
        // The leader is gone; the rest of the group gets what is left of the grace, then SIGKILL.
        const deadline = stopAt + grace;
        while (processGroupAlive(pid, platform) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        if (processGroupAlive(pid, platform)) signalProcessGroup(pid, "SIGKILL", platform);
        if (killTimer) clearTimeout(killTimer);
        return exit;
      });
      return stopping;
    },
  };
}
