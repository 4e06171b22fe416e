// Which shell each agent runtime really runs a command string with (docs/decisions.md "The dialect the
// runtime really runs"), so the hook reads the string the way that shell will. One pure function per
// runtime, each a port of the runtime's own rule; what they cannot see (which files exist, and whether
// the agent could have added or removed one since the runtime chose) comes from a probe the caller
// passes. When the rule leaves more than one shell possible, every candidate is returned, likeliest
// first: the policy reads the string under each and keeps the strictest verdict.
import type { PosixShell } from "../policy/types.js";

/** A shell a runtime may run: one the analyser reads, one it does not read soundly, or an unknown program. */
export type AgentShell = PosixShell | "powershell" | "cmd" | "unknown";

/**
 * What a path holds, as the runtime would have found it when it chose its shell:
 * - `present`: an executable file, in folders only root can change (so it was there then too);
 * - `absent`: no executable file, in folders only root can change (so it was not there then either);
 * - `changeable`: either, or it could have changed since (a folder the user can write, a relative path).
 */
export type ShellFileState = "present" | "absent" | "changeable";
export type ShellProbe = (file: string) => ShellFileState;

export interface AgentShellInputs {
  /** The runtime's environment (the hook inherits it). */
  env: Readonly<Record<string, string | undefined>>;
  /** The user's login shell from the user database (getpwuid; `os.userInfo().shell`), null when none. */
  loginShell: string | null;
  platform: NodeJS.Platform;
  probe: ShellProbe;
}

/** One candidate of a runtime's ordered search: the shell it would be, and whether it is there (asked lazily). */
interface Candidate {
  shell: AgentShell;
  state: () => ShellFileState;
}

/**
 * Walks a runtime's ordered search the way it does (the first candidate that is there wins) over what
 * the probe can tell: a candidate that may or may not be there is possible and the search goes on.
 */
function possibleShells(candidates: readonly Candidate[]): AgentShell[] {
  const possible: AgentShell[] = [];
  for (const c of candidates) {
    const state = c.state();
    if (state === "absent") continue;
    if (!possible.includes(c.shell)) possible.push(c.shell);
    if (state === "present") return possible;
  }
  return possible;
}

function baseName(file: string): string {
  return file.replace(/^.*[\\/]/, "");
}

/** The shell a program is by its file name: `bash`, `rbash`, `bash5`, `bash-5.2` are bash; likewise zsh. */
function shellByName(file: string): AgentShell {
  const match = /^r?(bash|zsh)(?:-?\d+(?:\.\d+)*)?$/.exec(baseName(file));
  return match ? (match[1] as "bash" | "zsh") : "unknown";
}

/** How `which name` ends over PATH: found for sure, possibly found, or not found. */
function onPath(name: string, inputs: AgentShellInputs): ShellFileState {
  const sep = inputs.platform === "win32" ? ";" : ":";
  let state: ShellFileState = "absent";
  for (const dir of (inputs.env.PATH ?? "").split(sep)) {
    // a relative entry is taken from the runtime's own folder, which the hook cannot see
    const found = dir.startsWith("/") ? inputs.probe(`${dir.replace(/\/+$/, "")}/${name}`) : "changeable";
    if (found === "present") return "present";
    if (found === "changeable") state = "changeable";
  }
  return state;
}

/** Claude Code looks in these folders after PATH (2.1.197 and 2.1.332 alike). */
const CLAUDE_SHELL_FOLDERS = ["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"];

/**
 * Claude Code's search when `bashFirst` (or zsh first) once the named shells are not there: PATH, the
 * four folders for that shell, the four for the other, the other on PATH.
 */
function claudeSearch(bashFirst: boolean, inputs: AgentShellInputs): Candidate[] {
  const [first, second] = bashFirst ? (["bash", "zsh"] as const) : (["zsh", "bash"] as const);
  return [
    { shell: first, state: () => onPath(first, inputs) },
    ...[first, second].flatMap((name) =>
      CLAUDE_SHELL_FOLDERS.map((dir): Candidate => ({
        shell: name,
        state: () => inputs.probe(`${dir}/${name}`),
      })),
    ),
    { shell: second, state: () => onPath(second, inputs) },
  ];
}

/** A variable Claude Code tries first when its value names bash or zsh anywhere in it. */
function claudeNamed(value: string | undefined, inputs: AgentShellInputs): Candidate[] {
  if (value === undefined || !(value.includes("bash") || value.includes("zsh"))) return [];
  // not absolute: Claude Code runs `<value> --version` to see, which the hook cannot repeat
  const state = (): ShellFileState => (value.startsWith("/") ? inputs.probe(value) : "changeable");
  return [{ shell: shellByName(value), state }];
}

/**
 * Claude Code (2.1.197 and 2.1.332, read from their bundles and run): the first of CLAUDE_CODE_SHELL and
 * SHELL whose value contains "bash" or "zsh" and that runs; else bash or zsh from PATH and the usual
 * folders, zsh first unless SHELL names bash (2.1.332 looks at SHELL's file name first, 2.1.197 at the
 * whole value: where they differ, both orders count). It never runs sh or anything else by itself. On
 * Windows it runs Git Bash, which this port does not cover: every candidate is unknown there.
 */
export function claudeCodeShells(inputs: AgentShellInputs): AgentShell[] {
  if (inputs.platform === "win32") return ["unknown"];
  const shell = inputs.env.SHELL ?? "";
  const named = [
    ...claudeNamed(inputs.env.CLAUDE_CODE_SHELL, inputs),
    ...claudeNamed(inputs.env.SHELL, inputs),
  ];
  const base = baseName(shell).replace(/\.exe$/i, "");
  const byName = [base, shell].map((t) => (t.includes("zsh") ? "zsh" : t.includes("bash") ? "bash" : null));
  const newer = (byName[0] ?? byName[1]) === "bash"; // 2.1.332
  const older = shell.includes("bash"); // 2.1.197
  const orders = newer === older ? [newer] : [newer, older];
  const possible: AgentShell[] = [];
  for (const bashFirst of orders)
    for (const s of possibleShells([...named, ...claudeSearch(bashFirst, inputs)]))
      if (!possible.includes(s)) possible.push(s);
  // nothing there at all: Claude Code refuses to start a command ("No suitable shell found")
  return possible.length > 0 ? possible : ["bash"];
}

/** Codex's name for a shell program (detect_shell_type): its file name without an extension. */
function codexShellType(file: string): AgentShell | null {
  const stem = baseName(file).replace(/\.[^.]*$/, "");
  switch (stem) {
    case "zsh":
    case "bash":
    case "sh":
      return stem;
    case "pwsh":
    case "powershell":
      return "powershell";
    case "cmd":
      return "cmd";
    default:
      return null;
  }
}

/** Whether Codex finds `name` (its user's shell of that type, PATH, then `/bin/<name>`). */
function codexFinds(name: "bash" | "zsh" | "sh", inputs: AgentShellInputs): ShellFileState {
  const path = onPath(name, inputs);
  if (path === "present") return "present";
  const fixed = inputs.probe(`/bin/${name}`);
  if (fixed === "present") return "present";
  return path === "changeable" || fixed === "changeable" ? "changeable" : "absent";
}

/**
 * Codex (0.169.0 and 0.171.0, read from codex-rs `shell.rs` and run): on Windows PowerShell (else
 * cmd.exe); elsewhere the user's login shell from the user database — never `SHELL` — when its file name
 * is zsh, bash, sh or pwsh; otherwise bash (zsh first on macOS), then zsh, then /bin/sh. A `shell`
 * argument the model gives a call is the call's business (cli/hook/codex.ts), not this default.
 */
export function codexShells(inputs: AgentShellInputs): AgentShell[] {
  if (inputs.platform === "win32") return ["powershell", "cmd"];
  const login = inputs.loginShell ? codexShellType(inputs.loginShell) : null;
  if (login) return [login];
  const order = inputs.platform === "darwin" ? (["zsh", "bash"] as const) : (["bash", "zsh"] as const);
  const possible = possibleShells([
    ...order.map((name): Candidate => ({ shell: name, state: () => codexFinds(name, inputs) })),
    { shell: "sh", state: () => "present" }, // the last resort is /bin/sh, found or not
  ]);
  return possible;
}

/** The candidates as the policy reads them, or null when one of them is a shell it cannot read soundly. */
export function posixCandidates(shells: readonly AgentShell[]): PosixShell[] | null {
  const posix = shells.filter((s): s is PosixShell => s === "bash" || s === "sh" || s === "zsh");
  return posix.length === shells.length && posix.length > 0 ? posix : null;
}
