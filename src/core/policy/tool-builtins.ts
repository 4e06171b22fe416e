// Shell builtins that run no program and change nothing about what later commands run — `cd`, `export
// NAME=value` with a harmless name, `set -e` — are covered by the analysis itself (no allowlist entry can
// name them: they are not files). Their arguments are still read: `export PATH=…`, `declare -i`,
// `set -o posix`, `shopt -s expand_aliases` are not harmless, and then a person decides.
import { scanOptions, type Arg, type OptionSpec } from "./option-scan.js";
import {
  addProblems,
  type FolderMove,
  ALLOWED_SET_O,
  ALLOWED_SHOPT,
  emptyReading,
  type Dialect,
  type ToolReading,
} from "./tool-readings.js";
import { judgeVariable } from "./variables.js";

export const COVERED_BUILTINS = new Set([
  "cd",
  "pushd",
  "popd",
  "dirs",
  ":",
  "export",
  "unset",
  "local",
  "declare",
  "typeset",
  "readonly",
  "set",
  "shopt",
  "shift",
  "exit",
  "return",
  "break",
  "continue",
  "wait",
  "read",
  "type",
  "trap",
]);

const NAME_OPERAND = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=.*)?$/s;

function judgeNames(builtin: string, operands: Arg[], reading: ToolReading): void {
  for (const operand of operands) {
    if (!operand.literal) {
      reading.flags.push({
        kind: "dynamic-argument",
        detail: `${builtin} ${operand.value}: a name known only when it runs`,
      });
      continue;
    }
    const m = NAME_OPERAND.exec(operand.value);
    if (!m) {
      reading.flags.push({
        kind: "expansion",
        detail: `${builtin} ${operand.value}: only plain names are analysed (a subscript is arithmetic)`,
      });
      continue;
    }
    const verdict = judgeVariable(m[1] as string);
    if (!verdict.ok)
      reading.flags.push({ kind: "dangerous-assignment", detail: `${builtin} sets ${m[1]}: ${verdict.why}` });
  }
}

/** Where cd, pushd or popd moves to: a folder word, the home folder, back to one seen before, or unknown. */
function folderMove(name: string, operands: readonly Arg[]): FolderMove {
  if (name === "popd") return "back";
  const [target, ...rest] = operands;
  if (rest.length > 0) return "unknown"; // zsh's `cd old new`; bash refuses it
  if (!target) return name === "cd" ? "home" : "back";
  if (target.literal && target.value === "-") return "unknown"; // $OLDPWD, from before the command
  if (name === "pushd" && target.literal && /^[+-]\d+$/.test(target.value)) return "back";
  return target;
}

export function readBuiltin(name: string, args: readonly Arg[], dialect: Dialect): ToolReading {
  const reading = emptyReading();
  reading.builtin = `${name} is a shell builtin that runs no program`;
  const words = args.slice(1);
  switch (name) {
    case "cd":
    case "pushd":
    case "popd": {
      const scan = scanOptions(name, args, 1, {
        short: { L: {}, P: {}, e: {}, "@": {}, n: {} },
        other: "prompt",
      });
      addProblems(reading, scan.problems);
      reading.changesFolder = true;
      reading.movesTo = folderMove(
        name,
        scan.operands.map((o) => o.arg),
      );
      reading.builtin = `${name} changes the working folder of the commands after it`;
      return reading;
    }
    case "export":
    case "readonly":
    case "local":
    case "declare":
    case "typeset":
    case "unset": {
      // -i makes later assignments arithmetic, -n makes a name an alias of another, -a/-A arrays, -f functions
      const short: Record<string, OptionSpec> = name === "unset" ? { v: {} } : { x: {}, r: {}, g: {}, p: {} };
      if (name === "export") short.n = {}; // un-export
      const scan = scanOptions(name, args, 1, { short, other: "prompt" });
      addProblems(reading, scan.problems);
      judgeNames(
        name,
        scan.operands.map((o) => o.arg),
        reading,
      );
      return reading;
    }
    case "read": {
      const scan = scanOptions(name, args, 1, {
        short: {
          r: {},
          s: {},
          e: {},
          a: { value: true },
          d: { value: true },
          i: { value: true },
          n: { value: true },
          N: { value: true },
          p: { value: true },
          t: { value: true },
          u: { value: true },
        },
        other: "prompt",
      });
      addProblems(reading, scan.problems);
      const arrays = scan.options.filter((o) => o.name === "a" && o.value).map((o) => o.value as Arg);
      judgeNames(name, [...arrays, ...scan.operands.map((o) => o.arg)], reading);
      return reading;
    }
    case "set": {
      for (let i = 0; i < words.length; i++) {
        const w = words[i] as Arg;
        if (!w.literal) {
          reading.flags.push({ kind: "dynamic-argument", detail: `set ${w.value}: known only when it runs` });
          break;
        }
        if (w.value === "--" || w.value === "-") break; // positional parameters follow
        if (!/^[-+]/.test(w.value)) break;
        const letters = w.value.slice(1);
        for (const letter of letters) {
          if (letter === "o") {
            const option = words[++i];
            if (option && (!option.literal || !ALLOWED_SET_O.has(option.value)))
              reading.flags.push({
                kind: "tool-option",
                detail: `set -o ${option.value} changes how the shell reads or runs commands`,
              });
          } else if (!"abefhmnptuvxBCEHPT".includes(letter)) {
            reading.flags.push({
              kind: "tool-option",
              detail: `set -${letter} changes how the shell reads or runs commands`,
            });
          }
        }
      }
      return reading;
    }
    case "shopt": {
      const scan = scanOptions(name, args, 1, {
        short: { s: {}, u: {}, q: {}, p: {}, o: {} },
        other: "prompt",
      });
      addProblems(reading, scan.problems);
      const setting = scan.options.some((o) => o.name === "s" || o.name === "u");
      if (setting) {
        for (const { arg } of scan.operands) {
          const allowed = scan.options.some((o) => o.name === "o") ? ALLOWED_SET_O : ALLOWED_SHOPT;
          if (!arg.literal || !allowed.has(arg.value))
            reading.flags.push({
              kind: "tool-option",
              detail: `shopt ${arg.value} changes how the shell reads or runs commands`,
            });
        }
      }
      return reading;
    }
    case "trap": {
      // the action is a script this shell runs later: analysed now like any other
      const scan = scanOptions(name, args, 1, { short: { l: {}, p: {} }, other: "prompt" });
      addProblems(reading, scan.problems);
      const action = scan.operands[0]?.arg;
      if (action && scan.operands.length > 1) {
        if (!action.literal)
          reading.flags.push({
            kind: "dynamic-command",
            detail: "the action of trap is not a literal string",
          });
        else if (action.value !== "" && action.value !== "-")
          reading.scripts.push({ text: action.value, dialect, context: "trap", sameShell: true });
      }
      return reading;
    }
    default:
      // :, dirs, shift, exit, return, break, continue, wait, type: their operands are only values
      return reading;
  }
}
