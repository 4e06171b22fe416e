// Entry validation: what can be saved as a pattern, argPattern, cwd, expiresAt and usesLeft.
import { describe, expect, it } from "vitest";
import {
  allowAlwaysProblem,
  escapeGlob,
  patternKind,
  validateEntry,
  entryProblems,
} from "../../../src/core/approvals/index.js";

describe("validateEntry", () => {
  it.each([
    "/usr/bin/git",
    "~/bin/rg",
    "/opt/**/bin/tool",
    "C:\\Tools\\rg.exe",
    "rg",
    "*",
    "/usr/bin/python3.*",
  ])("accepts the pattern %s", (pattern) => {
    expect(validateEntry({ pattern })).toEqual({ ok: true });
  });

  it.each([
    ["", "pattern"],
    ["bin/git", "must be an absolute path"],
    ["~bob/bin/x", "~user"],
    ["/usr/../bin/x", ". or .."],
    ["git*", "bare name with glob characters"],
    [" rg", "padded"],
  ])("refuses the pattern %j", (pattern, reason) => {
    const result = validateEntry({ pattern });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.field).toBe("pattern");
      expect(result.reason).toContain(reason);
    }
  });

  it("refuses an argPattern that is not a regular expression", () => {
    expect(validateEntry({ pattern: "rg", argPattern: "(" })).toMatchObject({
      ok: false,
      field: "argPattern",
    });
    expect(validateEntry({ pattern: "rg", argPattern: "^-n " })).toEqual({ ok: true });
  });

  it("refuses a cwd glob that is not absolute", () => {
    expect(validateEntry({ pattern: "rg", cwd: "Projects/**" })).toMatchObject({ ok: false, field: "cwd" });
    expect(validateEntry({ pattern: "rg", cwd: "~/Projects/**" })).toEqual({ ok: true });
  });

  it("lists every problem of an entry at once, one per field in the fields' order, and the first is what validateEntry refuses", () => {
    const entry = { pattern: "bin/*", argPattern: "(", cwd: "Projects", expiresAt: -1, usesLeft: 1.5 };
    const problems = entryProblems(entry);
    expect(problems.map((p) => p.field)).toEqual(["pattern", "argPattern", "cwd", "expiresAt", "usesLeft"]);
    expect(validateEntry(entry)).toEqual({ ok: false, ...problems[0] });
    expect(entryProblems({ pattern: "mcp:docs/search", argPattern: "x", cwd: "/x" })).toEqual([
      { field: "argPattern", reason: "an MCP entry takes no argPattern" },
      { field: "cwd", reason: "an MCP entry takes no cwd" },
    ]);
    expect(entryProblems({ pattern: "/usr/bin/git", argPattern: "^status$" })).toEqual([]);
  });

  it("refuses negative or fractional lifetimes and accepts null", () => {
    expect(validateEntry({ pattern: "rg", expiresAt: -1 })).toMatchObject({ ok: false, field: "expiresAt" });
    expect(validateEntry({ pattern: "rg", usesLeft: 1.5 })).toMatchObject({ ok: false, field: "usesLeft" });
    expect(validateEntry({ pattern: "rg", expiresAt: null, usesLeft: null })).toEqual({ ok: true });
  });
});

describe("pattern helpers", () => {
  it("tells bare names, * and paths apart", () => {
    expect(["rg", "*", "/x/rg", "~/rg", "C:\\rg"].map(patternKind)).toEqual([
      "bare",
      "any",
      "path",
      "path",
      "path",
    ]);
  });

  it("escapes glob characters of a real path in brackets", () => {
    expect(escapeGlob("/opt/a[1]/b*c?{d}")).toBe("/opt/a[[]1[]]/b[*]c[?][{]d[}]");
  });

  it("allow always refuses shells, sudo and match-anything patterns without an argPattern", () => {
    expect(allowAlwaysProblem({ pattern: "/usr/bin/dash" })).toMatch(/dash/);
    expect(allowAlwaysProblem({ pattern: "/usr/bin/dash", argPattern: "^-c ls$" })).toBeNull();
    expect(allowAlwaysProblem({ pattern: "/usr/bin/git" })).toBeNull();
  });
});
