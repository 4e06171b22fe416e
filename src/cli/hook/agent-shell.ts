// The shell the hook's runtime runs a command with (docs/decisions.md "The dialect the runtime really
// runs"): the runtime's own rule (core/runtime/agent-shell.ts) fed with what it needs from this machine —
// the user's login shell from the user database, and whether a shell path holds an executable file and
// could have changed since the runtime chose its shell. Only folders nobody but root can change (owned by
// root, not writable by group or others, all the way up) keep a presence or an absence fixed; anywhere
// else the agent could have added or removed the file since, so it is `changeable`. Synchronous: a
// handful of metadata calls per hook run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  claudeCodeShells,
  codexShells,
  posixCandidates,
  type AgentShell,
  type ShellFileState,
  type ShellProbe,
} from "../../core/runtime/agent-shell.js";
import type { PosixShell } from "../../core/policy/types.js";

/** How the hook reads the runtime's command strings: under these shells, or not at all (and why). */
export type AgentShellReading = { posixShells: PosixShell[] } | { unreadable: string };

const SHELL_WORDS: Record<Exclude<AgentShell, PosixShell>, string> = {
  powershell: "PowerShell",
  cmd: "cmd.exe",
  unknown: "a program Gatehouse does not know as bash or zsh",
};

/** The shells `runtime` may run this hook's commands with, read from its environment and this machine. */
export function agentShellReading(
  runtime: "claude" | "codex",
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): AgentShellReading {
  const inputs = {
    env,
    loginShell: runtime === "codex" ? loginShellOfUser() : null,
    platform,
    probe: shellProbe(),
  };
  const shells = runtime === "claude" ? claudeCodeShells(inputs) : codexShells(inputs);
  const posix = posixCandidates(shells);
  if (posix) return { posixShells: posix };
  const agent = runtime === "claude" ? "Claude Code" : "Codex";
  const others = shells.filter((s): s is Exclude<AgentShell, PosixShell> => s in SHELL_WORDS);
  return {
    unreadable: `${agent} may run this command with ${others.map((s) => SHELL_WORDS[s]).join(" or ")}, which Gatehouse cannot read safely`,
  };
}

const ROOT = 0;
const WRITABLE_BY_OTHERS = 0o022;

/** A probe with its own memo of folders (one hook run asks about the same folders several times). */
export function shellProbe(): ShellProbe {
  const fixedFolders = new Map<string, boolean>();

  /** Whether only root can change what this existing folder (a real path) and every folder above hold. */
  const onlyRootChanges = (real: string): boolean => {
    const known = fixedFolders.get(real);
    if (known !== undefined) return known;
    let fixed: boolean;
    try {
      const stat = fs.statSync(real);
      fixed =
        stat.uid === ROOT &&
        (stat.mode & WRITABLE_BY_OTHERS) === 0 &&
        (path.dirname(real) === real || onlyRootChanges(path.dirname(real)));
    } catch {
      fixed = false;
    }
    fixedFolders.set(real, fixed);
    return fixed;
  };

  /** The nearest folder of `dir` that exists, as a real path; null when none can be read. */
  const nearestFolder = (dir: string): string | null => {
    for (let d = dir; ; d = path.dirname(d)) {
      try {
        return fs.realpathSync.native(d);
      } catch {
        if (path.dirname(d) === d) return null;
      }
    }
  };

  return (file: string): ShellFileState => {
    if (!path.isAbsolute(file)) return "changeable";
    let real: string;
    try {
      real = fs.realpathSync.native(file);
    } catch {
      // missing (or a dangling link): absent for good only where nobody but root could create it
      const folder = nearestFolder(path.dirname(file));
      return folder !== null && onlyRootChanges(folder) && !isLink(file) ? "absent" : "changeable";
    }
    const fixed = onlyRootChanges(path.dirname(file)) && onlyRootChanges(path.dirname(real));
    if (!fixed) return "changeable";
    try {
      fs.accessSync(real, fs.constants.X_OK);
      return fs.statSync(real).isFile() ? "present" : "absent";
    } catch {
      return "absent";
    }
  };
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The user's login shell from the user database (getpwuid), as Codex reads it; null when there is none. */
export function loginShellOfUser(): string | null {
  try {
    return os.userInfo().shell ?? null;
  } catch {
    return null; // no entry for this uid
  }
}
