// Matching allowlist entries: path globs, bare names, `*`, argPattern, cwd, lifetimes, and per-segment
// explanations of why nothing matched.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalsFile } from "../../../src/core/approvals/index.js";
import { compileAllowlist, matchSegment, type Segment } from "../../../src/core/policy/index.js";
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

const fileWith = (entries: ReturnType<typeof entry>[]): ApprovalsFile =>
  (approvalsWith(entries) as { file: ApprovalsFile }).file;

describe("path patterns", () => {
  it("matches the real path: a symlink on PATH is matched by its target", async () => {
    const target = await makeExecutable(path.join(fx.t.home, "real/tool-1.2"));
    const links = path.join(fx.t.home, "links");
    await fs.mkdir(links, { recursive: true });
    await fs.symlink(target, path.join(links, "tool")).catch(() => undefined);
    const run = explainWith(fx, approvalsWith([entry(target)]), { env: { PATH: links } });
    const e = await run("tool --version");
    expect(e.outcome).toBe("run");
    expect(e.segments[0]).toMatchObject({ resolvedPath: target, foundPath: path.join(links, "tool") });
  });

  it("expands ~ in patterns to the home folder", async () => {
    const tool = await makeExecutable(path.join(fx.t.home, "Projects/x/bin/rg"));
    const e = await explainWith(fx, approvalsWith([entry("~/Projects/**/bin/rg")]))(tool);
    expect(e.outcome).toBe("run");
  });

  it("/a/**/b matches /a/b as well as deeper paths", async () => {
    const shallow = await makeExecutable(path.join(fx.t.home, "a/b"));
    const deep = await makeExecutable(path.join(fx.t.home, "a/x/y/b"));
    const run = explainWith(fx, approvalsWith([entry(path.join(fx.t.home, "a/**/b"))]));
    expect((await run(shallow)).outcome).toBe("run");
    expect((await run(deep)).outcome).toBe("run");
  });

  it("treats \\ in a pattern as /", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git").replace(/\//g, "\\"))]),
    )("git status");
    expect(e.outcome).toBe("run");
  });

  it("is case-sensitive on Linux", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("git").toUpperCase())]), {
      platform: "linux",
    })("git status");
    expect(e.outcome).toBe("prompt");
  });

  it("is case-insensitive on macOS and Windows (pure matching)", () => {
    const segment: Segment = {
      argv: ["git"],
      executable: "git",
      resolvedPath: "/Users/U/Bin/Git",
      foundVia: "path",
      foundPath: "/Users/U/Bin/Git",
      context: "top",
      matchedEntryId: null,
    };
    for (const platform of ["darwin", "win32"] as const) {
      const compiled = compileAllowlist(fileWith([entry("/users/u/bin/GIT", { id: "x" })]), "local", {
        home: "/Users/U",
        platform,
      });
      expect(matchSegment(compiled, segment, { cwd: "/", now: 0, platform }).matched?.entry.id).toBe("x");
    }
    const linux = compileAllowlist(fileWith([entry("/users/u/bin/GIT")]), "local", {
      home: "/Users/U",
      platform: "linux",
    });
    expect(matchSegment(linux, segment, { cwd: "/", now: 0, platform: "linux" }).matched).toBeNull();
  });

  it("on macOS, /var and /tmp in patterns stand for the real /private paths", () => {
    const compiled = compileAllowlist(fileWith([entry("/var/folders/**/tool", { id: "v" })]), "local", {
      home: "/Users/u",
      platform: "darwin",
    });
    const segment: Segment = {
      argv: ["tool"],
      executable: "/var/folders/x/tool",
      resolvedPath: "/private/var/folders/x/tool",
      foundVia: "absolute",
      context: "top",
      matchedEntryId: null,
    };
    expect(matchSegment(compiled, segment, { cwd: "/", now: 0, platform: "darwin" }).matched?.entry.id).toBe(
      "v",
    );
  });

  it("an unresolved executable never matches a path pattern, nor *", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry("*"), entry(path.join(fx.bin, "**"))]),
    )("nosuchtool x");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]?.missReason).toMatch(/nosuchtool is not resolved: nosuchtool was not found on PATH/);
  });

  it("a glob character in a real path can be matched exactly when escaped in brackets", async () => {
    const odd = await makeExecutable(path.join(fx.t.home, "odd[1]/tool"));
    const exact = explainWith(fx, approvalsWith([entry(path.join(fx.t.home, "odd[[]1]/tool"))]));
    expect((await exact([odd])).outcome).toBe("run");
    const lookalike = await makeExecutable(path.join(fx.t.home, "odd1/tool"));
    expect((await exact([lookalike])).outcome).toBe("prompt");
    const unescaped = explainWith(fx, approvalsWith([entry(path.join(fx.t.home, "odd[1]/tool"))]));
    expect((await unescaped([lookalike])).outcome).toBe("run");
  });
});

describe("bare names and *", () => {
  it("a bare name matches only commands found through PATH, by file name", async () => {
    const run = explainWith(fx, approvalsWith([entry("git", { id: "bare" })]));
    expect((await run("git status")).segments[0]?.matchedEntryId).toBe("bare");
    const byPath = await run(fx.tool("git"));
    expect(byPath.segments[0]?.matchedEntryId).toBeNull();
    expect(byPath.segments[0]?.missReason).toBe("git (bare) matches only commands found through PATH");
  });

  it("a bare name on Windows ignores the PATHEXT extension and case (pure matching)", () => {
    const compiled = compileAllowlist(fileWith([entry("rg", { id: "rg" })]), "local", {
      home: "C:\\Users\\u",
      platform: "win32",
    });
    const segment: Segment = {
      argv: ["rg"],
      executable: "rg",
      resolvedPath: "C:\\Tools\\RG.EXE",
      foundVia: "path",
      foundPath: "C:\\Tools\\RG.EXE",
      context: "top",
      matchedEntryId: null,
    };
    expect(
      matchSegment(compiled, segment, { cwd: "C:\\", now: 0, platform: "win32" }).matched?.entry.id,
    ).toBe("rg");
  });

  it("* matches every resolved executable", async () => {
    const e = await explainWith(fx, approvalsWith([entry("*")]))("git a && rm b && ./nothing");
    expect(e.segments.map((s) => s.matchedEntryId !== null)).toEqual([true, true, false]);
  });
});

describe("argPattern and cwd", () => {
  it("argPattern is tested against the arguments joined with single spaces", async () => {
    const run = explainWith(fx, approvalsWith([entry(fx.tool("rg"), { id: "rg-n", argPattern: "^-n " })]));
    expect((await run("rg   -n    TODO src")).outcome).toBe("run");
    const miss = await run("rg TODO");
    expect(miss.outcome).toBe("prompt");
    expect(miss.segments[0]?.missReason).toBe(`entry rg-n's argPattern ^-n  does not match "TODO"`);
  });

  it("cwd is a glob the working folder must match", async () => {
    const approvals = approvalsWith([entry(fx.tool("git"), { id: "proj", cwd: "~/project/**" })]);
    expect((await explainWith(fx, approvals)("git status")).outcome).toBe("run");
    const elsewhere = await explainWith(fx, approvals, { cwd: fx.t.home })("git status");
    expect(elsewhere.outcome).toBe("prompt");
    expect(elsewhere.segments[0]?.missReason).toContain("entry proj applies only in ~/project/**");
  });
});

describe("temporary grants", () => {
  const now = 1_000_000;

  it("an entry past its expiresAt matches nothing and says it expired", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git"), { id: "old", expiresAt: now - 1 })]),
      { now },
    )("git status");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]?.missReason).toBe("entry old expired");
  });

  it("an entry before its expiresAt matches; absent, null or 0 never expires", async () => {
    for (const expiresAt of [now + 1, null, 0, undefined]) {
      const extra = expiresAt === undefined ? {} : { expiresAt };
      const e = await explainWith(fx, approvalsWith([entry(fx.tool("git"), extra)]), { now })("git status");
      expect(e.outcome, String(expiresAt)).toBe("run");
    }
  });

  it("usesLeft 0 is used up; absent or null is unlimited; a positive count matches", async () => {
    const used = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git"), { id: "u", usesLeft: 0 })]),
    )("git status");
    expect(used.segments[0]?.missReason).toBe("entry u is used up");
    for (const usesLeft of [null, 3, undefined]) {
      const extra = usesLeft === undefined ? {} : { usesLeft };
      expect(
        (await explainWith(fx, approvalsWith([entry(fx.tool("git"), extra)]))("git status")).outcome,
      ).toBe("run");
    }
  });

  it("a later live entry still matches when an earlier one expired", async () => {
    const approvals = approvalsWith([
      entry(fx.tool("git"), { id: "old", expiresAt: 1 }),
      entry(fx.tool("git"), { id: "new" }),
    ]);
    const e = await explainWith(fx, approvals)("git status");
    expect(e.segments[0]?.matchedEntryId).toBe("new");
  });
});

describe("whose allowlist", () => {
  it("an agent's allowlist is agents['*'] followed by its own; other agents' entries do not apply", async () => {
    const approvals = approvalsWith([entry(fx.tool("git"), { id: "shared" })], undefined, {
      "claude-code": { allowlist: [entry(fx.tool("rm"), { id: "mine" })] },
      other: { allowlist: [entry(fx.tool("curl"), { id: "theirs" })] },
    });
    const e = await explainWith(fx, approvals, { agentId: "claude-code" })("git a && rm b && curl c");
    expect(e.segments.map((s) => [s.matchedEntryId, s.matchedAgentId])).toEqual([
      ["shared", "*"],
      ["mine", "claude-code"],
      [null, undefined],
    ]);
  });

  it("a hand-edited entry with an invalid regex matches nothing and says so", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git"), { id: "bad", argPattern: "(" })]),
    )("git status");
    expect(e.outcome).toBe("prompt");
    expect(e.segments[0]?.missReason).toMatch(/entry bad has an invalid argPattern/);
  });
});

describe("the approvals file read again", () => {
  const segment = (argv: string[]): Segment => ({
    argv,
    executable: argv[0]!,
    resolvedPath: "/usr/bin/git",
    foundVia: "path",
    foundPath: "/usr/bin/git",
    context: "top",
    matchedEntryId: null,
  });
  const at = { cwd: "/work/repo", now: 0, platform: "linux" } as const;
  const env = { home: "/home/u", platform: "linux" } as const;
  const matchedId = (file: ApprovalsFile, argv: string[]) =>
    matchSegment(compileAllowlist(file, "local", env), segment(argv), at).matched?.entry.id ?? null;

  it("an entry edited in place (same id, new argPattern or cwd) matches by what it now says", () => {
    const before = fileWith([entry("/usr/bin/git", { id: "same", argPattern: "^status$" })]);
    expect(matchedId(before, ["git", "status"])).toBe("same");
    expect(matchedId(before, ["git", "push"])).toBeNull();
    const after = fileWith([entry("/usr/bin/git", { id: "same", argPattern: "^push$" })]);
    expect(matchedId(after, ["git", "status"])).toBeNull();
    expect(matchedId(after, ["git", "push"])).toBe("same");
    const elsewhere = fileWith([
      entry("/usr/bin/git", { id: "same", argPattern: "^push$", cwd: "/other/**" }),
    ]);
    expect(matchedId(elsewhere, ["git", "push"])).toBeNull();
  });

  it("an empty argPattern is not taken for an entry without one", () => {
    const none = compileAllowlist(fileWith([entry("/usr/bin/git", { id: "k" })]), "local", env);
    const empty = compileAllowlist(
      fileWith([entry("/usr/bin/git", { id: "k", argPattern: "" })]),
      "local",
      env,
    );
    expect(none.entries[0]!.argRe).toBeUndefined();
    expect(empty.entries[0]!.argRe).toBeInstanceOf(RegExp);
  });

  it("an unchanged entry in a new file object keeps its owner and place in the list", () => {
    const glob = entry("/opt/**/bin/tool", { id: "g" });
    const first = compileAllowlist(fileWith([glob]), "local", env);
    const again = compileAllowlist(fileWith([entry("/usr/bin/git", { id: "x" }), { ...glob }]), "local", env);
    expect(again.entries.map((c) => [c.entry.id, c.order, c.kind])).toEqual([
      ["x", 0, "exact"],
      ["g", 1, "glob"],
    ]);
    expect(again.globs[0]!.glob).toBe(first.globs[0]!.glob); // compiled once
  });
});
