// The read rule (docs/decisions.md "One read rule", src/core/policy/file-reads.ts): the files a command
// opens are worked out as the shell and the program will (globs on disk, quotes, braces, variables of the
// command's environment, cd's, links) and judged: Gatehouse's own folder always needs a person, the
// credentials and agent configuration folders need one, a file known only when it runs needs one, and
// ordinary reads — the task's folder, /etc/os-release, /usr/share — run as before. Every program a
// command uses is on the allowlist, so only the read rule can stop it. Running the attacks for real is
// test/integration/policy-cli/attack-classes.test.ts.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicySettings } from "../../../src/core/approvals/index.js";
import { fallbackDecision } from "../../../src/core/policy/decide.js";
import { ownFilesOf, type Explanation } from "../../../src/core/policy/index.js";
import { approvalsWith, entry, explainWith, makeExecutable, type PolicyFixture } from "./policy-fixture.js";
import { makeTempHome } from "../../support/temp-home.js";

const TOOLS = [
  "cat",
  "head",
  "grep",
  "rg",
  "sed",
  "cp",
  "tar",
  "base64",
  "xxd",
  "ls",
  "echo",
  "git",
  "wc",
  "find",
  "xargs",
  "dd",
  "sort",
  "jq",
  "ln",
  "npm",
  "mytool",
  "diff",
  "zip",
];

let fx: PolicyFixture;
let E: string;
let work: string;
const ALLOW: PolicySettings = { security: "allowlist", ask: "on-miss", askFallback: "deny" };

beforeAll(async () => {
  const t = await makeTempHome("gatehouse-read-rule-");
  const bin = path.join(t.home, "bin");
  for (const name of TOOLS) await makeExecutable(path.join(bin, name));
  E = t.paths.executorHome;
  work = path.join(t.paths.defaultWorkspaceRoot, "task-1");
  await fs.mkdir(work, { recursive: true });
  await fs.writeFile(path.join(E, "exec-approvals.json"), '{"socket":{"token":"secret"}}');
  await fs.mkdir(path.join(t.home, ".ssh"));
  await fs.writeFile(path.join(t.home, ".ssh", "id_rsa"), "KEY");
  await fs.mkdir(path.join(t.home, ".aws"));
  await fs.writeFile(path.join(t.home, ".aws", "credentials"), "AWS");
  await fs.mkdir(path.join(t.home, ".claude"));
  await fs.writeFile(path.join(t.home, ".claude", ".credentials.json"), "{}");
  await fs.mkdir(path.join(work, "src"));
  await fs.writeFile(path.join(work, "src", "a.ts"), "x");
  await fs.writeFile(path.join(work, "README.md"), "x");
  await fs.symlink(path.join(E, "exec-approvals.json"), path.join(work, "notes.txt"));
  await fs.symlink(path.join(t.home, ".ssh"), path.join(work, "keys"));
  fx = {
    t,
    bin,
    tool: (name) => path.join(bin, name),
    env: { PATH: bin, HOME: t.home, PROJECT: work },
    cwd: work,
    cleanup: () => t.cleanup(),
  };
});
afterAll(async () => fx?.cleanup());

async function explain(command: string, settings: PolicySettings = ALLOW): Promise<Explanation> {
  const entries = await Promise.all(TOOLS.map(async (n) => entry(await fs.realpath(fx.tool(n)))));
  return explainWith(fx, approvalsWith(entries, settings), { ownFiles: ownFilesOf(fx.t.paths) })(command);
}

const kinds = (e: Explanation) => e.flagDetails.filter((f) => !f.coveredBy).map((f) => f.kind);

describe("a read of Gatehouse's own folder needs a person, however it is spelt", () => {
  it.each([
    "cat ~/.wegent-e*/exec-approvals.json",
    "cat ~/.wegent-executo?/exec-approvals.json",
    "cat ~/.wegent-executo[r]/exec-approvals.json",
    'cat ~/.we"gent"-executor/exec-approvals.json',
    "cat ~/.wegent\\-executor/exec-approvals.json",
    "cat ~/.{wegent-executor,none}/exec-approvals.json",
    'cat "$HOME"/.wegent-e*/exec-approvals.json',
    "cat notes.txt",
    "cat ./notes.txt",
    // a link met after its folder's real path is known (each file is looked at from there)
    "cat README.md src/a.ts notes.txt",
    "cat missing/file notes.txt",
    "cat < ~/.wegent-e*/exec-approvals.json",
    'echo "$(< ~/.wegent-e*/exec-approvals.json)"',
    "head -c 99 ~/.we*/*.json",
    "grep -r token ~/.wegent-e*",
    "grep -rh token ~",
    "tar cf - ~/.wegent-e* | tar xOf -",
    "cp ~/.wegent-e*/exec-approvals.json /tmp/x",
    "ln -s ~/.wegent-e*/exec-approvals.json l",
    "find ~/.we* -name '*.json' -exec cat {} +",
    "find ~/.we* -name '*.json' | xargs cat",
    "cat $(find ~/.we* -name '*.json')",
    "cd ~ && cat .we*/exec-approvals.json",
    'mytool --config="$HOME"/.we"gent"-executor/exec-approvals.json',
  ])("%s", async (command) => {
    const e = await explain(command);
    expect(e.outcome).toBe("prompt");
    expect(kinds(e)).toContain("own-files");
  });

  it("even under security=full, and with ask=off it is refused", async () => {
    const full = await explain("cat ~/.wegent-e*/exec-approvals.json", {
      security: "full",
      ask: "on-miss",
      askFallback: "full",
    });
    expect(full.outcome).toBe("prompt");
    expect(full.reason).toMatch(/^own-files: security=full; cat reads .*exec-approvals\.json/);
    // nobody answers: askFallback=full does not open it either
    expect(fallbackDecision(full, "no-approver")).toEqual({
      allowed: false,
      reason: "no-approver (own-files)",
    });
    const off = await explain("cat notes.txt", { security: "full", ask: "off", askFallback: "full" });
    expect(off.outcome).toBe("deny");
    expect(off.reason).toMatch(/^own-files \(ask=off\)/);
  });

  it("the workspace inside it is the task's own: reading there runs", async () => {
    const e = await explain(
      `cat ${path.join(work, "README.md")} src/*.ts ~/.wegent-executor/workspace/task-1/src/a.ts`,
    );
    expect(e.outcome).toBe("run");
  });
});

describe("a read of a credentials or agent configuration folder needs a person", () => {
  it.each([
    ["cat ~/.ssh/id_rsa", "a credentials folder"],
    ["cat ~/.ss?/id_rsa", "a credentials folder"],
    ["cat keys/id_rsa", "a credentials folder"],
    ["cat README.md keys/id_rsa", "a credentials folder"],
    ["cat missing/x keys/id_rsa", "a credentials folder"],
    ["git log -p keys/id_rsa", "a credentials folder"],
    ["base64 ~/.aws/credentials", "a credentials folder"],
    ["xxd ~/.aws/cred*", "a credentials folder"],
    ["dd if=~/.ssh/id_rsa", "a credentials folder"],
    ["sed -n p ~/.ssh/id_rsa", "a credentials folder"],
    ["grep -r '' ~/.ssh", "a credentials folder"],
    ["git diff --no-index /dev/null ~/.ssh/id_rsa", "a credentials folder"],
    ["cat ~/.claude/.credentials.json", "an agent configuration folder"],
    ["cat /proc/self/environ", "another process's environment"],
    ["cd ~/.ssh; cat id_rsa", "a credentials folder"],
    // the task's folder holds a link to ~/.ssh: what a finder lists there leads into it
    ["find . -type f | xargs cat", "a credentials folder"],
    ["wc -l $(git ls-files)", "a credentials folder"],
  ])("%s (%s)", async (command, where) => {
    const e = await explain(command);
    expect(e.outcome).toBe("prompt");
    const flag = e.flagDetails.find((f) => f.kind === "protected-files");
    expect(flag?.detail).toContain(where);
  });

  it("runs under security=full, as the Read tool's reads outside the folder do", async () => {
    const e = await explain("cat ~/.ssh/id_rsa", { security: "full", ask: "off", askFallback: "deny" });
    expect(e.outcome).toBe("run");
  });

  it("an allowlist entry for exactly those arguments covers it, and allow always proposes one", async () => {
    const cat = await fs.realpath(fx.tool("cat"));
    const proposed = (await explain("cat ~/.ssh/id_rsa")).proposedEntries;
    expect(proposed).toEqual([{ pattern: cat, argPattern: "^~\\/\\.ssh\\/id_rsa$", segment: 0 }]);
    const covered = await explainWith(
      fx,
      approvalsWith([entry(cat, { argPattern: "^~\\/\\.ssh\\/id_rsa$" })]),
      { ownFiles: ownFilesOf(fx.t.paths) },
    )("cat ~/.ssh/id_rsa");
    expect(covered.outcome).toBe("run");
  });
});

describe("a file known only when it runs needs a person", () => {
  it.each([
    ["cat $(echo ~/.ssh/id_rsa)", "known only when it runs"],
    ["echo ~/.ssh/id_rsa | xargs cat", "known only when it runs"],
    ["cat $UNSET_VARIABLE/x", "is not set where the command runs"],
    ["f=~/.ssh/id_rsa; cat $f", "known only when it runs"],
    ["PROJECT=~/.ssh; cat $PROJECT/id_rsa", "known only when it runs"],
    ["cat ~root/.ssh/id_rsa", "known only when it runs"],
    ["cd $UNSET_FOLDER && cat README.md", "known only when it runs"],
    ["cd - && cat README.md", "known only when it runs"],
    ["git checkout other && cat README.md", "may change before they are read"],
    ["mytool $(date)", "known only when it runs"],
  ])("%s", async (command, why) => {
    const e = await explain(command);
    expect(e.outcome).toBe("prompt");
    expect(e.flagDetails.find((f) => f.kind === "unknown-file")?.detail).toContain(why);
  });

  it("a glob that matches more names than Gatehouse looks at", async () => {
    const many = path.join(work, "many");
    await fs.mkdir(many);
    for (let i = 0; i < 300; i++) await fs.writeFile(path.join(many, `f${i}`), "");
    const e = await explain("cat many/*");
    expect(e.flagDetails.find((f) => f.kind === "unknown-file")?.detail).toContain("more names");
    await fs.rm(many, { recursive: true });
  });
});

describe("ordinary reads run as before", () => {
  it.each([
    "cat README.md",
    "cat src/*.ts | wc -l",
    "grep -rn TODO src",
    "rg -n fetch",
    "head -n 20 /etc/os-release",
    "cat /usr/share/dict/words 2>/dev/null | head",
    "wc -l $(git ls-files src)",
    "find src -name '*.ts' | xargs grep -l x",
    "find src -type f -exec wc -l {} +",
    "cd src && cat a.ts",
    "cd src && cd .. && cat README.md",
    "ls -la ~/.ssh ~/.wegent-executor/workspace",
    'echo "$HOME" ~/.ssh/*',
    "cat $PROJECT/README.md",
    "git status && cat README.md",
    "cp README.md /tmp/copy.md",
    "sort -u src/a.ts",
    "jq .name package.json",
    "diff -u README.md src/a.ts",
    // a word no file can have (longer than a name may be): judged as written, as the kernel refuses it
    `git log --grep "${"x".repeat(5_000)}"`,
    `cat ${"y".repeat(300)}/z`,
  ])("%s", async (command) => {
    const e = await explain(command);
    expect(kinds(e)).toEqual([]);
    expect(e.outcome).toBe("run");
  });
});

describe("the text net stays as a second line", () => {
  it("a command naming Gatehouse's folder in its text needs a person even where no file is opened", async () => {
    const e = await explain("echo ~/.wegent-executor/exec-approvals.json");
    expect(kinds(e)).toEqual(["own-files"]);
  });
});
