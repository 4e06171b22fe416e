// Tricky shell constructs, each really executed by bash with a PATH of logging stand-ins: whenever bash
// runs the hidden command `x`, the policy (allowlist: only `true`) must not have said `run`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainCommand } from "../../../src/core/policy/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { approvalsWith, entry } from "./policy-fixture.js";

const BASH = ["/bin/bash", "/usr/bin/bash"].find((p) => fs.existsSync(p));

let t: TempHome;
let bin: string;
let cwd: string;
let log: string;
beforeAll(async () => {
  t = await makeTempHome("gatehouse-oracle-");
  bin = path.join(t.home, "bin");
  cwd = path.join(t.home, "cwd");
  log = path.join(t.home, "ran.log");
  fs.mkdirSync(bin);
  fs.mkdirSync(cwd);
  for (const name of ["true", "x", "echo"]) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho ${name} >> "${log}"\n`, { mode: 0o755 });
  }
});
afterAll(async () => t.cleanup());

const TRICKY = [
  "true $(x)",
  'true "$(x)"',
  "true `x`",
  'true "`x`"',
  "true <(x)",
  "true >(x)",
  "true ${a:-$(x)}",
  'true "${a:-$(x)}"',
  `true "\${a:-'$(x)'}"`,
  `true \${a:-'$(x)'}`,
  'true "${a:-"$(x)"}"',
  "true ${a/$(x)/b}",
  "true <<EOF\n$(x)\nEOF",
  "true <<-EOF\n\t$(x)\n\tEOF",
  "true <<EOF\n${a:-'$(x)'}\nEOF",
  "true <<'EOF'\n$(x)\nEOF",
  'true <<"EOF"\n$(x)\nEOF',
  "true $(( $(x) ))",
  "case $(x) in *) true;; esac",
  "case a in $(x)) true;; esac",
  "for i in $(x); do true; done",
  "[[ $(x) ]]",
  "true 'a'\"$(x)\"",
  "true '$(x)'",
  "true # $(x)",
  "true \\\n$(x)",
  "true;x",
  "true&&x",
  "true||x",
  "true|x",
  "a=$(x) true",
  "a=$(x)",
  "a=( $(x) ) true",
  "true $(case a in a) x;; esac)",
  'true $(echo ")"; x)',
  "true `echo \\`x\\``",
  'true "$(true "$(x)")"',
  "true < <(x)",
  "true <<< $(x)",
  "true > /dev/null $(x)",
  "x\\\n",
  "\\x",
  '"x"',
  "'x'",
  "$'x'",
  "x''",
  "true\rx",
  "{ x; }",
  "(x)",
  "if true; then x; fi",
  "while x; do break; done",
  "true | { x; }",
  "! x",
  "time x",
  "true ${a[$(x)]}",
  "declare -a a=($(x))",
  "true $[$(x)]",
  'true "$(x)"\'',
  `v='a[$(x)]'; [ "$v" -eq 1 ]`,
  `v='a[$(x)]'; true "\${!v}"`,
  `v='a[$(x)]'; true $((v))`,
  `v='a[$(x)]'; true \${arr[v]}`,
  // shapes tree-sitter-bash reads differently from bash
  "true a\\\n#;x",
  "true \\\n#;x",
  "coproc N { x; }",
  "time { x; }",
  'true $"$(x)"',
  "true a > f x",
  "true <<A <<B\n$(x)\nA\n$(x)\nB",
  "true <<EOF | x\nEOF",
  "true >\nx",
  "true\tx",
  "{x,y}",
  "true ${a:-`x`}",
  "true \"${a:-'`x`'}\"",
  "true $(x)$(x)",
  "[ \nx ]",
  "true $([ \nx ])",
  "true $(2>/dev/null \n x)",
  "true && true 2>&1 | x",
  "true <<EOF >/dev/null\n$(x)\nEOF",
  "true <<'EOF' >/dev/null\n$(x)\nEOF\nx",
  "true <<EOF && x\nEOF",
  "true <<EOF | true && x\nEOF",
  "true <<'EOF' | true\n$(x)\nEOF",
];

describe("hidden commands are found (checked against real bash)", () => {
  it.skipIf(!BASH).each(TRICKY)("%j", async (command) => {
    const e = await explainCommand(
      { command },
      {
        agentId: "local",
        cwd,
        env: { PATH: bin, HOME: t.home },
        home: t.home,
        approvals: approvalsWith([entry(fs.realpathSync(path.join(bin, "true")))]),
        now: 0,
      },
    );
    fs.rmSync(log, { force: true });
    spawnSync(BASH as string, ["-c", command], {
      cwd,
      env: { PATH: bin, HOME: t.home },
      stdio: "ignore",
      timeout: 5000,
    });
    const ran = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    if (ran.some((name) => name !== "true")) expect(e.outcome, `bash ran ${ran.join(", ")}`).not.toBe("run");
    if (e.outcome === "run") expect(ran.filter((n) => n !== "true")).toEqual([]);
  });
});
