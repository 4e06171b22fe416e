// The Gatehouse hook as both agent CLIs are told to run it (`gatehouse hook claude|codex`) for every
// tool call. Both CLIs run a hook command through a POSIX shell; a hook that exits
// with 1, prints nothing usable or times out would let Codex run the call, so the command ends in an
// exit 2 with a reason on stderr (a crash before Gatehouse even starts, or a hook killed by a signal, is
// a block too) and the hook answers on its own before the CLI's timeout.
import { posixCommandLine } from "./shell-quote.js";

/** The CLIs give up on a hook after its `timeout`: a person deciding must not be cut short. */
export const HOOK_TIMEOUT_MARGIN_SECONDS = 10;

/**
 * Claude Code sends every tool call to the hook (`*`: every built-in tool and every `mcp__*` tool, checked
 * with the real 2.1.197 and 2.1.332), and the hook answers each: a call with no answer would be left to
 * Claude Code's own permissions (cli/hook/claude-tools.ts is the table of what each tool does).
 */
export const CLAUDE_HOOK_MATCHER = "*";

export interface HookLaunch {
  /** How to run gatehouse, e.g. `[process.execPath, "<repo>/bin/gatehouse.js"]` (absolute paths). */
  gatehouseCommand: string[];
  agentId: string;
  /** The task's working folder: file accesses inside it need nobody. */
  workdir: string;
  promptTimeoutMs: number;
  /** What the task's launch asked to tighten (task:execute `security`/`ask`): every hook request carries it. */
  requested?: { security?: string; ask?: string };
}

export function hookTimeoutSeconds(promptTimeoutMs: number): number {
  return promptSeconds(promptTimeoutMs) + HOOK_TIMEOUT_MARGIN_SECONDS;
}

function promptSeconds(promptTimeoutMs: number): number {
  return Math.max(1, Math.ceil(Math.max(0, promptTimeoutMs) / 1000));
}

/**
 * What the shell says when the hook ended without answering (killed, or failed before it could write a
 * reason). Codex 0.169 and 0.171 run the call on an exit 2 with nothing on stderr, as on an exit 1
 * (checked with the real CLIs): the block needs this reason. No quotes in it: it sits inside single quotes.
 */
export const HOOK_ENDED_REASON =
  "The Gatehouse hook ended without an answer (it was stopped or failed), so this call is blocked. " +
  "Try it again; if this keeps happening, run gatehouse status to see what is wrong.";

/**
 * The hook's own exit 2 (a block) already carries its reason; any other failure gets HOOK_ENDED_REASON.
 * `$?` at the start of the `||` branch is the hook's status.
 */
const HOOK_FAILURE_TAIL = ` || { [ $? -eq 2 ] || echo '${HOOK_ENDED_REASON}' >&2; exit 2; }`;

/** The shell command line of the hook for `runtime` (POSIX-quoted). */
export function hookCommand(runtime: "claude" | "codex", launch: HookLaunch): string {
  const argv = [
    ...launch.gatehouseCommand,
    "hook",
    runtime,
    "--agent",
    launch.agentId,
    "--workdir",
    launch.workdir,
    "--timeout",
    String(promptSeconds(launch.promptTimeoutMs)),
    ...(launch.requested?.security ? ["--security", launch.requested.security] : []),
    ...(launch.requested?.ask ? ["--ask", launch.requested.ask] : []),
  ];
  return blockingCommandLine(argv);
}

/** `argv` as a shell command line whose every failure blocks the call with a reason (HOOK_FAILURE_TAIL). */
export function blockingCommandLine(argv: string[]): string {
  return `${posixCommandLine(argv)}${HOOK_FAILURE_TAIL}`;
}
