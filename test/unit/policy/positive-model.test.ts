// The positive model (exec-policy.md "Analysing a command"): what is understood runs under the
// allowlist, what is not understood needs a person — and explain says which word and why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandInput, Explanation } from "../../../src/core/policy/index.js";
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

describe("harmless commands keep running without a person", () => {
  it.each([
    "echo hi >& /dev/null",
    "ls -la | grep x",
    "echo $((16#ff))",
    "git log --oneline -5",
    "python3 - <<EOF\nimport os\nprint(os.getcwd())\nEOF",
    "cd /tmp && git status",
    "export CI=true && git status",
    "set -euo pipefail; git status",
    'for f in *.txt; do echo "$f"; done',
    "command -v git",
    // tools that also write or change the machine by an option, used only to read
    "shuf -n 1 words.txt",
    "xxd -l 64 in.bin",
    "xxd -p -c 32 in.bin",
    "yq '.a' config.yaml",
    "less in.txt",
    "date +%s",
    "date -u -d @0 +%F",
    "date -Iseconds",
    "hostname",
    "hostname -f",
    "sdiff -s a b",
    "arch",
    "openssl x509 -in cert.pem -noout -text",
    "openssl dgst -sha256 -out /dev/null file",
  ])("%j", async (command) => {
    const e = await explainAll(command);
    expect(
      e.flagDetails.filter((f) => !f.coveredBy),
      command,
    ).toEqual([]);
    expect(e.outcome).toBe("run");
  });
});

describe("shell builtins that run no program", () => {
  it("are covered without an entry, and explain says why", async () => {
    const e = await explainWith(fx, approvalsWith([]))("cd /tmp && export CI=1 && set -e");
    expect(e.outcome).toBe("run");
    expect(e.segments.map((s) => s.builtin !== undefined)).toEqual([true, true, true]);
    expect(e.segments[0]?.builtin).toContain("working folder");
  });

  it.each([
    ["export PATH=/tmp/evil", "dangerous-assignment"],
    ["declare -i n", "dynamic-argument"],
    ["set -o posix", "tool-option"],
    ["shopt -s expand_aliases", "tool-option"],
    ["unset IFS", "dangerous-assignment"],
    ["read PATH", "dangerous-assignment"],
    ["trap 'rm -rf /' EXIT", "none"],
  ])("but not when their arguments change what runs: %s", async (command, kind) => {
    const e = await explainWith(fx, approvalsWith([]))(command);
    expect(e.outcome).toBe("prompt");
    if (kind !== "none") expect(e.flags).toContain(kind);
  });

  it("the action of trap is analysed like any script", async () => {
    const e = await explainAll("trap 'rm -rf build' EXIT");
    expect(e.segments.map((s) => s.argv.join(" "))).toEqual(["trap rm -rf build EXIT", "rm -rf build"]);
  });
});

describe("after a cd, where a command runs is known only when it runs", () => {
  it("a relative program is not resolved, and an entry limited to a folder does not match", async () => {
    const e = await explainAll("cd sub && ./tool");
    expect(e.segments[1]?.resolvedPath).toBeNull();
    expect(e.segments[1]?.resolveError).toContain("cd");
    const limited = approvalsWith([entry(fx.tool("git"), { id: "here", cwd: `${fx.cwd}/**` })]);
    const g = await explainWith(fx, limited)("cd /tmp; git status");
    expect(g.segments[1]?.missReason).toContain("cd");
    expect(g.outcome).toBe("prompt");
  });
});

describe("every flag names the word and why", () => {
  it.each([
    ["echo ${v:x}", "${v:x}"],
    ["echo $((x + 1))", "evaluates variables"],
    ["a=([x]=1)", "arrays and subscripts"],
    ['echo "$\\\n(id)"', "line continuation"],
    ['python3 "$X"', "$X"],
    ["git {-c,alias.x=!id} x", "{-c,alias.x=!id}"],
    ["sort -o out.txt in.txt", "sort -o writes to out.txt"],
    ["sed 's/a/b/w out' f", "writes to out"],
    ["tar -cf - --checkpoint-action=exec=id .", "--checkpoint-action"],
    ["git frobnicate", "not one of git's own commands"],
    ["echo x | xargs env", "known only when it runs"],
    // tools people allow for reading that write or change the machine, and launchers of other programs
    ["shuf -o out.txt in.txt", "shuf -o writes to out.txt"],
    ["shuf --output=out.txt in.txt", "shuf -o writes to out.txt"],
    ["sdiff -o merged a b", "sdiff -o writes to merged"],
    ["sdiff --diff-program=./x a b", "sdiff --diff-program runs ./x"],
    ["xxd in.bin out.hex", "xxd writes to out.hex"],
    ["xxd -r -p in.hex out.bin", "xxd writes to out.bin"],
    ["yq -i '.a = 1' config.yaml", "yq -i writes files"],
    ["yq --inplace '.a = 1' config.yaml", "yq --inplace writes files"],
    ["less -o copy.txt in.txt", "less -o writes to copy.txt"],
    ["less '+!id' in.txt", "runs less commands at start-up"],
    ["less -k keys in.txt", "less reads key bindings from keys"],
    ["date -s '2030-01-01'", "date -s sets the clock to 2030-01-01"],
    ["date --set=tomorrow", "date -s sets the clock to tomorrow"],
    ["date 010100002030", "date 010100002030 sets the clock"],
    ["hostname other-host", "hostname other-host sets the host name"],
    ["hostname -F /tmp/name", "hostname -F sets the host name from /tmp/name"],
    ["date --frobnicate", "date option --frobnicate is not one Gatehouse knows"],
    ["unshare -r rm -rf x", "unshare can start the program in its arguments (-r rm -rf x)"],
    ["tmux new -d 'make'", "tmux can start the program in its arguments (new -d make)"],
    ["tmux", "tmux can start a shell"],
    ["openssl enc -in a -out b", "openssl -out writes to b"],
    ["openssl x509 -engine ./evil.so -in c.pem", "openssl -engine loads ./evil.so, which can run code"],
    ["openssl req -config ./x.cnf", "openssl -config loads ./x.cnf"],
  ])("%s", async (command, words) => {
    const e = await explainAll(command);
    expect(e.outcome).toBe("prompt");
    expect(e.flagDetails.map((f) => f.detail).join("\n")).toContain(words);
  });
});

describe("tools that run programs or write files by their options", () => {
  it("an entry without an argPattern is shown as a broad grant", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("git"), { id: "git-any" })]))("git status");
    expect(e.outcome).toBe("run");
    expect(e.segments[0]?.broadGrant).toContain("any arguments");
    const plain = await explainWith(fx, approvalsWith([entry(fx.tool("ls"), { id: "ls" })]))("ls -la");
    expect(plain.segments[0]?.broadGrant).toBeUndefined();
  });

  it("allow always proposes their exact arguments", async () => {
    const e = await explainWith(fx, approvalsWith([]))("git push --force origin main && ls");
    expect(e.proposedEntries).toEqual([
      { pattern: fx.tool("git"), argPattern: "^push --force origin main$", segment: 0 },
      { pattern: fx.tool("ls"), segment: 1 },
    ]);
  });

  it("an entry with an argPattern covers a risky option it matches exactly", async () => {
    const approvals = approvalsWith([
      entry(fx.tool("git"), { id: "git-diff-out", argPattern: "^diff --output=d\\.txt$" }),
    ]);
    const e = await explainWith(fx, approvals)("git diff --output=d.txt");
    expect(e.outcome).toBe("run");
    expect(e.flagDetails[0]).toMatchObject({ kind: "tool-option", coveredBy: "git-diff-out" });
  });
});

describe("a string another shell runs is read the way that shell reads it", () => {
  it("for POSIX sh (dash), bash-only constructs need a person: dash reads them differently", async () => {
    const bash = await explainAll({ command: "ls &>/dev/null" });
    expect(bash.outcome).toBe("run");
    for (const command of ["ls &>/dev/null", "echo $'a'", "[[ -f x ]] && ls", "cat <(ls)"]) {
      const sh = await explainAll({ command, posixShell: "sh" });
      expect(sh.outcome, command).toBe("prompt");
      expect(sh.flags).toContain("expansion");
    }
  });

  it("for zsh, a redirect without a command runs $NULLCMD", async () => {
    expect((await explainAll({ command: "< notes.txt" })).outcome).toBe("run");
    const zsh = await explainAll({ command: "< notes.txt", posixShell: "zsh" });
    expect(zsh.outcome).toBe("prompt");
    expect(zsh.flags).toContain("dynamic-command");
  });

  it("a string whose shell is not known for sure is read under every candidate, and the strictest verdict holds", async () => {
    for (const candidates of [
      ["bash", "zsh"],
      ["zsh", "bash"],
    ] as const) {
      const both = await explainAll({ command: "< notes.txt", posixShell: [...candidates] });
      expect(both.outcome).toBe("prompt");
      expect(both.flags).toContain("dynamic-command");
      expect(both.command.posixShell).toEqual(candidates);
    }
    expect((await explainAll({ command: "< notes.txt", posixShell: ["bash"] })).outcome).toBe("run");
  });
});
