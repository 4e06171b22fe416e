// Runs one child process (exec-policy.md "Running"): no shell for an argv, output kept up to a cap
// while the pipes are always drained, and a timeout or cancel that ends the whole process tree
// (SIGTERM to the process group, SIGKILL after a grace period). Failures to start are values.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import type { Readable } from "node:stream";
import type { CommandInput } from "../core/policy/types.js";
import { processGroupAlive, signalProcessGroup } from "./kill-tree.js";
import {
  effectiveCap,
  OutputCapture,
  type CapturedOutput,
  type OutputMode,
  type StreamName,
} from "./output-capture.js";
import { readPipe, type PipeReader } from "./pipe-reader.js";
import { ReadMemory } from "./read-memory.js";
import { spawnTargetFor, type ShellChoice } from "./shell-command.js";

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_KILL_GRACE_MS = 5_000;
export const DEFAULT_STDIO_GRACE_MS = 1_000;

export type RecheckCwdResult = { ok: true; cwd: string } | { ok: false; message: string };

export interface RunSpec {
  command: CommandInput;
  cwd: string;
  /** The complete environment of the child (see buildChildEnv). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Which shell a shell string runs under (shell-command.ts); default: bash looked up now, cmd.exe
   * and PowerShell from this process's environment. The gate passes the bash the policy was told.
   */
  shells?: ShellChoice;
  /** Default 60 s. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL of the process tree; default 5 s. */
  killGraceMs?: number;
  /**
   * After the command itself exits, how long processes it left in the background may keep its
   * output pipes open before Gatehouse stops reading (default 1 s); they are not killed.
   */
  stdioGraceMs?: number;
  /** `combined` (exec-policy.md, default) or `separate` (device-protocol.md §6.5). */
  outputMode?: OutputMode;
  maxOutputBytes?: number;
  /** Cancels the run the same way a timeout does (task cancel, client gone). */
  signal?: AbortSignal;
  /** Runs right before spawn (workdir.md §8); a refusal means nothing is spawned. */
  recheckCwd?: (cwd: string) => Promise<RecheckCwdResult>;
  platform?: NodeJS.Platform;
}

/**
 * What an onOutput hook returns when it wants no more chunks, of either stream, for the rest of the
 * run (the CLI's passthrough once it printed up to the cap): none is copied for it from then on.
 */
export const NO_MORE_OUTPUT = "no-more-output";

export interface RunHooks {
  /** The child started (for usage bookkeeping and `exec.started`). */
  onSpawn?(info: { pid: number; cwd: string }): void;
  /**
   * Every chunk as it arrives, the hook's to keep; a returned promise pauses that stream until it
   * settles (backpressure); NO_MORE_OUTPUT ends the subscription. Each chunk is a copy: prefer
   * onOutputView for what is not kept.
   */
  onOutput?(stream: StreamName, chunk: Buffer): void | Promise<void> | typeof NO_MORE_OUTPUT;
  /**
   * Every chunk as it arrives, borrowed: it may be a view of a read buffer that the next read
   * overwrites, so it is valid only during the call (copy what you keep). No copy is made for it.
   */
  onOutputView?(stream: StreamName, bytes: Buffer): void;
}

export interface RunResult extends CapturedOutput {
  /** Null when the command did not exit normally or did not run. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Spawn to exit; 0 when it did not run. */
  durationMs: number;
  /** The folder it ran in (after recheckCwd), or was meant to. */
  cwd: string;
  /** "Failed to start command: <reason>" when nothing ran. */
  spawnError?: string;
  /** How it ran, when the requester should know (e.g. under /bin/sh: this machine has no bash). */
  note?: string;
}

function notRun(capture: OutputCapture, cwd: string, extra: Partial<RunResult>): RunResult {
  return {
    ...capture.result(),
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    durationMs: 0,
    cwd,
    ...extra,
  };
}

async function describeSpawnError(error: NodeJS.ErrnoException, file: string, cwd: string): Promise<string> {
  const cwdProblem = await fs.stat(cwd).then(
    (stat) => (stat.isDirectory() ? null : `working directory is not a folder: ${cwd}`),
    () => `working directory does not exist: ${cwd}`,
  );
  if (cwdProblem) return cwdProblem;
  switch (error.code) {
    case "ENOENT":
      return `${file}: command not found`;
    case "EACCES":
      return `${file}: permission denied`;
    case "ENOEXEC":
      return `${file}: not an executable format`;
    default:
      return error.message;
  }
}

export async function runProcess(spec: RunSpec, hooks: RunHooks = {}): Promise<RunResult> {
  const platform = spec.platform ?? process.platform;
  const mode = spec.outputMode ?? "combined";
  const capture = new OutputCapture(mode, effectiveCap(mode, spec.maxOutputBytes));
  if (spec.signal?.aborted) return notRun(capture, spec.cwd, { cancelled: true });

  let cwd = spec.cwd;
  if (spec.recheckCwd) {
    const checked = await spec.recheckCwd(cwd);
    if (!checked.ok)
      return notRun(capture, cwd, { spawnError: `Failed to start command: ${checked.message}` });
    cwd = checked.cwd;
  }
  const target = await spawnTargetFor(spec.command, spec.shells ?? { baseEnv: process.env }, platform);
  if (!target.ok) return notRun(capture, cwd, { spawnError: `Failed to start command: ${target.message}` });
  if (spec.signal?.aborted) return notRun(capture, cwd, { cancelled: true });

  const { file, args, windowsVerbatimArguments, note } = target.target;
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd,
      env: spec.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: platform !== "win32", // own process group, so the whole tree can be signalled
      windowsHide: true,
      windowsVerbatimArguments,
    });
  } catch (error) {
    // Synchronous refusals: a NUL byte in an argument, an invalid env value, …
    return notRun(capture, cwd, { spawnError: `Failed to start command: ${(error as Error).message}` });
  }
  const result = supervise(child, { spec, hooks, capture, cwd, file, platform });
  return note === undefined ? result : result.then((run) => ({ ...run, note }));
}

interface Supervision {
  spec: RunSpec;
  hooks: RunHooks;
  capture: OutputCapture;
  cwd: string;
  file: string;
  platform: NodeJS.Platform;
}

function supervise(child: ChildProcess, s: Supervision): Promise<RunResult> {
  const { spec, hooks, capture, cwd, platform } = s;
  const started = performance.now();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  return new Promise<RunResult>((resolve) => {
    let settled = false;
    let exit: { code: number | null; signal: string | null; at: number } | null = null;
    let openStreams = 0;
    let terminating: "timeout" | "cancel" | null = null;
    let killSent = false;
    let killTimer: NodeJS.Timeout | null = null;

    const settle = (result: RunResult) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };

    const maybeFinish = () => {
      if (settled || !exit || openStreams > 0) return;
      // Descendants that outlive the SIGTERM still get the SIGKILL at the end of the grace period,
      // after the result is in (the timer stays armed); a group that is gone needs nothing more.
      const keepKillTimer =
        terminating !== null &&
        !killSent &&
        child.pid !== undefined &&
        processGroupAlive(child.pid, platform);
      if (!keepKillTimer && killTimer) clearTimeout(killTimer);
      settle({
        ...capture.result(),
        exitCode: exit.code,
        signal: exit.signal,
        timedOut: terminating === "timeout",
        cancelled: terminating === "cancel",
        durationMs: Math.max(0, exit.at - started),
        cwd,
      });
    };

    const terminate = (why: "timeout" | "cancel") => {
      if (terminating || exit || child.pid === undefined) return;
      terminating = why;
      const pid = child.pid;
      signalProcessGroup(pid, "SIGTERM", platform);
      killTimer = setTimeout(() => {
        killTimer = null;
        signalProcessGroup(pid, "SIGKILL", platform);
        killSent = true;
        maybeFinish();
      }, spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    };

    function onAbort() {
      terminate("cancel");
    }

    const readers: PipeReader[] = [];
    // Until the hook says it has had enough (a flood past the CLI's cap is not copied for it).
    let outputWanted = true;
    // The copies handed to onOutput are fresh buffers again: collected as a stream's chunks would be.
    const copies = new ReadMemory();
    const ownedCopy = (bytes: Buffer) => {
      copies.read(bytes.length);
      return Buffer.from(bytes);
    };
    const watch = (name: StreamName, stream: Readable | null) => {
      if (!stream) return;
      openStreams++;
      const reader: PipeReader = readPipe(stream, {
        onChunk: (bytes) => {
          capture.push(name, bytes);
          try {
            hooks.onOutputView?.(name, bytes);
          } catch {
            // a failing listener never stops the draining (the child must not block)
          }
          if (!hooks.onOutput || !outputWanted) return;
          let pending: ReturnType<NonNullable<RunHooks["onOutput"]>>;
          try {
            // The hook may keep its chunk: a copy when the read landed in the shared buffer.
            pending = hooks.onOutput(name, reader.reusesBuffer ? ownedCopy(bytes) : bytes);
          } catch {
            pending = undefined;
          }
          if (pending === NO_MORE_OUTPUT) outputWanted = false;
          else if (pending) {
            reader.pause();
            pending.then(
              () => reader.resume(),
              () => reader.resume(),
            );
          }
        },
        onClose: () => {
          openStreams--;
          maybeFinish();
        },
      });
      readers.push(reader);
    };

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // e.g. a failed kill; the run goes on
      child.stdout?.destroy();
      child.stderr?.destroy();
      void describeSpawnError(error, s.file, cwd).then((reason) =>
        settle(notRun(capture, cwd, { spawnError: `Failed to start command: ${reason}` })),
      );
    });
    if (child.pid === undefined) return; // spawn failed; 'error' follows

    watch("stdout", child.stdout);
    watch("stderr", child.stderr);
    hooks.onSpawn?.({ pid: child.pid, cwd });

    child.on("exit", (code, signal) => {
      exit = { code, signal, at: performance.now() };
      if (openStreams > 0) {
        // Something the command left running still holds the pipes: stop reading after a grace.
        later(spec.stdioGraceMs ?? DEFAULT_STDIO_GRACE_MS, () => {
          for (const reader of readers) reader.destroy();
        });
      }
      maybeFinish();
    });

    later(spec.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => terminate("timeout"));
    spec.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
