// One agent CLI process (Claude Code or Codex) for one turn: spawned without a shell in its own
// process group, the prompt written to stdin (or stdin closed), stdout read line by line, the end of
// stderr kept for the error message. `stop()` ends the whole tree (process-table.ts): SIGTERM to every
// group and process below the agent, SIGKILL after the grace period (exec-policy.md "Running"), so a
// cancelled task leaves nothing behind.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { signalProcessGroup } from "../kill-tree.js";
import { processesWithEnv, processTree, readProcessTable, type ProcessInfo } from "./process-table.js";

export const DEFAULT_AGENT_KILL_GRACE_MS = 3_000;
/** After the agent exits, how long leftover descendants may hold stdout open before reading stops. */
export const STDOUT_GRACE_MS = 1_000;
const STDERR_TAIL_CHARS = 4_000;
/** A single output line longer than this is dropped (memory stays bounded whatever the agent prints). */
const MAX_LINE_CHARS = 32 * 1024 * 1024;
/** Set to a fresh random value in every agent's environment: its descendants carry it too. */
export const RUN_MARKER_VARIABLE = "GATEHOUSE_AGENT_RUN";

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
  const marker = `${RUN_MARKER_VARIABLE}=${randomBytes(12).toString("hex")}`;
  let child: ChildProcess;
  try {
    child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: { ...launch.env, [RUN_MARKER_VARIABLE]: marker.slice(RUN_MARKER_VARIABLE.length + 1) },
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

  let leaderExited = false;
  void exited.then(() => (leaderExited = true));

  return {
    pid: child.pid ?? null,
    exited,
    stop() {
      if (stopping) return stopping;
      const pid = child.pid;
      stopping =
        pid === undefined
          ? exited
          : Promise.all([endProcessTree(pid, grace, platform, () => leaderExited, marker), exited]).then(
              ([, exit]) => exit,
            );
      return stopping;
    },
  };
}

const POLL_MS = 50;

/**
 * Ends the agent and everything it started: SIGTERM to its group and to every group and process found
 * below it, SIGKILL to whatever is still alive when the grace period is over. The tree is read (frozen
 * with SIGSTOP) before the first SIGTERM, while the parent links still lead from the agent to its
 * descendants.
 */
export async function endProcessTree(
  pid: number,
  graceMs: number,
  platform: NodeJS.Platform,
  leaderGone: () => boolean,
  /** `NAME=value` every process of the run carries in its environment (Linux finds them by it). */
  marker: string | null = null,
): Promise<void> {
  const deadline = Date.now() + graceMs;
  const known = new Map<number, ProcessInfo>();
  const scan = async (): Promise<Set<number>> => {
    const table = await readProcessTable(platform);
    const roots = [
      pid,
      ...known.keys(),
      ...table.filter((p) => p.pgid === pid).map((p) => p.pid),
      ...(marker ? processesWithEnv(marker, platform) : []),
    ];
    for (const info of processTree(roots, table)) known.set(info.pid, info);
    return new Set(table.filter((p) => !p.zombie).map((p) => p.pid));
  };
  const signalAll = (signal: NodeJS.Signals, live: Set<number>) => {
    // The agent's own group (taskkill /T on Windows); once the agent is gone, only while members remain,
    // so a recycled pid is never signalled.
    const members = [...known.values()].some((info) => info.pgid === pid && live.has(info.pid));
    if (!leaderGone() || members) signalProcessGroup(pid, signal, platform);
    const groups = new Set<number>();
    for (const info of known.values()) {
      if (!live.has(info.pid) || info.pgid === pid) continue;
      // A group led by one of the tree's processes is the tree's; any other group is left alone.
      if (known.has(info.pgid)) groups.add(info.pgid);
      else {
        try {
          process.kill(info.pid, signal);
        } catch {
          // already gone
        }
      }
    }
    for (const group of groups) signalProcessGroup(group, signal, platform);
  };
  // Zombies do not count: in a container without an init that reaps them they would never go.
  const anyAlive = (live: Set<number>) => !leaderGone() || [...known.keys()].some((p) => live.has(p));

  let live = await scan();
  if (platform !== "win32" && !leaderGone()) {
    // Freeze the tree while it is read: a stopped process can neither start new ones nor exit and
    // leave its children orphaned (their parent link to the agent lost) between two reads.
    for (let round = 0; round < 5; round++) {
      const before = known.size;
      signalAll("SIGSTOP", live);
      live = await scan();
      if (known.size === before) break;
    }
  }
  signalAll("SIGTERM", live);
  if (platform !== "win32") signalAll("SIGCONT", live); // so the SIGTERM is handled
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    live = await scan();
    if (!anyAlive(live)) return;
  }
  live = await scan();
  signalAll("SIGKILL", live);
  // SIGKILL cannot be refused; wait the moment it takes so "stopped" means gone.
  const killedBy = Date.now() + 1_000;
  while (anyAlive(live) && Date.now() < killedBy) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS / 2));
    live = await scan();
  }
}
