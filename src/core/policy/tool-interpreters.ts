// Interpreters: a program in a file is the project's code (like `npm test`); a program given on the
// command line (`python -c`, `node -e`, an awk program, `sqlite3 db '.shell …'`) is inline code, covered
// only by an entry with an argPattern; a program read from standard input or a stream cannot be seen in
// advance; options that load more code (`node --import`, `perl -M…`, `python -m timeit`) are flags.
import { scanOptions, type Arg, type OptionSpec, type OptionTable } from "./option-scan.js";
import { actsOnValue as loads, flag as f, writesValue as writes } from "./option-specs.js";
import {
  addEffects,
  addProblems,
  emptyReading,
  readsAStream,
  readsStdin,
  type ToolReading,
} from "./tool-readings.js";

interface InterpreterSpec {
  names: RegExp;
  table: OptionTable;
  /** Options whose value is code; flags among them make the first operand the code (`node -pe CODE`). */
  inline: string[];
  /** Options whose value names a module to run or load, and which modules are harmless. */
  module?: { options: string[]; harmless: (name: string) => boolean; what: string };
  /** `operand`: the first operand is the program file (none: standard input); `code`: it is code (awk). */
  program: "operand" | "code" | "sub-command" | "none";
  /** Options that only print something: no program is read then. */
  info: string[];
}

const code = (detail: string): OptionSpec => ({ value: true, effect: { kind: "inline-code", detail } });
const flags = (letters: string): Record<string, OptionSpec> =>
  Object.fromEntries([...letters].map((l) => [l, f]));

/** Modules `python -m` may run without a person: their arguments are files and settings, not code. */
// prettier-ignore
const HARMLESS_PYTHON_MODULES = new Set([
  "pytest", "unittest", "doctest", "pip", "venv", "virtualenv", "ensurepip", "json.tool", "mypy", "black",
  "ruff", "isort", "flake8", "pylint", "pyflakes", "pycodestyle", "coverage", "build", "tox", "nox", "site",
  "platform", "sysconfig", "compileall", "py_compile", "uvicorn", "django", "flask", "poetry", "pipenv",
  "sphinx", "mkdocs", "wheel", "pydoc_data", "tabnanny", "pyright", "bandit", "twine",
]);

/** `-W action:message:category:module:lineno` — a dotted category is imported, which runs its module. */
const HARMLESS_WARNING_FILTER = /^[a-z]*(:[^:]*(:([A-Za-z]*Warning)?(:[^:]*(:\d*)?)?)?)?$/;
const HARMLESS_PYTHON_X =
  /^(importtime|dev|utf8(=[01])?|faulthandler|tracemalloc(=\d+)?|frozen_modules=(on|off)|warn_default_encoding|int_max_str_digits=\d+|no_debug_ranges|perf|cpu_count=\w+|gil=[01]|showrefcount)$/;
const PERL_MODULE = /^-?[A-Za-z_][\w:]*(=[\w,:]*)?$/;
const NODE_REPORTERS = new Set(["spec", "tap", "dot", "junit", "lcov"]);

const NODE_INERT_LONG = [
  "--check",
  "--test",
  "--test-only",
  "--watch",
  "--watch-path",
  "--watch-preserve-output",
  "--run",
  "--version",
  "--help",
  "--max-old-space-size",
  "--max-semi-space-size",
  "--stack-size",
  "--enable-source-maps",
  "--no-warnings",
  "--no-deprecation",
  "--throw-deprecation",
  "--trace-warnings",
  "--trace-deprecation",
  "--trace-uncaught",
  "--trace-exit",
  "--unhandled-rejections",
  "--experimental-vm-modules",
  "--experimental-specifier-resolution",
  "--experimental-strip-types",
  "--experimental-transform-types",
  "--no-experimental-strip-types",
  "--experimental-modules",
  "--experimental-json-modules",
  "--experimental-wasm-modules",
  "--experimental-import-meta-resolve",
  "--experimental-require-module",
  "--no-experimental-require-module",
  "--experimental-sqlite",
  "--experimental-websocket",
  "--experimental-fetch",
  "--experimental-global-webcrypto",
  "--harmony",
  "--preserve-symlinks",
  "--preserve-symlinks-main",
  "--title",
  "--expose-gc",
  "--abort-on-uncaught-exception",
  "--conditions",
  "--disable-warning",
  "--openssl-legacy-provider",
  "--use-openssl-ca",
  "--use-bundled-ca",
  "--dns-result-order",
  "--no-addons",
  "--pending-deprecation",
  "--frozen-intrinsics",
  "--jitless",
  "--input-type",
  "--test-name-pattern",
  "--test-skip-pattern",
  "--test-concurrency",
  "--test-timeout",
  "--test-shard",
  "--experimental-test-coverage",
  "--test-force-exit",
  "--test-update-snapshots",
  "--no-experimental-fetch",
  "--no-experimental-global-navigator",
  "--experimental-default-type",
  "--security-revert",
];

const INTERPRETERS_LIST: InterpreterSpec[] = [
  {
    names: /^(python[0-9.]*|pypy3?)$/,
    table: {
      short: {
        ...flags("bBdEhiIOPqsSuvVx"),
        c: { ...code("$0 runs inline code"), endsOptions: true },
        m: { value: true, endsOptions: true },
        W: { value: true },
        X: { value: true },
      },
      long: {
        "--version": f,
        "--help": f,
        "--help-env": f,
        "--help-xoptions": f,
        "--help-all": f,
        "--check-hash-based-pycs": { value: true },
      },
      other: "prompt",
    },
    inline: ["c"],
    module: { options: ["m"], harmless: (m) => HARMLESS_PYTHON_MODULES.has(m), what: "runs the module" },
    program: "operand",
    info: ["V", "h", "--version", "--help", "--help-env", "--help-xoptions", "--help-all"],
  },
  {
    names: /^(node|nodejs)$/,
    table: {
      short: { ...flags("epcivh"), r: loads("node -r loads {} before the program"), C: { value: true } },
      long: {
        ...Object.fromEntries(NODE_INERT_LONG.map((o) => [o, f])),
        "--eval": code("node --eval runs inline code"),
        "--print": code("node --print runs inline code"),
        "--require": loads("node --require loads {} before the program"),
        "--import": loads("node --import loads {} before the program"),
        "--loader": loads("node --loader runs {} as a module loader"),
        "--experimental-loader": loads("node --experimental-loader runs {} as a module loader"),
        "--env-file": loads("node --env-file reads settings (NODE_OPTIONS among them) from {}"),
        "--env-file-if-exists": loads(
          "node --env-file-if-exists reads settings (NODE_OPTIONS among them) from {}",
        ),
        "--inspect": {
          value: "optional",
          effect: {
            kind: "tool-option",
            detail: "node --inspect opens a debugger anyone on this machine can run code through",
          },
        },
        "--inspect-brk": {
          value: "optional",
          effect: {
            kind: "tool-option",
            detail: "node --inspect-brk opens a debugger anyone on this machine can run code through",
          },
        },
        "--inspect-wait": {
          value: "optional",
          effect: {
            kind: "tool-option",
            detail: "node --inspect-wait opens a debugger anyone on this machine can run code through",
          },
        },
        "--interactive": f,
        "--test-reporter": { value: true },
        "--test-reporter-destination": writes("node --test-reporter-destination writes to {}"),
        "--redirect-warnings": writes("node --redirect-warnings writes to {}"),
        "--cpu-prof": f,
        "--heap-prof": f,
        "--diagnostic-dir": writes("node --diagnostic-dir writes reports to {}"),
      },
      other: "prompt",
    },
    inline: ["e", "p", "--eval", "--print"],
    program: "operand",
    info: ["v", "h", "--version", "--help", "c", "--check", "--run", "--test"],
  },
  {
    names: /^perl[0-9.]*$/,
    table: {
      short: {
        ...flags("acnpsStTuUvwWXhg"),
        e: code("$0 runs inline code"),
        E: code("$0 runs inline code"),
        M: { value: true },
        m: { value: true },
        I: { value: true },
        i: { value: "optional", effect: { kind: "tool-option", detail: "perl -i edits files in place" } },
        l: { value: "optional", glued: /^[0-7]+/ },
        "0": { value: "optional", glued: /^[0-7xX0-9a-fA-F]+/ },
        d: { value: "optional", glued: /^:.*/ },
        D: { value: "optional" },
        F: { value: "optional" },
        C: { value: "optional", glued: /^[0-9A-Za-z]+/ },
        x: { value: "optional" },
        V: { value: "optional", glued: /^:.*/ },
      },
      long: { "--version": f, "--help": f },
      other: "prompt",
    },
    inline: ["e", "E"],
    module: {
      options: ["M", "m", "d"],
      harmless: (m) => PERL_MODULE.test(m.replace(/^:/, "")),
      what: "loads the module",
    },
    program: "operand",
    info: ["v", "V", "h", "--version", "--help"],
  },
  {
    names: /^ruby[0-9.]*$/,
    table: {
      short: {
        ...flags("acdhlnpsSvwy"),
        e: code("$0 runs inline code"),
        E: { value: true },
        F: { value: "optional" },
        i: { value: "optional", effect: { kind: "tool-option", detail: "ruby -i edits files in place" } },
        I: { value: true },
        r: { value: true },
        W: { value: "optional", glued: /^[0-2]|^:\w+/ },
        x: { value: "optional" },
        C: { value: true },
        "0": { value: "optional", glued: /^[0-7]+/ },
        K: { value: true },
      },
      long: {
        "--version": f,
        "--help": f,
        "--enable": { value: true },
        "--disable": { value: true },
        "--jit": f,
        "--yjit": f,
        "--verbose": f,
        "--copyright": f,
        "--encoding": { value: true },
      },
      other: "prompt",
    },
    inline: ["e"],
    program: "operand",
    info: ["v", "h", "--version", "--help", "--copyright"],
  },
  {
    names: /^php[0-9.]*$/,
    table: {
      short: {
        ...flags("nlmivhHqswe"),
        r: code("php -r runs inline code"),
        B: code("php -B runs inline code"),
        R: code("php -R runs inline code for every input line"),
        E: code("php -E runs inline code"),
        F: { value: true },
        d: loads("php -d {} changes settings that can load code (auto_prepend_file…)"),
        c: loads("php -c reads settings that can load code from {}"),
        z: loads("php -z loads the extension {}"),
        f: { value: true },
        a: f,
        S: loads("php -S starts a web server on {}"),
        t: { value: true },
      },
      other: "prompt",
    },
    inline: ["r", "B", "R", "E"],
    program: "operand",
    info: ["v", "h", "m", "i", "l"],
  },
  {
    names: /^(lua[0-9.]*|luajit)$/,
    table: {
      short: { e: code("$0 runs inline code"), l: { value: true }, ...flags("ivEW") },
      other: "prompt",
    },
    inline: ["e"],
    program: "operand",
    info: ["v"],
  },
  {
    names: /^(awk|gawk|mawk|nawk|busybox-awk)$/,
    table: {
      short: {
        F: { value: true },
        v: { value: true },
        f: { value: true },
        e: code("$0 runs an inline program"),
        E: { value: true },
        i: { value: true },
        l: loads("awk -l loads the extension library {}"),
        p: { value: "optional", effect: { kind: "tool-option", detail: "awk -p writes a profile" } },
        d: { value: "optional", effect: { kind: "tool-option", detail: "awk -d writes a variable dump" } },
        o: { value: "optional", effect: { kind: "tool-option", detail: "awk -o writes the program out" } },
        ...flags("bcCDghLMnNOPrsStVWY"),
      },
      long: {
        "--file": { value: true },
        "--exec": { value: true },
        "--include": { value: true },
        "--assign": { value: true },
        "--field-separator": { value: true },
        "--source": code("awk --source runs an inline program"),
        "--load": loads("awk --load loads the extension library {}"),
        "--profile": {
          value: "optional",
          effect: { kind: "tool-option", detail: "awk --profile writes a profile" },
        },
        "--dump-variables": {
          value: "optional",
          effect: { kind: "tool-option", detail: "awk --dump-variables writes a file" },
        },
        "--pretty-print": {
          value: "optional",
          effect: { kind: "tool-option", detail: "awk --pretty-print writes a file" },
        },
        "--sandbox": f,
        "--posix": f,
        "--traditional": f,
        "--lint": { value: "optional" },
        "--version": f,
        "--help": f,
        "--characters-as-bytes": f,
        "--re-interval": f,
        "--non-decimal-data": f,
        "--bignum": f,
        "--use-lc-numeric": f,
      },
      other: "prompt",
    },
    inline: ["e", "--source"],
    program: "code",
    info: ["V", "--version", "--help", "h"],
  },
  {
    names: /^osascript$/,
    table: {
      short: { e: code("osascript -e runs an inline script"), l: { value: true }, s: { value: true }, i: f },
      other: "prompt",
    },
    inline: ["e"],
    program: "operand",
    info: [],
  },
  {
    names: /^sqlite3$/,
    table: {
      long: {
        "-cmd": code("sqlite3 -cmd runs {} (dot-commands such as .shell run programs)"),
        "-init": loads("sqlite3 -init runs the commands in {}"),
        "-separator": { value: true },
        "-nullvalue": { value: true },
        "-newline": { value: true },
        "-mmap": { value: true },
        "-vfs": { value: true },
        "-lookaside": { value: true },
        "-pagecache": { value: true },
        "-maxsize": { value: true },
        "-heap": { value: true },
      },
      short: { A: loads("sqlite3 -A reads and writes archive files") },
      singleDashLong: true,
      other: "inert",
    },
    inline: ["-cmd"],
    program: "sub-command",
    info: ["-version", "-help"],
  },
];

/**
 * Less common interpreters, read generically: the options that take code inline, the rest of their options
 * taken as inert, the first operand as the program file and standard input as an unseen program. `stdin`
 * marks tools whose commands always come from standard input (ed's `!cmd`, dc's `!`).
 */
function generic(
  names: RegExp,
  inline: string[],
  options: { values?: string[]; singleDashLong?: boolean; program?: InterpreterSpec["program"] } = {},
): InterpreterSpec {
  const long: Record<string, OptionSpec> = {};
  const short: Record<string, OptionSpec> = {};
  for (const o of [...inline, ...(options.values ?? [])]) {
    const spec: OptionSpec = inline.includes(o) ? code("$0 runs inline code") : { value: true };
    if (/^-[A-Za-z0-9]$/.test(o)) short[o.slice(1)] = spec;
    else long[o] = spec;
  }
  return {
    names,
    table: { short, long, other: "inert", ...(options.singleDashLong ? { singleDashLong: true } : {}) },
    inline: inline.map((o) => (/^-[A-Za-z0-9]$/.test(o) ? o.slice(1) : o)),
    program: options.program ?? "operand",
    info: ["--version", "--help", "-v", "-V", "-h"].map((o) => (/^-[A-Za-z]$/.test(o) ? o.slice(1) : o)),
  };
}

INTERPRETERS_LIST.push(
  generic(/^(tclsh|wish|jimsh)[0-9.]*$/, []),
  generic(/^expect$/, ["-c"], { values: ["-f"] }),
  generic(/^guile[0-9.]*$/, ["-c"], { values: ["-l", "-e", "-s", "-L"] }),
  generic(/^racket$/, ["-e"], { values: ["-l", "-t", "-r", "-f"] }),
  generic(/^sbcl$/, ["--eval"], { values: ["--load", "--script", "--core"] }),
  generic(/^clisp$/, ["-x"], { values: ["-i", "-M"] }),
  generic(/^elixir$/, ["-e", "--eval"], { values: ["-r", "-pr", "--erl"] }),
  generic(/^erl$/, ["-eval", "-s", "-run"], {
    values: ["-name", "-sname", "-setcookie", "-pa", "-pz"],
    singleDashLong: true,
  }),
  generic(/^(groovy|scala)$/, ["-e"], { values: ["-cp", "-classpath"] }),
  generic(/^(ghc|ghci|runghc|runhaskell)$/, ["-e"], {}),
  generic(/^(ocaml|irb|jshell|pry)$/, [], {}),
  generic(/^octave(-cli)?$/, ["--eval"], {}),
  generic(/^(qjs|quickjs|rhino|jjs)$/, ["-e"], {}),
  generic(/^dc$/, ["-e", "--expression"], { values: ["-f", "--file"] }),
  generic(/^(ed|red|ex)$/, [], { program: "none" }),
);

export const INTERPRETERS: readonly InterpreterSpec[] = INTERPRETERS_LIST;

function specFor(name: string): InterpreterSpec | undefined {
  return INTERPRETERS_LIST.find((s) => s.names.test(name));
}

export function readInterpreter(
  name: string,
  args: readonly Arg[],
  stdin: string | null = null,
): ToolReading {
  const spec = specFor(name);
  const reading = emptyReading();
  if (!spec) return reading;
  const scan = scanOptions(name, args, 1, spec.table);
  addProblems(reading, scan.problems);
  addEffects(
    reading,
    scan.effects.map((e) => ({ ...e, detail: e.detail.replaceAll("$0", name) })),
  );
  const used = new Set(scan.options.map((o) => o.name));
  const has = (names: string[]) => names.some((n) => used.has(n));

  if (spec.module) {
    for (const o of scan.options.filter((o) => spec.module?.options.includes(o.name))) {
      const module = o.value;
      if (!module || !module.literal || !spec.module.harmless(module.value)) {
        reading.flags.push({
          kind: "inline-code",
          detail: `${name} -${o.name} ${spec.module.what} ${module?.value ?? ""}, which can run anything its arguments say`,
        });
        reading.inlineCode = true;
      }
    }
  }
  if (/^python/.test(name) || name.startsWith("pypy")) {
    for (const o of scan.options) {
      const v = o.value?.value ?? "";
      if (o.name === "W" && (!o.value?.literal || !HARMLESS_WARNING_FILTER.test(v)))
        addEffects(reading, [
          { kind: "tool-option", detail: `${name} -W ${v} imports the module its category names` },
        ]);
      if (o.name === "X" && (!o.value?.literal || !HARMLESS_PYTHON_X.test(v)))
        addEffects(reading, [
          { kind: "tool-option", detail: `${name} -X ${v} is not an option Gatehouse knows to be harmless` },
        ]);
      if (o.name === "i") {
        reading.flags.push({
          kind: "dynamic-command",
          detail: `${name} -i reads more code from standard input`,
        });
        reading.unknowable = true;
      }
    }
  }
  if (name === "node" || name === "nodejs") {
    for (const o of scan.options) {
      if (o.name === "--test-reporter" && (!o.value?.literal || !NODE_REPORTERS.has(o.value.value)))
        addEffects(reading, [
          { kind: "tool-option", detail: `node --test-reporter loads ${o.value?.value ?? "a module"}` },
        ]);
      if (o.name === "i" || o.name === "--interactive") {
        reading.flags.push({ kind: "dynamic-command", detail: "node -i reads code from standard input" });
        reading.unknowable = true;
      }
    }
  }

  const inlineOption = scan.options.find((o) => spec.inline.includes(o.name));
  if (inlineOption) {
    reading.inlineCode = true;
    if (!reading.flags.some((fl) => fl.kind === "inline-code"))
      reading.flags.push({
        kind: "inline-code",
        detail: `${name} -${inlineOption.name.replace(/^-+/, "")} runs inline code`,
      });
    return reading;
  }
  if (has(spec.module?.options ?? []) || has(spec.info)) return reading;

  const first = args[scan.end];
  switch (spec.program) {
    case "code": {
      // awk: the first operand is the program unless -f/--file/--exec gave one
      const file = scan.options.find((o) => ["f", "--file", "--exec", "E"].includes(o.name));
      if (file) {
        if (file.value && readsStdin(file.value) && stdin !== null) {
          // the program is in a here-document: as visible as one on the command line, and as inline
          reading.inlineCode = true;
          reading.flags.push({
            kind: "inline-code",
            detail: `${name} runs the program in its here-document`,
          });
        } else if (file.value && readsAStream(file.value)) {
          reading.flags.push({
            kind: "dynamic-command",
            detail: `${name} reads its program from ${readsStdin(file.value) ? "standard input" : file.value.value}, which cannot be analysed`,
          });
          reading.unknowable = true;
        }
        return reading;
      }
      if (first) {
        reading.inlineCode = true;
        reading.flags.push({
          kind: "inline-code",
          detail: `${name} runs the program given on its command line`,
        });
      }
      return reading;
    }
    case "sub-command": {
      // sqlite3 DB SQL…: what follows the database is SQL and dot-commands (`.shell` runs programs)
      if (scan.operands.length > 1) {
        reading.inlineCode = true;
        reading.flags.push({
          kind: "inline-code",
          detail: `${name} runs the SQL and dot-commands given on its command line`,
        });
      } else {
        reading.flags.push({
          kind: "dynamic-command",
          detail: `${name} reads SQL and dot-commands from standard input, which cannot be analysed`,
        });
        reading.unknowable = true;
      }
      return reading;
    }
    case "operand":
      // a program in a here-document is written out like a script file (`python3 - <<EOF`)
      if ((!first || readsStdin(first)) && stdin !== null) return reading;
      if (!first || readsAStream(first)) {
        reading.flags.push({
          kind: "dynamic-command",
          detail: `${name} reads its program from ${first ? first.value : "standard input"}, which cannot be analysed`,
        });
        reading.unknowable = true;
      }
      return reading;
    case "none":
      // its commands come from standard input (ed's `!cmd` runs a shell command)
      if (stdin !== null) {
        reading.inlineCode = true;
        reading.flags.push({ kind: "inline-code", detail: `${name} runs the commands in its here-document` });
      } else {
        reading.flags.push({
          kind: "dynamic-command",
          detail: `${name} reads its commands from standard input, which cannot be analysed`,
        });
        reading.unknowable = true;
      }
      return reading;
    default:
      return reading;
  }
}
