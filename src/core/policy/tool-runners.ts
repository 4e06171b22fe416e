// Tools with a sub-command that starts another program given as arguments: `uv run pytest`, `poetry run
// x`, `bundle exec rspec`, `conda run -n env x`, `cmake -E env X=1 x`, `nix develop -c x`… The program
// they start is a segment that must be covered too. The options between the sub-command and that program
// are read from a table, and an option the table does not list needs a person: it might take a value,
// and then the program would be the word after it.
import { scanOptions, type Arg, type OptionTable } from "./option-scan.js";
import {
  actsOnValue as loads,
  flag as f,
  longFlags as flags,
  valued as v,
  valuesOf as values,
} from "./option-specs.js";
import { addEffects, addProblems, emptyReading, type ToolReading } from "./tool-readings.js";
import { judgeVariable } from "./variables.js";

interface Runner {
  /** Options of the tool itself, before the sub-command. */
  global: OptionTable;
  /** The sub-commands that start a program, with their options before it. */
  runs: Record<string, OptionTable>;
  /** Operands the sub-command takes before the program (`direnv exec DIR cmd`). */
  skip?: Record<string, number>;
}

const UV_RUN: OptionTable = {
  short: { p: v, q: f, v: f, m: loads("uv run -m runs the Python module {}") },
  long: {
    ...flags([
      "--no-sync",
      "--frozen",
      "--locked",
      "--isolated",
      "--all-extras",
      "--no-dev",
      "--dev",
      "--no-project",
      "--active",
      "--offline",
      "--quiet",
      "--verbose",
      "--no-cache",
      "--refresh",
      "--reinstall",
      "--no-config",
      "--native-tls",
      "--preview",
      "--no-progress",
      "--exact",
      "--no-editable",
      "--all-packages",
      "--all-groups",
    ]),
    ...values([
      "--with",
      "--with-editable",
      "--with-requirements",
      "--python",
      "--directory",
      "--project",
      "--package",
      "--extra",
      "--group",
      "--only-group",
      "--no-group",
      "--index",
      "--index-url",
      "--extra-index-url",
      "--find-links",
      "--color",
      "--cache-dir",
      "--exclude-newer",
      "--resolution",
      "--prerelease",
      "--index-strategy",
      "--link-mode",
      "--refresh-package",
      "--reinstall-package",
    ]),
    "--env-file": loads("uv run --env-file reads variables (which can change what runs) from {}"),
    "--config-file": loads("uv run --config-file reads settings from {}"),
    "--module": loads("uv run --module runs the Python module {}"),
  },
  other: "prompt",
};

const RUNNERS: Record<string, Runner> = {
  uv: {
    global: {
      short: { q: f, v: f },
      long: values(["--directory", "--project", "--cache-dir", "--color"]),
      other: "prompt",
    },
    runs: { run: UV_RUN },
  },
  poetry: {
    global: {
      short: { C: v, P: v, q: f, v: f, n: f },
      long: {
        ...values(["--directory", "--project"]),
        ...flags([
          "--no-ansi",
          "--ansi",
          "--quiet",
          "--verbose",
          "--no-interaction",
          "--no-plugins",
          "--no-cache",
        ]),
      },
      other: "prompt",
    },
    runs: { run: { other: "prompt" } },
  },
  pipenv: {
    global: { other: "prompt", long: flags(["--quiet", "--verbose"]) },
    runs: { run: { other: "prompt" } },
  },
  bundle: {
    global: { other: "prompt" },
    runs: { exec: { long: { ...flags(["--keep-file-descriptors"]), "--gemfile": v }, other: "prompt" } },
  },
  pdm: {
    global: { other: "prompt", short: { v: f, q: f } },
    runs: {
      run: {
        short: { p: v, g: f, v: f, q: f, s: f },
        long: {
          ...values(["--project"]),
          ...flags(["--global", "--verbose", "--quiet", "--site-packages", "--recreate"]),
        },
        other: "prompt",
      },
    },
  },
  hatch: { global: { other: "prompt", short: { v: f, q: f } }, runs: { run: { other: "prompt" } } },
  conda: {
    global: { other: "prompt" },
    runs: {
      run: {
        short: { n: v, p: v, v: f },
        long: {
          ...values(["--name", "--prefix", "--cwd"]),
          ...flags(["--no-capture-output", "--live-stream", "--debug-wrapper-scripts", "--verbose"]),
        },
        other: "prompt",
      },
    },
  },
  direnv: { global: { other: "prompt" }, runs: { exec: { other: "prompt" } }, skip: { exec: 1 } },
};

export const RUNNER_TOOLS = new Set([...Object.keys(RUNNERS), "cmake", "nix", "nix-shell", "mise"]);

export function readRunner(name: string, args: readonly Arg[]): ToolReading {
  if (name === "cmake") return readCmake(args);
  if (name === "nix" || name === "nix-shell" || name === "mise") return readNixMise(name, args);
  const runner = RUNNERS[name];
  const reading = emptyReading();
  if (!runner) return reading;
  const global = scanOptions(name, args, 1, { ...runner.global, other: "inert" });
  const sub = args[global.end];
  if (!sub?.literal || !(sub.value in runner.runs)) return reading; // another sub-command: the tool's own job
  addProblems(reading, scanOptions(name, args, 1, runner.global).problems);
  const scan = scanOptions(
    `${name} ${sub.value}`,
    args,
    global.end + 1,
    runner.runs[sub.value] as OptionTable,
  );
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  const start = scan.end + (runner.skip?.[sub.value] ?? 0);
  if (start < args.length) reading.inner.push({ args: args.slice(start), context: `${name} ${sub.value}` });
  return reading;
}

/** `cmake -E env [--unset=V] [V=X]… cmd`, `cmake -E time cmd`, `cmake -E chdir DIR cmd` start a program. */
function readCmake(args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  const at = args.findIndex((a, i) => i > 0 && a.literal && a.value === "-E");
  const mode = at === -1 ? undefined : args[at + 1];
  if (!mode?.literal) return reading;
  let i = at + 2;
  if (mode.value === "env") {
    for (; i < args.length; i++) {
      const a = args[i] as Arg;
      if (!a.literal) {
        addProblems(reading, [`${a.value} is known only when it runs, where cmake -E env reads assignments`]);
        return reading;
      }
      if (a.value.startsWith("--unset=") || a.value === "--modify") continue;
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a.value)?.[1];
      if (!name) break;
      const verdict = judgeVariable(name);
      if (!verdict.ok)
        reading.flags.push({
          kind: "dangerous-assignment",
          detail: `cmake -E env sets ${name}: ${verdict.why}`,
        });
    }
  } else if (mode.value === "chdir") {
    i++;
  } else if (mode.value !== "time") {
    return reading;
  }
  if (i < args.length) reading.inner.push({ args: args.slice(i), context: `cmake -E ${mode.value}` });
  return reading;
}

/** `nix develop -c cmd`, `nix shell … -c cmd`, `nix-shell --run 'script'`, `mise exec … -- cmd`. */
function readNixMise(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  if (name === "nix-shell") {
    const at = args.findIndex((a) => a.literal && (a.value === "--run" || a.value === "--command"));
    const script = at === -1 ? undefined : args[at + 1];
    if (at !== -1) {
      if (script?.literal)
        reading.scripts.push({ text: script.value, dialect: "bash", context: "nix-shell --run" });
      else
        reading.flags.push({
          kind: "dynamic-command",
          detail: "the script of nix-shell --run is not a literal string",
        });
    }
    return reading;
  }
  const marker = name === "nix" ? ["-c", "--command"] : ["--"];
  const sub = args[1]?.value;
  if (name === "nix" && !["develop", "shell"].includes(sub ?? "")) return reading;
  if (name === "mise" && !["exec", "x"].includes(sub ?? "")) return reading;
  const at = args.findIndex((a, i) => i > 1 && a.literal && marker.includes(a.value));
  if (at === -1) {
    if (name === "mise")
      addEffects(reading, [
        { kind: "tool-option", detail: "mise exec without -- starts a program that is not analysed" },
      ]);
    return reading;
  }
  if (at + 1 < args.length) reading.inner.push({ args: args.slice(at + 1), context: `${name} ${sub}` });
  return reading;
}
