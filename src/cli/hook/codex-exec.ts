// Codex's `exec_command` as Codex runs it (0.169, 0.171: codex-rs `tools/handlers/unified_exec`, the
// shell detection of `shell-command/shell_detect.rs`, each rule checked with the real CLIs). Its hook
// input carries only the command text (`tool_name: "Bash"`); every other argument is read back from the
// session transcript and understood here, or the call needs a person:
// - `workdir` is joined onto the turn's folder and `.`/`..` are taken away as text (both versions: the
//   hook's `cwd` and the command's `pwd` show `W/x` for `sub/../x`, whatever `sub` links to); a folder
//   the model chose is then judged like a file path (decide.ts);
// - `shell` only names the program's type (`bash` from `/x/bash`, `bash.exe`, …): Codex starts the login
//   shell when it is of that type, else the first `bash` on its PATH (a relative PATH folder is taken
//   from its own folder), else /bin/bash or /usr/bin/bash — never the named file (both versions: with
//   `shell: "W/tools/bash"` they ran /usr/bin/bash). Accepted only when that program is the very bash the
//   analysis assumes (same real path);
// - `login`/`tty` ask for profile scripts and a terminal Gatehouse's launch turns off (Codex refuses
//   them too), the other fields only shape output and Codex's own approvals.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod/mini";
import { findBash } from "../../executor/shells.js";
import type { ToolCall } from "./tool-call.js";
import { builtOnFirstUse, inputText, issueText, person } from "./tool-spec.js";

const opt = z.optional;

/** exec_command's arguments (its JSON schema sent to the model, 0.169 and 0.171). */
export const execCommandArgsSchema = builtOnFirstUse(() =>
  z.strictObject({
    cmd: z.string(),
    workdir: opt(z.string()),
    shell: opt(z.string()),
    login: opt(z.boolean()),
    tty: opt(z.boolean()),
    yield_time_ms: opt(z.number()),
    max_output_tokens: opt(z.number()),
    sandbox_permissions: opt(z.enum(["use_default", "require_escalated"])),
    justification: opt(z.string()),
    prefix_rule: opt(z.array(z.string())),
  }),
);
export type ExecCommandArgs = z.infer<ReturnType<typeof execCommandArgsSchema>>;

const WHAT = "runs a shell command";

/** Rust's `Path::join` then Codex's clean-up: an absolute workdir replaces the folder; `.`/`..` go as text. */
export function codexCommandFolder(turnCwd: string, workdir: string | undefined): string {
  if (workdir === undefined || workdir === "") return turnCwd;
  return path.posix.normalize(workdir.startsWith("/") ? workdir : `${turnCwd}/${workdir}`);
}

function sameFolder(a: string, b: string): boolean {
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, "") : p);
  return trim(a) === trim(b);
}

type ShellType = "zsh" | "sh" | "cmd" | "bash" | "powershell";

/** Codex's `detect_shell_type`: an exact name, else the file's stem (its name without the last extension). */
export function codexShellType(value: string): ShellType | null {
  switch (value) {
    case "zsh":
    case "sh":
    case "cmd":
    case "bash":
      return value;
    case "pwsh":
    case "powershell":
      return "powershell";
  }
  const name = value.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  return stem !== "" && stem !== value ? codexShellType(stem) : null;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** What Codex's `which` takes on PATH: an executable file. */
function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function realOf(file: string): string | null {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return null;
  }
}

export interface ShellLookup {
  /** Codex's own folder (where it takes a relative PATH folder from). */
  processCwd: string;
  /** Codex's PATH. */
  pathEnv: string | undefined;
  /** The user's login shell from the user database. */
  loginShell: string | null;
}

/** The bash Codex starts for a `shell` argument of type bash, or why none would start. */
export function codexBashProgram(lookup: ShellLookup): { program: string } | { unknown: string } {
  const login = lookup.loginShell;
  if (login && codexShellType(login) === "bash" && isFile(login)) return { program: login };
  for (const dir of (lookup.pathEnv ?? "").split(":")) {
    if (dir === "") continue;
    const candidate = path.resolve(lookup.processCwd, dir, "bash");
    if (isExecutableFile(candidate)) return { program: candidate };
  }
  for (const candidate of ["/bin/bash", "/usr/bin/bash"])
    if (isFile(candidate)) return { program: candidate };
  return { unknown: "Codex would find no bash for it" };
}

export function loginShellOfUser(): string | null {
  try {
    return os.userInfo().shell;
  } catch {
    return null;
  }
}

/** Why the `shell` argument is not the bash Gatehouse analyses commands for, or null when it is. */
async function shellProblem(value: string, lookup: ShellLookup): Promise<string | null> {
  if (codexShellType(value) !== "bash")
    return `it asks for the shell ${JSON.stringify(value)}, which is not bash`;
  const found = codexBashProgram(lookup);
  if ("unknown" in found) return `its shell ${JSON.stringify(value)} cannot be known: ${found.unknown}`;
  const assumed = await findBash();
  const real = realOf(found.program);
  if (assumed === null || real === null || real !== realOf(assumed)) {
    return `its shell ${JSON.stringify(value)} would start ${real ?? found.program}, not the bash Gatehouse analyses commands for (${assumed ?? "none on this machine"})`;
  }
  return null;
}

export interface ExecCommandContext {
  /** The command text of the hook input (Codex's `cmd`). */
  command: string;
  /** The folder the hook input says the command runs in. */
  hookCwd: string;
  /** The turn's folder the workdir is taken from. */
  turnCwd: string;
  shells: ShellLookup;
}

/** An exec_command call as a ToolCall, from the arguments in the transcript. */
export async function execCommandCall(args: unknown, ctx: ExecCommandContext): Promise<ToolCall> {
  const parsed = execCommandArgsSchema().safeParse(args);
  const input = inputText(args);
  if (!parsed.success) {
    const why = issueText(parsed.error.issues as unknown as Parameters<typeof issueText>[0]);
    return person("exec_command", WHAT, `${why}, so Gatehouse cannot tell all the call does`, args);
  }
  const call = parsed.data;
  if (call.cmd !== ctx.command) {
    return person(
      "exec_command",
      WHAT,
      "the command in Codex's transcript is not the one its hook shows",
      args,
    );
  }
  if (call.login === true || call.tty === true) {
    const what = call.login === true ? "a login shell (its profile scripts)" : "a terminal";
    return {
      kind: "refuse",
      reason: `Gatehouse runs commands without ${what}; run it again without "${call.login === true ? "login" : "tty"}".`,
    };
  }
  if (call.shell !== undefined) {
    const problem = await shellProblem(call.shell, ctx.shells);
    if (problem) return { kind: "person", tool: "exec_command", what: WHAT, reason: problem, input };
  }
  if (call.workdir === undefined || call.workdir === "") {
    return { kind: "command", command: call.cmd, cwd: ctx.hookCwd };
  }
  const folder = codexCommandFolder(ctx.turnCwd, call.workdir);
  if (!sameFolder(folder, ctx.hookCwd)) {
    return person(
      "exec_command",
      WHAT,
      `Codex says the command runs in ${ctx.hookCwd}, but its workdir ${JSON.stringify(call.workdir)} from ${ctx.turnCwd} is ${folder}`,
      args,
    );
  }
  return { kind: "command", command: call.cmd, cwd: ctx.hookCwd, cwdChosen: true };
}
