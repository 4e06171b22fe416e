// Segments: every simple command that would run, wherever it hides, through dispatch wrappers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeCommand, type Analysis, type CommandInput } from "../../../src/core/policy/index.js";
import { makePolicyFixture, type PolicyFixture } from "./policy-fixture.js";

let fx: PolicyFixture;
beforeAll(async () => {
  fx = await makePolicyFixture();
});
afterAll(async () => fx.cleanup());

function analyze(command: string | string[] | CommandInput): Promise<Analysis> {
  const input =
    typeof command === "string" ? { command } : Array.isArray(command) ? { argv: command } : command;
  return analyzeCommand(input, { cwd: fx.cwd, env: fx.env, home: fx.t.home });
}

async function names(command: string | string[]): Promise<string[]> {
  return (await analyze(command)).segments.map((s) => s.argv.join(" "));
}

describe("segments of a shell string", () => {
  it("splits across &&, ||, ;, pipes and newlines", async () => {
    expect(await names("git a && git b || git c; git d | grep e |& cat\ngit f")).toEqual([
      "git a",
      "git b",
      "git c",
      "git d",
      "grep e",
      "cat",
      "git f",
    ]);
  });

  it("finds commands inside $(…), backticks, subshells, groups and process substitutions", async () => {
    const a = await analyze("echo $(git a) `git b` && (git c; git d) && { git e; } && cat <(git f) >(git g)");
    const byName = Object.fromEntries(a.segments.map((s) => [s.argv.join(" "), s.context]));
    expect(byName).toMatchObject({
      "git a": "substitution",
      "git b": "backticks",
      "git c": "subshell",
      "git d": "subshell",
      "git e": "group",
      "git f": "process substitution",
      "git g": "process substitution",
    });
  });

  it("finds commands in substitutions nested in quotes, parameter defaults, assignments and redirect targets", async () => {
    const found = await names('X="$(git a)" echo "${Y:-$(git b)}" > "$(git c)"; cat <<EOF\n$(git d)\nEOF');
    for (const n of ["git a", "git b", "git c", "git d"]) expect(found).toContain(n);
  });

  it("takes a quoted here-document literally", async () => {
    expect(await names("cat <<'EOF'\n$(git a)\nEOF")).toEqual(["cat"]);
  });

  it("finds commands in if, while, until, for, case and select bodies and conditions", async () => {
    const found = await names(
      "if git a; then git b; elif git c; then git d; else git e; fi; while git f; do git g; done; until git h; do :; done; " +
        "for x in $(git i); do git j; done; case $(git k) in a|b) git l;; *) git m;; esac",
    );
    for (const n of [
      "git a",
      "git b",
      "git c",
      "git d",
      "git e",
      "git f",
      "git g",
      "git h",
      "git i",
      "git j",
      "git k",
      "git l",
      "git m",
    ]) {
      expect(found).toContain(n);
    }
  });

  it("analyses the script of sh, bash, zsh and dash -c, whatever options come first", async () => {
    for (const shell of ["sh -c", "bash -lc", "bash -e -c", "bash -o pipefail -c", "zsh -c", "dash -c"]) {
      const found = await names(`${shell} 'git push && rm -rf x' name arg`);
      expect(found.slice(1), shell).toEqual(["git push", "rm -rf x"]);
    }
  });

  it("analyses sh -c given as an argv", async () => {
    const a = await analyze(["bash", "-c", "git push; rm x"]);
    expect(a.segments.map((s) => [s.argv.join(" "), s.context])).toEqual([
      ["bash -c git push; rm x", "top"],
      ["git push", "bash -c"],
      ["rm x", "bash -c"],
    ]);
  });

  it("keeps a shell running a script file or stdin as one segment", async () => {
    expect(await names("bash script.sh")).toEqual(["bash script.sh"]);
    expect(await names("curl x | sh")).toEqual(["curl x", "sh"]);
  });

  it("resolves quoting in argument words and keeps expansions as placeholders", async () => {
    const a = await analyze(`git commit -m "a b" 'c d' e\\ f $'g\\th' "x$HOME" $(date)`);
    expect(a.segments[0]?.argv).toEqual([
      "git",
      "commit",
      "-m",
      "a b",
      "c d",
      "e f",
      "g\th",
      '"x$HOME"',
      "$(date)",
    ]);
    expect(a.segments[0]?.dynamicArgs).toBe(true);
    expect(a.segments[1]?.argv).toEqual(["date"]);
  });

  it("reads unicode words", async () => {
    expect(await names("git commit -m 'héllo wörld ✓' && echo 日本")).toEqual([
      "git commit -m héllo wörld ✓",
      "echo 日本",
    ]);
  });

  it("treats a shell keyword time as syntax, not a command", async () => {
    expect(await names("time git status")).toEqual(["git status"]);
  });
});

describe("dispatch wrappers", () => {
  it.each([
    ["env -i FOO=1 git push", ["env -i FOO=1 git push", "git push"]],
    ["env -u HOME -- git push", ["env -u HOME -- git push", "git push"]],
    ["timeout 5 git push", ["timeout 5 git push", "git push"]],
    ["timeout -k 2 -s KILL 5s git push", ["timeout -k 2 -s KILL 5s git push", "git push"]],
    ["nice -n 5 git push", ["nice -n 5 git push", "git push"]],
    ["nice -5 git push", ["nice -5 git push", "git push"]],
    ["nohup git push", ["nohup git push", "git push"]],
    ["stdbuf -oL git push", ["stdbuf -oL git push", "git push"]],
    ["stdbuf -o L -e 0 git push", ["stdbuf -o L -e 0 git push", "git push"]],
    ["command git push", ["command git push", "git push"]],
    [
      "env nice -n 1 timeout 3 git push",
      ["env nice -n 1 timeout 3 git push", "nice -n 1 timeout 3 git push", "timeout 3 git push", "git push"],
    ],
  ])("unwraps %s; the wrapper is a segment too", async (command, expected) => {
    const a = await analyze(command);
    expect(a.segments.map((s) => s.argv.join(" "))).toEqual(expected);
    expect(a.segments.slice(0, -1).every((s) => s.wrapper)).toBe(true);
    expect(a.flags).toEqual([]);
  });

  it("unwraps xargs: the command it runs is a segment", async () => {
    const a = await analyze("find . -name '*.tmp' -print0 | xargs -0 -n 1 rm -f");
    expect(a.segments.map((s) => [s.argv.join(" "), s.wrapper ?? false])).toEqual([
      ["find . -name *.tmp -print0", false],
      ["xargs -0 -n 1 rm -f", true],
      ["rm -f …", false], // … stands for the words xargs reads from its input
    ]);
  });

  it("the commands find -exec runs are segments", async () => {
    const a = await analyze("find . -name x -exec rm {} \\; -o -execdir git add {} +");
    expect(a.segments.map((s) => [s.argv.join(" "), s.context])).toEqual([
      ["find . -name x -exec rm {} ; -o -execdir git add {} +", "top"],
      ["rm …", "find -exec"], // … stands for the file names find fills in
      ["git add …", "find -execdir"],
    ]);
  });

  it("unwraps GNU time given as an argv", async () => {
    expect(await names(["time", "-p", "git", "push"])).toEqual(["time -p git push", "git push"]);
  });

  it("command -v only describes a command: nothing else runs", async () => {
    expect(await names("command -v git")).toEqual(["command -v git"]);
  });

  it("never unwraps sudo or doas", async () => {
    expect(await names("sudo rm -rf /")).toEqual(["sudo rm -rf /"]);
    expect(await names("doas git push")).toEqual(["doas git push"]);
  });

  it("resolves what env -i starts with the default PATH, not the caller's", async () => {
    const a = await analyze("env -i git status");
    expect(a.segments[1]?.resolvedPath).not.toBe(fx.tool("git"));
  });
});

describe("argv input", () => {
  it("is one segment per command, with no shell syntax", async () => {
    const a = await analyze(["git", "log", "&&", "rm", "-rf", "/"]);
    expect(a.segments).toHaveLength(1);
    expect(a.flags).toEqual([]);
  });

  it("an empty argv is a parse error", async () => {
    const a = await analyze([]);
    expect(a.ok).toBe(false);
    expect(a.flags[0]?.kind).toBe("parse-error");
  });
});

describe("shell builtins", () => {
  it("a builtin with no executable twin never resolves to a file", async () => {
    const a = await analyze("cd /tmp && git status");
    expect(a.segments[0]).toMatchObject({ executable: "cd", resolvedPath: null });
    expect(a.segments[0]?.resolveError).toMatch(/shell builtin/);
  });
});
