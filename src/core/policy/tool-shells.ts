// Shells: `sh -c SCRIPT` runs SCRIPT, which is parsed and analysed like the command line itself (in the
// shell's own dialect: a bash-only construct in a script dash runs is not understood); a shell reading
// its commands from standard input runs something nobody can see in advance.
import { scanOptions, type Arg, type OptionSpec, type OptionTable } from "./option-scan.js";
import {
  addEffects,
  addProblems,
  ALLOWED_SET_O,
  ALLOWED_SHOPT,
  emptyReading,
  readsAStream,
  readsStdin,
  type Dialect,
  type ToolReading,
} from "./tool-readings.js";

const SHELL_DIALECT: Record<string, Dialect> = {
  bash: "bash",
  sh: "sh",
  dash: "sh",
  ash: "sh",
  ksh: "sh",
  mksh: "sh",
  "busybox-sh": "sh",
  zsh: "zsh",
};
export const SHELLS = new Set([...Object.keys(SHELL_DIALECT), "busybox"]);

const runs = (detail: string): OptionSpec => ({
  value: true,
  writesValue: true, // `--rcfile /dev/null` reads nothing
  effect: { kind: "tool-option", detail },
});

const inert = (letters: string): Record<string, OptionSpec> =>
  Object.fromEntries([...letters].map((l) => [l, {}]));

const SHELL_OPTIONS: OptionTable = {
  short: {
    ...inert("abefhmnptuvxBCEHPilr"),
    c: {},
    s: {},
    o: { value: true },
    O: { value: true },
  },
  long: {
    "--rcfile": runs("the shell runs the commands in {} first"),
    "--init-file": runs("the shell runs the commands in {} first"),
    "--login": {},
    "--noediting": {},
    "--noprofile": {},
    "--norc": {},
    "--restricted": {},
    "--verbose": {},
    "--version": {},
    "--help": {},
  },
  plusOptions: true,
  other: "prompt",
};

export function readShell(name: string, args: readonly Arg[], stdin: string | null = null): ToolReading {
  if (name === "busybox") {
    const applet = args[1];
    if (applet?.literal && ["sh", "ash", "hush"].includes(applet.value))
      return readShell("busybox-sh", args.slice(1), stdin);
    const reading = emptyReading();
    addEffects(reading, [
      {
        kind: "tool-option",
        detail: `busybox runs its applet ${applet?.value ?? "(none)"}, which is not analysed`,
      },
    ]);
    return reading;
  }
  const dialect = SHELL_DIALECT[name] ?? "sh";
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, SHELL_OPTIONS);
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  const letters = scan.options.map((o) => o.name);
  for (const option of scan.options) {
    const value = option.value?.value ?? "";
    if (option.name === "o" && !ALLOWED_SET_O.has(value))
      reading.flags.push({
        kind: "tool-option",
        detail: `${name} -o ${value} changes how the shell reads or runs commands`,
      });
    if (option.name === "O" && !ALLOWED_SHOPT.has(value))
      reading.flags.push({
        kind: "tool-option",
        detail: `${name} -O ${value} changes how the shell reads or runs commands`,
      });
  }
  if (reading.flags.some((f) => f.kind === "tool-option")) reading.inlineCode = true;
  const onlyAsks = scan.options.some((o) => o.name === "--version" || o.name === "--help");
  const operand = args[scan.end];
  if (letters.includes("c")) {
    if (!operand) return reading; // bash reports the missing script
    if (!operand.literal) {
      reading.flags.push({
        kind: "dynamic-command",
        detail: `the script of ${name} -c is not a literal string`,
      });
      reading.unknowable = true;
    } else {
      reading.scripts.push({ text: operand.value, dialect, context: `${name} -c` });
    }
    return reading;
  }
  if (onlyAsks) return reading;
  const fromStdin = letters.includes("s") || !operand || readsStdin(operand);
  if (fromStdin && stdin !== null) {
    // the commands are in a here-document of the command line itself: analysed like `-c`
    reading.scripts.push({ text: stdin, dialect, context: `${name} <<here-document` });
    return reading;
  }
  if (fromStdin || readsAStream(operand)) {
    reading.flags.push({
      kind: "dynamic-command",
      detail: `${name} reads its commands from standard input, which cannot be analysed`,
    });
    reading.unknowable = true;
  }
  return reading;
}
