// The shell reader is tree-sitter-bash: where its grammar reads bash differently from bash, the reader
// refuses (a `parse-error`: a person decides) or rebuilds bash's reading exactly; it never guesses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  analyzeCommand,
  parseScriptChecked,
  type CommandInput,
  type Explanation,
} from "../../../src/core/policy/index.js";
import {
  approvalsWith,
  entry,
  explainWith,
  makePolicyFixture,
  type PolicyFixture,
} from "./policy-fixture.js";

let fx: PolicyFixture;
let explainAll: (command: string | string[] | CommandInput) => Promise<Explanation>;
beforeAll(async () => {
  fx = await makePolicyFixture();
  explainAll = explainWith(fx, approvalsWith([entry("*", { id: "any" })]));
});
afterAll(async () => fx.cleanup());

async function segments(command: string): Promise<string[]> {
  const a = await analyzeCommand({ command }, { cwd: fx.cwd, env: fx.env, home: fx.t.home });
  return a.segments.map((s) => s.argv.join(" "));
}

describe("constructs tree-sitter-bash misreads are refused", () => {
  it.each([
    ["a carriage return, which bash reads as part of a word", "true\rrm -rf x"],
    ["a # after a line continuation, which continues the word", "ls a\\\n#; rm -rf x"],
    ["coproc with a name and a group", "coproc N { rm x; }"],
    ["time before a group", "time { rm x; }"],
    ['a translated string $"…"', 'echo $"rm"'],
    ["two here-documents on one line", "cat <<A <<B\na\nA\nb\nB"],
    ["a ; after a here-document's delimiter", "cat <<EOF ; rm x\na\nEOF"],
    ["backslashes inside backticks", "echo `echo \\`rm x\\``"],
    ["quotes and substitutions inside ${…}", "echo \"${a:-'$(rm x)'}\""],
    ["an extglob", "ls @(x|y)"],
    ["brace expansion as the command name", "{git,rm} x"],
    ["< inside [ ] (a redirect to bash)", "[ a < b ]"],
    ["&& inside [ ] (a list to bash)", "[ a && b ]"],
    ["a redirect target on the next line", "ls >\nx"],
    ["[ with its words on the next line (a new command to bash)", "echo $([ \nrm x ])"],
    ["a command name on the line after its redirects", "echo $(2>a[> b \n ]rm x)"],
    ["words after a redirect target", "echo a > f b"],
    ["time after a pipe", "ls | time git status"],
    ["a backtick inside ${…}", "echo ${a:-`rm x`}"],
  ])("%s needs a person: %j", async (_what, command) => {
    const e = await explainAll(command);
    expect(e.flags).toContain("parse-error");
    expect(e.outcome).toBe("prompt");
    expect(e.flagDetails.find((f) => f.kind === "parse-error")?.detail).toMatch(/could not be parsed/);
  });

  it("the error names what was not understood", async () => {
    const parsed = await parseScriptChecked("true\rx");
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining("\\r") });
  });
});

describe("gaps in the grammar rebuilt exactly", () => {
  it("<> opens a file for reading and writing: a write", async () => {
    const e = await explainAll("cat <> f");
    expect(e.flags).toEqual(["redirect"]);
    expect(e.flagDetails[0]?.detail).toContain("<>f");
  });

  it("a lone - before a here-document (tree-sitter drops it) is the argument bash reads", async () => {
    expect(await segments("python3 - <<EOF\nprint(1)\nEOF")).toEqual(["python3 -"]);
    expect(await segments("cat -  <<'EOF'\nx\nEOF")).toEqual(["cat -"]);
  });

  it("{fd}> names the descriptor it allocates; it is not an argument", async () => {
    const e = await explainAll("ls {fd}>x");
    expect(e.segments.map((s) => s.argv)).toEqual([["ls"]]);
    expect(e.flagDetails[0]?.detail).toContain("{fd}>x");
  });

  it("the keyword time (with -p) is syntax; what it times is the segment", async () => {
    expect(await segments("time -p git status | grep x")).toEqual(["git status", "grep x"]);
    expect(await segments("! time git status")).toEqual(["git status"]);
  });

  it("coproc runs its command in the background", async () => {
    const e = await explainAll("coproc git status");
    expect(e.segments.map((s) => s.argv.join(" "))).toEqual(["git status"]);
    expect(e.flags).toEqual(["background"]);
  });

  it("[ … ] is the command [ with its words in order", async () => {
    const a = await analyzeCommand(
      { command: '[ ! -f "a b" -a 1 = 2 ]' },
      { cwd: fx.cwd, env: fx.env, home: fx.t.home },
    );
    expect(a.segments[0]?.argv).toEqual(["[", "!", "-f", "a b", "-a", "1", "=", "2", "]"]);
  });

  it("comments are not commands, and a # inside a word is not a comment", async () => {
    expect(await segments("# rm -rf x\ngit status # rm y\ngit log a#b")).toEqual([
      "git status",
      "git log a#b",
    ]);
  });

  it("a redirect in the middle of an && chain before a pipe binds to its own command", async () => {
    const e = await explainAll("cd /tmp && git status 2>&1 | grep x");
    expect(e.segments.map((s) => s.argv.join(" "))).toEqual(["cd /tmp", "git status", "grep x"]);
    expect(e.flags).not.toContain("parse-error");
  });

  it("redirects after a here-document's delimiter on its line belong to the same command", async () => {
    const e = await explainAll("cat <<EOF > notes.txt\nhello $(git log)\nEOF");
    expect(e.segments.map((s) => s.argv.join(" "))).toEqual(["cat", "git log"]);
    expect(e.flags).toEqual(["redirect"]);
    expect(e.flagDetails[0]?.detail).toContain("notes.txt");
  });

  it("commands after a here-document's delimiter on its line are segments of the same list", async () => {
    const e = await explainAll("cat <<EOF | grep x && git status\n$(git log)\nEOF");
    expect(e.segments.map((s) => s.argv.join(" ")).sort()).toEqual([
      "cat",
      "git log",
      "git status",
      "grep x",
    ]);
    expect(e.flagDetails).toEqual([]);
  });

  it("a substitution inside a [[ =~ ]] pattern is a segment", async () => {
    expect(await segments("[[ a =~ ^$(rm x)$ ]]")).toEqual(["rm x"]);
  });

  it("a long && chain is read without running out of stack", async () => {
    const command = Array.from({ length: 3000 }, (_, i) => `git a${i}`).join(" && ");
    const found = await segments(command);
    expect(found).toHaveLength(3000);
    expect(found.at(-1)).toBe("git a2999");
  });

  it("absurdly deep nesting is refused, not crashed on", async () => {
    const e = await explainAll(`echo ${"$(".repeat(300)}x${")".repeat(300)}`);
    expect(e.flags).toContain("parse-error");
  });
});
