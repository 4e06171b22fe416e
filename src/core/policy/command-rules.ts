// What the analyser knows about command names outside the tool table (tool-table.ts): how rules key on a
// name, which shell builtins have no executable twin, and the inline-code rules of interpreters whose
// syntax is not POSIX (PowerShell, R, Julia, fish and csh).

import type { Arg } from "./option-scan.js";

export type { Arg };

/** The command name a rule keys on: last path segment, lower-cased on Windows and without `.exe`. */
export function commandBaseName(word: string, platform: NodeJS.Platform): string {
  if (platform !== "win32") return word.slice(word.lastIndexOf("/") + 1);
  const last = word.split(/[\\/]/).pop() ?? word;
  return last.toLowerCase().replace(/\.(exe|com|cmd|bat)$/, "");
}

/** Shells whose `-c` script cannot be analysed here (different syntax): treated as inline code. */
export const OTHER_SHELLS = new Set(["fish", "csh", "tcsh", "nu", "elvish", "xonsh"]);

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

export { dangerousVariable } from "./variables.js";
