// Property-based: thousands of generated shell strings never make the analyser throw, and with an
// allowlist holding only the real path of `true`, nothing is ever `run` unless every segment is that
// `true` and no flag is raised. Commands judged `run` are then really executed by bash with a PATH of
// logging stand-ins, and nothing but `true` may have run: an oracle independent of our parser.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeCommand, explainCommand, ScriptCache } from "../../../src/core/policy/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { approvalsWith, entry } from "./policy-fixture.js";

const BASH = ["/bin/bash", "/usr/bin/bash"].find((p) => fs.existsSync(p));
const NAMES = [
  "true",
  "git",
  "rm",
  "curl",
  "echo",
  "x",
  "python3",
  "node",
  "awk",
  "env",
  "timeout",
  "nice",
  "bash",
  "sh",
];

let t: TempHome;
let bin: string;
let cwd: string;
let log: string;
let trueReal: string;
const scripts = new ScriptCache(64);

beforeAll(async () => {
  t = await makeTempHome("gatehouse-property-");
  bin = path.join(t.home, "bin");
  cwd = path.join(t.home, "cwd");
  log = path.join(t.home, "ran.log");
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  // Every stand-in writes its name to the log; wrappers and shells then do their real job.
  const passOn: Record<string, string> = {
    env: "/usr/bin/env",
    timeout: "/usr/bin/timeout",
    nice: "/usr/bin/nice",
  };
  for (const name of NAMES) {
    const tail =
      name === "bash" || name === "sh"
        ? `exec ${BASH ?? "/bin/sh"} "$@"`
        : passOn[name] && fs.existsSync(passOn[name])
          ? `exec ${passOn[name]} "$@"`
          : "exit 0";
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho ${name} >> "${log}"\n${tail}\n`, { mode: 0o755 });
  }
  trueReal = fs.realpathSync(path.join(bin, "true"));
});
afterAll(async () => t.cleanup());

// ---- generators ---------------------------------------------------------------------------------

const unicode = fc.constantFrom("é", "日本", "✓", "🙂", "\u00a0", "Ω", "ß", "\u200b");
const plainWord = fc.oneof(
  fc.constantFrom("a", "b", "-n", "--x", "file.txt", "1", "x=y", "--", "."),
  unicode,
  fc.string({ unit: "grapheme", maxLength: 4 }).map((s) => s.replace(/[^\p{L}\p{N}_.-]/gu, "") || "w"),
);

/** Mostly `true`, so that many generated commands are judged `run` and then really executed. */
const commandName = fc.oneof(
  { weight: 25, arbitrary: fc.constant("true") },
  { weight: 1, arbitrary: fc.constantFrom(...NAMES) },
);

function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const safeJoiner = fc.constantFrom(" && ", " || ", "; ", "\n");
const joiner = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(" && ", " || ", "; ", "\n") },
  { weight: 1, arbitrary: fc.constant(" & ") },
);
const delimiter = fc.constantFrom("EOF", "END", "HERE", "X1", "Z_2", "EOT");

/** One simple command: a name (mostly `true`) and a few plain words. */
const simple = fc
  .tuple(commandName, fc.array(plainWord, { maxLength: 3 }))
  .map(([name, words]) => [name, ...words].join(" "));

/**
 * Valid bash by construction (bodies end with a newline so nothing can follow a here-document badly).
 * `risky` adds constructs that are always flagged or never allowed (wrappers, shells, eval, functions…);
 * without it most scripts consist of `true` only and are judged `run`, so bash really executes them.
 */
function scriptArbitrary(risky: boolean): fc.Arbitrary<string> {
  const rare = (arbitrary: fc.Arbitrary<string>) => ({ weight: risky ? 1 : 0, arbitrary });
  // prettier-ignore
  return fc.letrec<{ script: string; pipeline: string; command: string; word: string }>((tie) => ({
    word: fc.oneof(
      { weight: 6, arbitrary: plainWord },
      { weight: 2, arbitrary: plainWord.map((w) => sq(w)) },
      { weight: 2, arbitrary: plainWord.map((w) => `"${w}"`) },
      { weight: 1, arbitrary: fc.constantFrom("$HOME", '"$X"', "${Y:-z}", "$'\\x41'", "$1", "*.txt", "{a,b}", "~", "a\\ b") },
      { weight: 1, arbitrary: tie("script").map((s) => `"$( ${s}\n)"`) },
      { weight: 1, arbitrary: tie("script").map((s) => `$( ${s}\n)`) },
      { weight: 1, arbitrary: simple.map((c) => `\`${c}\``) },
      { weight: 1, arbitrary: tie("script").map((s) => `<( ${s}\n)`) },
    ),
    command: fc.oneof(
      { weight: 30, arbitrary: fc.tuple(commandName, fc.array(tie("word"), { maxLength: 3 })).map(([n, ws]) => [n, ...ws].join(" ")) },
      { weight: 2, arbitrary: fc.tuple(tie("command"), fc.constantFrom(">/dev/null", "2>&1", "< in", "&>/dev/null", "2>/dev/null")).map(([c, r]) => `${c} ${r}`) },
      { weight: 1, arbitrary: tie("script").map((s) => `( ${s}\n)`) },
      { weight: 1, arbitrary: tie("script").map((s) => `{ ${s}\n}`) },
      { weight: 1, arbitrary: fc.tuple(tie("script"), tie("script")).map(([a, b]) => `if ${a}\nthen ${b}\nfi`) },
      { weight: 1, arbitrary: tie("script").map((s) => `for i in a b; do ${s}\ndone`) },
      { weight: 1, arbitrary: tie("script").map((s) => `case a in a|b) ${s}\n;; *) true;; esac`) },
      { weight: 1, arbitrary: simple.map((c) => `A=1 ${c}`) },
      // a here-document ends its line, so the next command starts on a line of its own
      { weight: 1, arbitrary: fc.tuple(tie("script"), delimiter).map(([s, d]) => `true <<${d}\n$( ${s}\n)\n${d}\ntrue`) },
      { weight: 1, arbitrary: fc.tuple(tie("script"), delimiter).map(([s, d]) => `true <<'${d}'\n$( ${s}\n)\n${d}\ntrue`) },
      rare(fc.tuple(tie("command"), fc.constantFrom("> out", ">> log", "2>err")).map(([c, r]) => `${c} ${r}`)),
      rare(tie("script").map((s) => `bash -c ${sq(s)}`)),
      rare(simple.map((c) => `env A=1 ${c}`)),
      rare(simple.map((c) => `timeout 5 ${c}`)),
      rare(tie("script").map((s) => `f() { ${s}\n}`)),
      rare(simple.map((c) => `PATH=. ${c}`)),
      rare(tie("script").map((s) => `eval ${sq(s)}`)),
      rare(fc.constantFrom("python3 -c 'print(1)'", "awk '{print}' f", "node -e 1", "$CMD", "exec true", "(true &)")),
      // the attack classes of "Close the gate": code in expansions, joined lines, shell tables, split options
      rare(fc.constantFrom(
        "v='a[$(x)]'; b=abc; true ${b:v}", "v='a[$(x)]'; b=abc; true ${b:0:v}", "v='a[$(x)]'; true ${!v}",
        "v='a[$(x)]'; a=([v]=1)", "v='a[$(x)]'; true $((v))", "v='a[$(x)]'; [[ v -eq 1 ]]", "v='$(x)'; true \"${v@P}\"",
        "v='$(x)'; true <<EOF\n${v@P}\nEOF\ntrue", "true \"$\\\n(x)\"", "true $\\\n(x)", "true ${a:-$\\\n(x)}",
        "BASH_CMDS[true]=x; true", "for PATH in .; do true; done", "read PATH <<< .", "export PATH=.",
        "X=-c; python3 $X x", "python3 {-c,x}", "git {-c,alias.t=!x} t", "X='-exec x ;'; find . $X",
        "echo x | xargs env", "echo x | xargs nice", "env -S x", "v='a[$(x)]'; : ${b:v}", "v='a[$(x)]'; cd ${b:v}",
      )),
    ),
    pipeline: fc.array(tie("command"), { minLength: 1, maxLength: 3 }).map((cs) => cs.join(" | ")),
    script: fc
      .tuple(tie("pipeline"), fc.array(fc.tuple(risky ? joiner : safeJoiner, tie("pipeline")), { maxLength: 2 }))
      .map(([first, rest]) => first + rest.map(([op, p]) => op + p).join("")),
  })).script;
}

const script = fc.oneof(
  { weight: 3, arbitrary: scriptArbitrary(false) },
  { weight: 2, arbitrary: scriptArbitrary(true) },
);

/** Random soup of shell tokens: mostly invalid, for "never throws". */
const soup = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "'",
        '"',
        "`",
        "$(",
        "$((",
        "${",
        ")",
        "}",
        "(",
        "{",
        "&&",
        "||",
        "|",
        ";",
        "&",
        ";;",
        "<<",
        ">",
        "<",
        "\\",
        "\n",
        " ",
        "#",
      ),
      fc.constantFrom(
        "true",
        "git",
        "if",
        "then",
        "fi",
        "case",
        "in",
        "esac",
        "do",
        "done",
        "for",
        "[[",
        "]]",
        "=",
        "$x",
        "*",
      ),
      unicode,
      plainWord,
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(""));

// ---- the properties -----------------------------------------------------------------------------

async function explain(command: string) {
  return explainCommand(
    { command },
    {
      agentId: "local",
      cwd,
      env: { PATH: bin, HOME: t.home },
      home: t.home,
      approvals: approvalsWith([entry(trueReal, { id: "true" })]),
      now: 0,
      scripts,
    },
  );
}

/** Runs the command with bash and returns the names of the stand-ins it started. */
function reallyRan(command: string): string[] {
  fs.rmSync(log, { force: true });
  spawnSync(BASH as string, ["-c", command], {
    cwd,
    env: { PATH: bin, HOME: t.home },
    stdio: ["ignore", "ignore", "ignore"],
    timeout: 3000,
  });
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

describe("policy properties", () => {
  it("analyzeCommand and explainCommand never throw on token soup", async () => {
    await fc.assert(
      fc.asyncProperty(soup, async (command) => {
        await analyzeCommand({ command }, { cwd, env: { PATH: bin }, home: t.home, scripts });
        await explain(command);
      }),
      { numRuns: 800 },
    );
  }, 120_000);

  it("with only `true` allowlisted, nothing but `true` ever runs without a person", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 5, arbitrary: script }, { weight: 1, arbitrary: soup }),
        async (command) => {
          const e = await explain(command);
          if (e.outcome !== "run") return;
          runs++;
          expect(
            e.segments.every((s) => s.resolvedPath === trueReal),
            command,
          ).toBe(true);
          expect(
            e.flagDetails.filter((f) => !f.coveredBy),
            command,
          ).toEqual([]);
          if (BASH)
            expect(
              reallyRan(command).filter((n) => n !== "true"),
              command,
            ).toEqual([]);
        },
      ),
      { numRuns: 1200 },
    );
    expect(runs).toBeGreaterThan(200); // the generator does produce commands that run
  }, 180_000); // ~15 s of CPU; generous for shared, loaded CI machines
});
