// The Gatehouse hook as both agent CLIs are told to run it (`gatehouse hook claude|codex`), and the
// Claude Code tools it decides. Both CLIs run a hook command through a POSIX shell; a hook that exits
// with 1, prints nothing usable or times out would let Codex run the call, so the command ends in
// `|| exit 2` (a crash before Gatehouse even starts is a block too) and the hook answers on its own
// before the CLI's timeout.
import type { FileAccessKind } from "../policy/file-edit.js";
import { SKILL_TOOL_NAME } from "../../shared/skill-tool-names.js";
import { posixCommandLine } from "./shell-quote.js";

/** The CLIs give up on a hook after its `timeout`: a person deciding must not be cut short. */
export const HOOK_TIMEOUT_MARGIN_SECONDS = 10;

/** Claude Code's file tools: what they do and which input field names the file (or folder). */
export const CLAUDE_FILE_TOOLS: Readonly<
  Record<string, { access: FileAccessKind; field: string; defaultsToCwd?: boolean }>
> = {
  Write: { access: "write", field: "file_path" },
  Edit: { access: "write", field: "file_path" },
  MultiEdit: { access: "write", field: "file_path" },
  NotebookEdit: { access: "write", field: "notebook_path" },
  Read: { access: "read", field: "file_path" },
  NotebookRead: { access: "read", field: "notebook_path" },
  LS: { access: "read", field: "path" },
  Grep: { access: "read", field: "path", defaultsToCwd: true },
  Glob: { access: "read", field: "path", defaultsToCwd: true },
};

/**
 * Claude Code tools that run programs themselves, outside Bash: refused by the hook (EnterWorktree runs
 * `git worktree add`, and with it the repository's checkout hooks; it needs no permission in `-p`).
 */
export const CLAUDE_REFUSED_TOOLS: ReadonlySet<string> = new Set(["EnterWorktree"]);

/**
 * The tools Claude Code sends to the hook: Bash, the file tools, the refused ones, and the Gatehouse
 * Skill tool (allowed by the hook: it only reads skill files). The rest never reach it and, with nothing
 * pre-allowed, do not run.
 */
export const CLAUDE_HOOK_MATCHER = `^(${[
  "Bash",
  ...Object.keys(CLAUDE_FILE_TOOLS),
  ...CLAUDE_REFUSED_TOOLS,
  SKILL_TOOL_NAME,
].join("|")})$`;

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
  return `${posixCommandLine(argv)} || exit 2`;
}
