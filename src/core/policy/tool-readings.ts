// What reading one command line tells the analyser (tool-table.ts): flags, the commands it starts, the
// shell scripts it runs, the variables it sets. Shared vocabulary of the table and the walker.
import { scanOptions, type Arg, type Effect, type OptionTable, type Scan } from "./option-scan.js";
import type { FlagKind } from "./types.js";

/** Which shell reads a script: bash (what Gatehouse runs), POSIX sh (dash, ash…) or zsh. */
export type Dialect = "bash" | "sh" | "zsh";

export interface Finding {
  kind: FlagKind;
  detail: string;
}

export interface InnerCommand {
  args: Arg[];
  context: string;
  /** Started by a shell builtin (`command x`), so a bare name may be a builtin too. */
  viaShell?: boolean;
  /** PATH set for it (`env PATH=… x`, `env -i x`, `command -p x`). */
  pathOverride?: string;
  /** Folder it starts in, relative to the command's (`env -C dir x`). */
  chdir?: string;
}

export interface ToolReading {
  flags: Finding[];
  /** Commands it starts, each a segment of its own that must be covered too. */
  inner: InnerCommand[];
  /** Shell scripts it runs (`sh -c`, `watch`, `flock -c`, `trap`). */
  scripts: { text: string; dialect: Dialect; context: string; sameShell?: boolean }[];
  /** A shell builtin that runs nothing and is covered without an entry: why it is harmless. */
  builtin?: string;
  /** It runs code given on its command line: only an entry with an argPattern covers it. */
  inlineCode?: boolean;
  /** Nothing exact can be granted for it (a program read from standard input, an opaque wrapper). */
  unknowable?: boolean;
  /** A `cd` and the like: later commands of this shell run in a folder only known when it runs. */
  changesFolder?: boolean;
  /** Where it moves (for the read rule, file-reads.ts, which works out the folders a command may run in). */
  movesTo?: FolderMove;
}

/**
 * A move of the working folder: to the folder a word names, to the home folder, back to a folder the
 * shell was in before (popd), or somewhere not known before it runs (`cd -`).
 */
export type FolderMove = Arg | "home" | "back" | "unknown";

export function emptyReading(): ToolReading {
  return { flags: [], inner: [], scripts: [] };
}

/** Effects of options become findings; coverable kinds mark the segment as inline code. */
export function addEffects(reading: ToolReading, effects: readonly Effect[]): void {
  for (const effect of effects) {
    reading.flags.push({ kind: effect.kind, detail: effect.detail });
    if (effect.kind === "inline-code" || effect.kind === "tool-option") reading.inlineCode = true;
  }
}

export function addProblems(reading: ToolReading, problems: readonly string[]): void {
  for (const problem of problems) reading.flags.push({ kind: "dynamic-argument", detail: problem });
}

/** A word standing for what xargs, find -exec or fd -x fill in when they run: any words at all. */
/** A command line read by an option table: what needs a person (its problems and effects), and the scan. */
export function readByTable(
  name: string,
  args: readonly Arg[],
  table: OptionTable,
): { reading: ToolReading; scan: Scan } {
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, table);
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  return { reading, scan };
}

export const FILLED_IN_LATER: Arg = { value: "…", literal: false, splits: true, mayBeOption: true };

/** `set -o` names that change nothing about what runs or how the script is read. */
export const ALLOWED_SET_O = new Set([
  "errexit",
  "nounset",
  "pipefail",
  "xtrace",
  "verbose",
  "noglob",
  "noclobber",
  "allexport",
  "hashall",
  "braceexpand",
  "physical",
  "errtrace",
  "functrace",
  "notify",
  "onecmd",
  "noexec",
  "nolog",
  "monitor",
  "ignoreeof",
  "interactive-comments",
]);

/** `shopt` names that change nothing about what runs (aliases, for one, are not among them). */
export const ALLOWED_SHOPT = new Set([
  "nullglob",
  "globstar",
  "dotglob",
  "failglob",
  "nocaseglob",
  "nocasematch",
  "extglob",
  "globasciiranges",
  "inherit_errexit",
  "lastpipe",
  "checkwinsize",
  "cmdhist",
  "histappend",
]);

/** A path that names standard input itself. */
export function readsStdin(arg: Arg): boolean {
  return arg.literal && /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(arg.value);
}

/** A path that is a stream rather than a file: a program "read" from it is whatever arrives there. */
export function readsAStream(arg: Arg): boolean {
  return arg.literal && /^(-|\/dev\/(stdin|fd\/\d+|tty)|\/proc\/[^/]+\/fd\/\d+)$/.test(arg.value);
}
