// Dispatch wrappers: commands whose job is to start another command (`env`, `nice`, `timeout`, `xargs`…).
// The wrapper is a segment and so is what it starts; the options in between are read from tables, and
// a word that cannot be read for sure means the command it starts is not known (a flag).
import { scanOptions, type Arg, type OptionTable } from "./option-scan.js";
import {
  addProblems,
  emptyReading,
  FILLED_IN_LATER,
  readByTable,
  type InnerCommand,
  type ToolReading,
} from "./tool-readings.js";
import { judgeVariable } from "./variables.js";

/** The default PATH execvp uses when PATH is unset (`env -i`, `command -p`). */
export const DEFAULT_EXEC_PATH = "/usr/bin:/bin";

const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)=/;

const NO_OPTIONS: OptionTable = { other: "prompt" };

const TABLES: Record<string, OptionTable> = {
  nohup: { other: "prompt", long: { "--help": {}, "--version": {} } },
  timeout: {
    short: { k: { value: true }, s: { value: true }, v: {}, f: {}, p: {} },
    long: {
      "--kill-after": { value: true },
      "--signal": { value: true },
      "--verbose": {},
      "--foreground": {},
      "--preserve-status": {},
      "--help": {},
      "--version": {},
    },
    other: "prompt",
  },
  stdbuf: {
    short: { i: { value: true }, o: { value: true }, e: { value: true } },
    long: { "--input": { value: true }, "--output": { value: true }, "--error": { value: true } },
    other: "prompt",
  },
  time: {
    short: {
      o: { value: true, writesValue: true, effect: { kind: "redirect", detail: "time -o writes to {}" } },
      a: {},
      f: { value: true },
      p: {},
      v: {},
      q: {},
      V: {},
    },
    long: {
      "--output": {
        value: true,
        writesValue: true,
        effect: { kind: "redirect", detail: "time -o writes to {}" },
      },
      "--append": {},
      "--format": { value: true },
      "--portability": {},
      "--verbose": {},
      "--quiet": {},
      "--help": {},
      "--version": {},
    },
    other: "prompt",
  },
  xargs: {
    short: {
      a: { value: true },
      d: { value: true },
      E: { value: true },
      e: { value: "optional" },
      I: { value: true },
      i: { value: "optional" },
      L: { value: true },
      l: { value: "optional" },
      n: { value: true },
      P: { value: true },
      s: { value: true },
      "0": {},
      p: {},
      r: {},
      t: {},
      x: {},
      o: {},
    },
    long: {
      "--arg-file": { value: true },
      "--delimiter": { value: true },
      "--eof": { value: "optional" },
      "--replace": { value: "optional" },
      "--max-lines": { value: "optional" },
      "--max-args": { value: true },
      "--max-procs": { value: true },
      "--max-chars": { value: true },
      "--process-slot-var": { value: true },
      "--null": {},
      "--interactive": {},
      "--no-run-if-empty": {},
      "--verbose": {},
      "--exit": {},
      "--show-limits": {},
      "--open-tty": {},
      "--help": {},
      "--version": {},
    },
    other: "prompt",
  },
  ionice: {
    short: { c: { value: true }, n: { value: true }, p: {}, P: {}, u: {}, t: {} },
    long: { "--class": { value: true }, "--classdata": { value: true }, "--ignore": {} },
    other: "prompt",
  },
  setsid: {
    short: { c: {}, f: {}, w: {} },
    long: { "--ctty": {}, "--fork": {}, "--wait": {} },
    other: "prompt",
  },
  taskset: {
    short: { a: {}, c: {}, p: {} },
    long: { "--all-tasks": {}, "--cpu-list": {}, "--pid": {} },
    other: "prompt",
  },
  flock: {
    short: {
      s: {},
      e: {},
      x: {},
      u: {},
      n: {},
      o: {},
      F: {},
      w: { value: true },
      E: { value: true },
      c: { value: true },
    },
    long: {
      "--shared": {},
      "--exclusive": {},
      "--unlock": {},
      "--nonblock": {},
      "--close": {},
      "--no-fork": {},
      "--verbose": {},
      "--timeout": { value: true },
      "--conflict-exit-code": { value: true },
      "--command": { value: true },
    },
    other: "prompt",
  },
  watch: {
    short: {
      n: { value: true },
      d: { value: "optional" },
      t: {},
      b: {},
      e: {},
      g: {},
      c: {},
      x: {},
      p: {},
      w: {},
      r: {},
      q: {},
    },
    long: {
      "--interval": { value: true },
      "--differences": { value: "optional" },
      "--no-title": {},
      "--beep": {},
      "--errexit": {},
      "--chgexit": {},
      "--color": {},
      "--no-color": {},
      "--exec": {},
      "--precise": {},
      "--no-wrap": {},
      "--no-rerun": {},
    },
    other: "prompt",
  },
  strace: {
    short: {
      e: { value: true },
      o: { value: true, writesValue: true, effect: { kind: "redirect", detail: "strace -o writes to {}" } },
      p: { value: true },
      P: { value: true },
      s: { value: true },
      S: { value: true },
      u: { value: true, effect: { kind: "tool-option", detail: "strace -u runs the command as user {}" } },
      E: { value: true },
      I: { value: true },
      b: { value: true },
      a: { value: true },
      O: { value: true },
      X: { value: true },
      U: { value: true },
      f: {},
      c: {},
      C: {},
      d: {},
      D: {},
      F: {},
      h: {},
      i: {},
      k: {},
      q: {},
      r: {},
      t: {},
      T: {},
      v: {},
      V: {},
      w: {},
      x: {},
      y: {},
      z: {},
      Z: {},
    },
    other: "prompt",
  },
  caffeinate: {
    short: { d: {}, i: {}, m: {}, s: {}, u: {}, t: { value: true }, w: { value: true } },
    other: "prompt",
  },
  unbuffer: { short: { p: {} }, other: "prompt" },
};
TABLES.ltrace = TABLES.strace as OptionTable;

export const WRAPPERS = new Set(["env", "nice", "command", ...Object.keys(TABLES)]);

/** The wrappers' option tables (tool-files.ts reads xargs's and flock's for the files they name). */
export const WRAPPER_TABLES: Readonly<Record<string, OptionTable>> = TABLES;

function inner(
  args: readonly Arg[],
  from: number,
  context: string,
  extra: Partial<InnerCommand> = {},
): InnerCommand[] {
  return from < args.length ? [{ args: args.slice(from), context, ...extra }] : [];
}

export function readWrapper(name: string, args: readonly Arg[], viaShell: boolean): ToolReading {
  switch (name) {
    case "env":
      return readEnv(args);
    case "nice":
      return readNice(args);
    case "command":
      return readCommandBuiltin(args, viaShell);
    case "xargs":
      return readXargs(args);
    case "watch":
      return readWatch(args);
    default:
      return readSimpleWrapper(name, args);
  }
}

function readSimpleWrapper(name: string, args: readonly Arg[]): ToolReading {
  const { reading, scan } = readByTable(name, args, TABLES[name] ?? NO_OPTIONS);
  let start = scan.end;
  const has = (...names: string[]) => scan.options.some((o) => names.includes(o.name));
  if (name === "timeout") start++; // the duration
  if (name === "taskset") {
    if (has("p", "--pid")) return reading; // changes a running process
    start++; // the mask
  }
  if ((name === "ionice" && has("p", "P", "u")) || ((name === "strace" || name === "ltrace") && has("p"))) {
    return reading; // attaches to a running process
  }
  if (name === "strace" || name === "ltrace") {
    for (const o of scan.options.filter((o) => o.name === "E" && o.value?.literal)) {
      const variable = ASSIGNMENT_WORD.exec(o.value?.value ?? "")?.[1];
      if (variable && !judgeVariable(variable).ok)
        reading.flags.push({ kind: "dangerous-assignment", detail: `${name} -E sets ${variable}` });
    }
  }
  if (name === "flock") {
    const command = scan.options.find((o) => o.name === "c" || o.name === "--command");
    if (command) {
      if (!command.value?.literal)
        reading.flags.push({
          kind: "dynamic-command",
          detail: "the command of flock -c is not a literal string",
        });
      else reading.scripts.push({ text: command.value.value, dialect: "sh", context: "flock -c" });
      return reading;
    }
    start++; // the lock file or descriptor
  }
  reading.inner = inner(args, start, name);
  return reading;
}

function readNice(args: readonly Arg[]): ToolReading {
  let from = 1;
  const first = args[1];
  if (first?.literal && /^-[-+]?\d+$/.test(first.value)) from = 2; // `nice -10 cmd`
  const reading = emptyReading();
  const scan = scanOptions("nice", args, from, {
    short: { n: { value: true } },
    long: { "--adjustment": { value: true }, "--help": {}, "--version": {} },
    other: "prompt",
  });
  addProblems(reading, scan.problems);
  reading.inner = inner(args, scan.end, "nice");
  return reading;
}

function readEnv(args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  let pathOverride: string | undefined;
  let chdir: string | undefined;
  let i = 1;
  const value = (at: number): Arg | undefined => args[at];
  for (; i < args.length; i++) {
    const a = args[i] as Arg;
    if (!a.literal) {
      // `env "$X" cmd`: an assignment, an option or the command — not known
      reading.flags.push({
        kind: "dynamic-argument",
        detail: `${a.value} is known only when it runs, where env reads options and assignments`,
      });
      return reading;
    }
    const w = a.value;
    if (w === "--") {
      i++;
      break;
    }
    if (w === "-" || w === "-i" || w === "--ignore-environment") pathOverride ??= DEFAULT_EXEC_PATH;
    else if (["-0", "--null", "-v", "--debug", "--list-signal-handling"].includes(w)) continue;
    else if (/^--(block|default|ignore)-signal(=|$)/.test(w)) continue;
    else if (w === "-u" || w === "--unset" || w.startsWith("-u") || w.startsWith("--unset=")) {
      const name = w === "-u" || w === "--unset" ? value(++i)?.value : w.replace(/^(-u|--unset=)/, "");
      if (name === "PATH") pathOverride = DEFAULT_EXEC_PATH;
    } else if (w === "-C" || w === "--chdir" || w.startsWith("-C") || w.startsWith("--chdir=")) {
      const dir =
        w === "-C" || w === "--chdir"
          ? value(++i)
          : { value: w.replace(/^(-C|--chdir=)/, ""), literal: true };
      if (!dir?.literal) {
        reading.flags.push({
          kind: "dynamic-argument",
          detail: "the folder of env -C is known only when it runs",
        });
        return reading;
      }
      chdir = dir.value;
    } else if (w === "-S" || w.startsWith("-S") || w.startsWith("--split-string")) {
      reading.flags.push({
        kind: "dynamic-command",
        detail: "env -S splits a string into a command that is not analysed",
      });
      reading.unknowable = true;
      return reading;
    } else if (w.startsWith("-")) {
      reading.flags.push({ kind: "dynamic-argument", detail: `env option ${w} is not one Gatehouse knows` });
      return reading;
    } else {
      const assignment = ASSIGNMENT_WORD.exec(w);
      if (!assignment) break;
      const variable = assignment[1] as string;
      if (variable === "PATH") pathOverride = w.slice(5);
      const verdict = judgeVariable(variable);
      if (!verdict.ok)
        reading.flags.push({ kind: "dangerous-assignment", detail: `env sets ${variable}: ${verdict.why}` });
    }
  }
  reading.inner = inner(args, i, "env", {
    ...(pathOverride !== undefined ? { pathOverride } : {}),
    ...(chdir !== undefined ? { chdir } : {}),
  });
  return reading;
}

function readCommandBuiltin(args: readonly Arg[], viaShell: boolean): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions("command", args, 1, { short: { p: {}, v: {}, V: {} }, other: "prompt" });
  addProblems(reading, scan.problems);
  // run by a shell, `command` is its builtin (there is no executable twin): covered, and what it starts is a segment
  if (viaShell) reading.builtin = "command is a shell builtin that starts the command it is given";
  if (scan.options.some((o) => o.name === "v" || o.name === "V")) return reading; // only describes
  const pathOverride = scan.options.some((o) => o.name === "p") ? DEFAULT_EXEC_PATH : undefined;
  reading.inner = inner(args, scan.end, "command", {
    viaShell,
    ...(pathOverride !== undefined ? { pathOverride } : {}),
  });
  return reading;
}

/** xargs appends words read from its input (or puts them where `-I` says): the command gets words nobody has seen. */
function readXargs(args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions("xargs", args, 1, TABLES.xargs as OptionTable);
  addProblems(reading, scan.problems);
  const replace = scan.options.find((o) => ["I", "i", "--replace"].includes(o.name));
  const marker = replace ? (replace.value?.value ?? "{}") : null;
  const command: Arg[] = scan.end < args.length ? args.slice(scan.end) : [{ value: "echo", literal: true }];
  // the words it reads from its input (the read rule looks at what writes it: file-reads.ts)
  const input: Arg = scan.options.some((o) => o.name === "a" || o.name === "--arg-file")
    ? FILLED_IN_LATER
    : { ...FILLED_IN_LATER, fromInput: true };
  const filled = marker
    ? command.map((a, i) =>
        i > 0 && a.value === marker ? input : i > 0 && a.value.includes(marker) ? FILLED_IN_LATER : a,
      )
    : [...command, input];
  reading.inner = [{ args: filled, context: "xargs" }];
  return reading;
}

/** watch runs its arguments joined by spaces with `sh -c` (with -x: as a command). */
function readWatch(args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions("watch", args, 1, TABLES.watch as OptionTable);
  addProblems(reading, scan.problems);
  const rest = args.slice(scan.end);
  if (rest.length === 0) return reading;
  if (scan.options.some((o) => o.name === "x" || o.name === "--exec")) {
    reading.inner = [{ args: rest, context: "watch -x" }];
  } else if (rest.every((a) => a.literal)) {
    reading.scripts.push({ text: rest.map((a) => a.value).join(" "), dialect: "sh", context: "watch" });
  } else {
    reading.flags.push({
      kind: "dynamic-command",
      detail: "watch runs words known only when it runs as a shell command",
    });
  }
  return reading;
}
