// What the analyser knows about particular commands: dispatch wrappers and their options, shells that
// run a `-c` script, interpreters that take inline code, shell builtins that are not executables, and
// variables whose assignment changes what a command runs (exec-policy.md "Analysing a command").
import { requestVariableChangesWhatRuns } from "../env-rules.js";

/** One word of a command line: its value after quote removal, or its source text when it has expansions. */
export interface Arg {
  value: string;
  /** False when the word has expansions or globs: `value` is then only a placeholder (its source text). */
  literal: boolean;
}

/** The command name a rule keys on: last path segment, lower-cased on Windows and without `.exe`. */
export function commandBaseName(word: string, platform: NodeJS.Platform): string {
  const last = word.split(platform === "win32" ? /[\\/]/ : /\//).pop() ?? word;
  if (platform !== "win32") return last;
  return last.toLowerCase().replace(/\.(exe|com|cmd|bat)$/, "");
}

export type WrapperUnwrap =
  | {
      kind: "inner";
      innerIndex: number;
      pathOverride?: string;
      chdir?: string;
      assignments: string[];
      writes?: string;
    }
  | { kind: "none"; assignments: string[]; writes?: string }
  | { kind: "opaque"; why: string };

export const DISPATCH_WRAPPERS = new Set([
  "env",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "time",
  "command",
  "xargs",
]);

/** The default PATH execvp uses when PATH is unset (`env -i`, `command -p`). */
export const DEFAULT_EXEC_PATH = "/usr/bin:/bin";

const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Finds the command a dispatch wrapper starts. `args[0]` is the wrapper. Options are read the way GNU
 * coreutils and the shells read them; anything not understood makes the wrapper `opaque` (flagged).
 */
export function unwrapDispatch(name: string, args: Arg[]): WrapperUnwrap {
  const words = args.map((a) => a.value);
  const assignments: string[] = [];
  let i = 1;
  /** An option that takes a value (`-o F`, `-oF`, `--output F`, `--output=F`): consumes it, or null. */
  const optionValue = (short: string[], long: string[]): { value: string | undefined } | null => {
    const w = words[i] as string;
    if (short.includes(w) || long.includes(w)) {
      const value = words[i + 1];
      i += 2;
      return { value };
    }
    const glued = short.find((s) => w.startsWith(s) && w.length > s.length);
    const assigned = long.find((l) => w.startsWith(`${l}=`));
    if (glued !== undefined || assigned !== undefined) {
      i += 1;
      return {
        value: glued !== undefined ? w.slice(glued.length) : w.slice((assigned as string).length + 1),
      };
    }
    return null;
  };
  const done = (
    extra: Partial<{ pathOverride: string; chdir: string; writes: string }> = {},
  ): WrapperUnwrap => {
    if (i >= args.length)
      return { kind: "none", assignments, ...(extra.writes ? { writes: extra.writes } : {}) };
    return { kind: "inner", innerIndex: i, assignments, ...extra };
  };
  for (const a of args.slice(1)) {
    if (!a.literal && a.value.startsWith("-"))
      return { kind: "opaque", why: `${name} has an option that is not a literal word` };
  }
  switch (name) {
    case "env": {
      let pathOverride: string | undefined;
      let chdir: string | undefined;
      let option: { value: string | undefined } | null;
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (w === "-" || w === "-i" || w === "--ignore-environment") {
          pathOverride ??= DEFAULT_EXEC_PATH;
          i++;
        } else if (w === "-0" || w === "--null" || w === "-v" || w === "--debug") i++;
        else if ((option = optionValue(["-u"], ["--unset"]))) {
          if (option.value === "PATH") pathOverride = DEFAULT_EXEC_PATH;
        } else if ((option = optionValue(["-C"], ["--chdir"]))) {
          chdir = option.value;
        } else if (w === "-S" || w.startsWith("-S") || w.startsWith("--split-string")) {
          return { kind: "opaque", why: "env -S splits a string into a command that is not analysed" };
        } else if (/^--(block|default|ignore)-signal/.test(w) || w === "--list-signal-handling") i++;
        else if (w.startsWith("-")) return { kind: "opaque", why: `env option ${w} is not understood` };
        else if (ASSIGNMENT_WORD.test(w)) {
          assignments.push(w);
          if (w.startsWith("PATH=")) pathOverride = w.slice(5);
          i++;
        } else break;
      }
      return done({
        ...(pathOverride !== undefined ? { pathOverride } : {}),
        ...(chdir !== undefined ? { chdir } : {}),
      });
    }
    case "nice":
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (optionValue(["-n"], ["--adjustment"])) continue;
        if (/^-[-+]?\d+$/.test(w)) i++;
        else if (w.startsWith("-")) return { kind: "opaque", why: `nice option ${w} is not understood` };
        else break;
      }
      return done();
    case "nohup":
      if (words[i] === "--") i++;
      return done();
    case "timeout": {
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (optionValue(["-k", "-s"], ["--kill-after", "--signal"])) continue;
        if (["-v", "--verbose", "--foreground", "--preserve-status", "-f", "-p"].includes(w)) i++;
        else if (w.startsWith("-")) return { kind: "opaque", why: `timeout option ${w} is not understood` };
        else break;
      }
      if (i >= words.length) return done();
      i++; // the duration
      return done();
    }
    case "stdbuf":
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (optionValue(["-i", "-o", "-e"], ["--input", "--output", "--error"])) continue;
        if (w.startsWith("-")) return { kind: "opaque", why: `stdbuf option ${w} is not understood` };
        break;
      }
      return done();
    case "command": {
      let pathOverride: string | undefined;
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (/^-[pvV]+$/.test(w)) {
          if (/[vV]/.test(w)) return { kind: "none", assignments }; // only describes the command
          pathOverride = DEFAULT_EXEC_PATH;
          i++;
        } else if (w.startsWith("-")) return { kind: "opaque", why: `command option ${w} is not understood` };
        else break;
      }
      return done(pathOverride !== undefined ? { pathOverride } : {});
    }
    case "time": {
      let writes: string | undefined;
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        const output = optionValue(["-o"], ["--output"]);
        if (output) {
          writes = output.value;
          continue;
        }
        if (optionValue(["-f"], ["--format"])) continue;
        if (["-p", "--portability", "-v", "--verbose", "-a", "--append", "-q", "--quiet"].includes(w)) i++;
        else if (w.startsWith("-")) return { kind: "opaque", why: `time option ${w} is not understood` };
        else break;
      }
      return done(writes !== undefined ? { writes } : {});
    }
    case "xargs":
      while (i < words.length) {
        const w = words[i] as string;
        if (w === "--") {
          i++;
          break;
        }
        if (
          optionValue(
            ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"],
            [
              "--arg-file",
              "--delimiter",
              "--max-lines",
              "--max-args",
              "--max-procs",
              "--max-chars",
              "--process-slot-var",
            ],
          )
        )
          continue;
        if (
          /^-[0prtx]+$/.test(w) ||
          /^-[eil]/.test(w) ||
          /^--(null|interactive|no-run-if-empty|verbose|exit|show-limits|eof|replace)/.test(w)
        )
          i++;
        else if (w.startsWith("-")) return { kind: "opaque", why: `xargs option ${w} is not understood` };
        else break;
      }
      return done();
    default:
      return { kind: "none", assignments };
  }
}

/** Shells whose `-c` script is parsed and analysed like the command line itself. */
export const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox-sh"]);
/** Shells whose `-c` script cannot be analysed here (different syntax): treated as inline code. */
export const OTHER_SHELLS = new Set(["fish", "csh", "tcsh", "nu", "elvish", "xonsh"]);

export type ShellInvocation =
  | { kind: "script"; scriptIndex: number }
  | { kind: "file" } // runs a script file
  | { kind: "stdin" } // reads its commands from standard input (`curl … | sh`, `bash <<EOF`)
  | { kind: "missing" };

/** Finds the `-c` script of a POSIX shell invocation (`bash -lc 'x'`, `sh -e -c 'x' name`). */
export function shellInvocation(args: Arg[]): ShellInvocation {
  let command = false;
  let stdin = false;
  let i = 1;
  while (i < args.length) {
    const w = (args[i] as Arg).value;
    if (w === "--" || w === "-") {
      i++;
      break;
    }
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(w)) {
      i += 2;
      continue;
    }
    if (w.startsWith("--")) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(w)) {
      if (w.startsWith("-") && w.includes("c")) command = true;
      if (w.startsWith("-") && w.includes("s")) stdin = true;
      i++;
      continue;
    }
    break;
  }
  if (command) return i < args.length ? { kind: "script", scriptIndex: i } : { kind: "missing" };
  return stdin || i >= args.length ? { kind: "stdin" } : { kind: "file" };
}

/**
 * The inline program an interpreter is given on its command line (`python -c`, `node -e`, `perl -e`,
 * an awk program, `osascript -e`, `powershell -Command`…), or null.
 */
export function inlineCodeOf(name: string, args: Arg[]): { flag: string } | null {
  const words = args.slice(1).map((a) => a.value);
  const firstOperand = (takesValue: (w: string) => boolean): number => {
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      if (w === "--") return i + 1;
      if (!w.startsWith("-") || w === "-") return i;
      if (takesValue(w)) i++;
    }
    return words.length;
  };
  const optionBefore = (test: (w: string) => boolean, takesValue: (w: string) => boolean = () => false) =>
    words.slice(0, firstOperand(takesValue)).some(test);

  if (/^python[0-9.]*$/.test(name) || name === "pypy" || name === "pypy3") {
    if (
      optionBefore(
        (w) => /^-[A-Za-z]*c/.test(w) && !w.startsWith("--"),
        (w) => /^-[A-Za-z]*[mWX]$/.test(w),
      )
    )
      return { flag: `${name} -c runs inline code` };
    return null;
  }
  if (name === "node" || name === "nodejs" || name === "bun") {
    if (optionBefore((w) => /^(-[a-z]*[ep]|--eval|--print)(=|$)/.test(w) || /^-[a-z]*[ep][a-z]*$/.test(w)))
      return { flag: `${name} -e runs inline code` };
    return null;
  }
  if (name === "deno") return words[0] === "eval" ? { flag: "deno eval runs inline code" } : null;
  if (/^perl[0-9.]*$/.test(name)) {
    if (optionBefore((w) => /^-[acdlnpsStTuUwWX0-9]*[eE]/.test(w)))
      return { flag: `${name} -e runs inline code` };
    return null;
  }
  if (/^ruby[0-9.]*$/.test(name)) {
    if (optionBefore((w) => /^-[acdlnpsSwWv0-9]*e/.test(w))) return { flag: `${name} -e runs inline code` };
    return null;
  }
  if (["awk", "gawk", "mawk", "nawk", "busybox-awk"].includes(name)) {
    const valueOptions = (w: string) =>
      ["-F", "-v", "-f", "--file", "--assign", "--field-separator"].includes(w);
    if (words.some((w) => w === "-f" || w === "--file" || w.startsWith("--file="))) return null;
    if (firstOperand(valueOptions) < words.length)
      return { flag: `${name} runs the program given on its command line` };
    return null;
  }
  if (name === "osascript") return words.includes("-e") ? { flag: "osascript -e runs inline script" } : null;
  if (name === "powershell" || name === "pwsh") {
    const commandOption = (w: string) =>
      /^[-/](c|co|com|comm|comma|comman|command|e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedcommand)$/i.test(
        w,
      );
    if (words.some(commandOption)) return { flag: `${name} -Command runs inline code` };
    if (name === "powershell" && words.some((w) => !w.startsWith("-"))) {
      return { flag: "powershell runs its arguments as a command" };
    }
    return null;
  }
  if (name === "php") return optionBefore((w) => w === "-r") ? { flag: "php -r runs inline code" } : null;
  if (name === "lua" || name === "luajit")
    return optionBefore((w) => w === "-e") ? { flag: `${name} -e runs inline code` } : null;
  if (name === "rscript" || name === "Rscript" || name === "R") {
    return words.some((w) => w === "-e" || w.startsWith("--expr"))
      ? { flag: `${name} -e runs inline code` }
      : null;
  }
  if (name === "julia") {
    return optionBefore((w) => ["-e", "-E", "--eval", "--print"].includes(w))
      ? { flag: "julia -e runs inline code" }
      : null;
  }
  if (OTHER_SHELLS.has(name)) {
    return optionBefore((w) => /^-[A-Za-z]*c/.test(w))
      ? { flag: `${name} -c runs a script that is not analysed` }
      : null;
  }
  return null;
}

/** Interpreters that read a program from standard input when given no script (`python3 - <<EOF`). */
export function readsProgramFromStdin(name: string, args: Arg[]): boolean {
  const python = /^python[0-9.]*$/.test(name) || name === "pypy" || name === "pypy3";
  const others =
    ["node", "nodejs", "php", "lua", "luajit"].includes(name) || /^(perl|ruby)[0-9.]*$/.test(name);
  if (!python && !others) return false;
  const words = args.slice(1).map((a) => a.value);
  const info = python ? ["-V", "--version", "-h", "--help"] : ["-v", "-V", "--version", "-h", "--help"];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (w === "-") return true;
    if (w === "--") return i + 1 >= words.length;
    if (info.includes(w)) return false;
    if (!w.startsWith("-")) return false; // a script file (or, for python -m, a module)
    if (python && /^-[A-Za-z]*[mc]/.test(w)) return false;
    if (python && /^-[A-Za-z]*[WX]$/.test(w)) i++; // options that take a value
  }
  return true;
}

/** Options of git that make it run commands named in configuration (aliases, pagers, ssh, hooks). */
export function gitConfigOverride(args: Arg[]): string | null {
  for (let i = 1; i < args.length; i++) {
    const w = (args[i] as Arg).value;
    if (w === "-c" || w.startsWith("--config-env") || w.startsWith("--exec-path")) {
      return `git ${w.startsWith("--") ? w.split("=")[0] : w} can make git run other commands (aliases, pagers, ssh)`;
    }
    if (w === "-C" || w === "--git-dir" || w === "--work-tree" || w === "--namespace") {
      i++;
      continue;
    }
    if (!w.startsWith("-")) return null; // the subcommand
  }
  return null;
}

/** The commands `find` runs for each file: `-exec cmd … ;` and friends. */
export function findExecCommands(args: Arg[]): Arg[][] {
  const commands: Arg[][] = [];
  for (let i = 1; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes((args[i] as Arg).value)) continue;
    const start = i + 1;
    let end = start;
    while (end < args.length && ![";", "+"].includes((args[end] as Arg).value)) end++;
    if (end > start) commands.push(args.slice(start, end));
    i = end;
  }
  return commands;
}

/**
 * Builtins of bash with no executable twin that behaves the same: under a shell they can change what
 * later commands do (cd, export, alias, trap…), so they never resolve to a file and a person decides.
 * (echo, printf, test, [, true, false, pwd and kill do resolve: their executables behave alike.)
 */
// prettier-ignore
export const SHELL_ONLY_BUILTINS = new Set([
  "alias", "bg", "bind", "break", "builtin", "caller", "cd", "compgen", "complete", "compopt", "continue",
  "declare", "dirs", "disown", "enable", "eval", "exec", "exit", "export", "fc", "fg", "getopts", "hash",
  "help", "history", "jobs", "let", "local", "logout", "mapfile", "popd", "pushd", "read", "readarray",
  "readonly", "return", "set", "shift", "shopt", "source", ".", "suspend", "times", "trap", "type",
  "typeset", "ulimit", "umask", "unalias", "unset", "wait", ":",
]);

export const DECLARATION_BUILTINS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/**
 * Variables whose assignment changes which code a command runs: the design's list (PATH, LD_*, DYLD_*,
 * NODE_OPTIONS, PYTHONPATH) plus their close relatives (docs/decisions.md).
 */
export function dangerousVariable(name: string): boolean {
  if (requestVariableChangesWhatRuns(name)) return true; // BASH_FUNC_…%%, POSIXLY_CORRECT, HOME, … (core/env-rules.ts)
  if (/^(LD_|DYLD_)/.test(name)) return true;
  if (/^GIT_CONFIG/.test(name)) return true;
  return DANGEROUS_VARIABLES.has(name);
}

// prettier-ignore
const DANGEROUS_VARIABLES = new Set([
  "PATH", "NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "PERLLIB",
  "RUBYOPT", "RUBYLIB", "NODE_PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
  "IFS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
  "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER",
  "MANPAGER", "LESSOPEN", "LESSCLOSE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
]);
