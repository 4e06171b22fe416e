// workdir.md §4 steps 1–4 and §2's env splitting, on both path flavours (Windows through path.win32).
import { describe, expect, it } from "vitest";
import {
  absoluteFrom,
  expandRequestedPath,
  lexicalForm,
  pathSyntaxProblem,
  splitAllowedRoots,
  stripVerbatimPrefix,
} from "../../../src/core/workdir/normalise.js";
import { requestedTextForms, type ActiveRoot } from "../../../src/core/workdir/io/path-check.js";
import { isWithin, rootRule } from "../../../src/core/workdir/platform-path.js";

const WIN_HOME = "C:\\Users\\alice";

describe("syntax (step 1)", () => {
  it("refuses control characters and ~name forms on every platform", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(pathSyntaxProblem("~/Projects/a\u0000b", platform)).not.toBeNull();
      expect(pathSyntaxProblem("~/Projects/a\nb", platform)).not.toBeNull();
      expect(pathSyntaxProblem("~/Projects/a\u0085b", platform)).not.toBeNull();
      expect(pathSyntaxProblem("~bob/x", platform)).not.toBeNull();
      expect(pathSyntaxProblem("~bob", platform)).not.toBeNull();
      expect(pathSyntaxProblem("~", platform)).toBeNull();
      expect(pathSyntaxProblem("~/Projects/foo", platform)).toBeNull();
      expect(pathSyntaxProblem("projects/acme", platform)).toBeNull();
    }
  });

  it("35: refuses the Windows forms that are never a plain folder", () => {
    const invalid = [
      "C:foo",
      "C:",
      "\\foo",
      "/foo",
      "\\\\.\\C:\\x",
      "//./C:/x",
      "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1",
      "\\\\?\\Volume{1234}\\x",
      "C:\\Users\\alice\\Projects\\foo:secret",
      "C:\\Users\\alice\\Projects\\CON",
      "C:\\Users\\alice\\Projects\\nul.txt",
      "C:\\Users\\alice\\Projects\\com1",
      "C:\\Users\\alice\\Projects\\LPT9.log",
      "C:\\Users\\alice\\.ssh.",
      "C:\\Users\\alice\\Projects\\foo \\x",
      "C:\\Users\\alice\\Projects\\a<b",
      "C:\\Users\\alice\\Projects\\a|b",
      "C:\\Users\\alice\\Projects\\what?",
      "C:\\Users\\alice\\Projects\\*",
      'C:\\Users\\alice\\Projects\\"q"',
      "\\\\host",
      "\\\\host\\",
      "~\\Projects\\aux",
    ];
    for (const p of invalid) expect(pathSyntaxProblem(p, "win32"), p).not.toBeNull();
  });

  it("accepts ordinary Windows paths, UNC shares, \\\\?\\ forms and `..` components", () => {
    const valid = [
      "C:\\Users\\alice\\Projects\\foo",
      "C:/Users/alice/Projects/foo",
      "c:\\USERS\\alice\\projects\\FOO",
      "\\\\?\\C:\\Users\\alice\\Projects\\foo",
      "\\\\?\\UNC\\localhost\\gh-test\\code",
      "\\\\localhost\\gh-test\\code\\app",
      "C:\\Users\\alice\\Projects\\..\\Work",
      "projects\\acme",
      "~\\Projects\\foo",
      "C:\\Users\\alice\\Projects\\console",
      "C:\\Users\\alice\\Projects\\.config",
    ];
    for (const p of valid) expect(pathSyntaxProblem(p, "win32"), p).toBeNull();
  });

  it("leaves Windows-only rules out on POSIX, where `:` and `?` are ordinary characters", () => {
    expect(pathSyntaxProblem("/home/a/foo:bar", "linux")).toBeNull();
    expect(pathSyntaxProblem("/home/a/CON", "linux")).toBeNull();
  });
});

describe("expansion and the text form (steps 2–4)", () => {
  it("expands ~ and ~/ without collapsing `..`", () => {
    expect(expandRequestedPath("~", "/home/a", "linux")).toBe("/home/a");
    expect(expandRequestedPath("~/Projects/../.ssh", "/home/a", "linux")).toBe("/home/a/Projects/../.ssh");
    expect(expandRequestedPath("~\\x", "/home/a", "linux")).toBe("~\\x");
  });

  it("on Windows turns / into \\, strips \\\\?\\ and upper-cases the drive letter", () => {
    expect(expandRequestedPath("~\\Projects\\foo", WIN_HOME, "win32")).toBe(
      "C:\\Users\\alice\\Projects\\foo",
    );
    expect(expandRequestedPath("~/Projects/foo", WIN_HOME, "win32")).toBe("C:\\Users\\alice\\Projects\\foo");
    expect(expandRequestedPath("C:/Users/alice/Projects/foo", WIN_HOME, "win32")).toBe(
      "C:\\Users\\alice\\Projects\\foo",
    );
    expect(expandRequestedPath("\\\\?\\C:\\Users\\alice\\Projects\\foo", WIN_HOME, "win32")).toBe(
      "C:\\Users\\alice\\Projects\\foo",
    );
    expect(expandRequestedPath("\\\\?\\UNC\\host\\share\\x", WIN_HOME, "win32")).toBe("\\\\host\\share\\x");
    expect(expandRequestedPath("d:\\code", WIN_HOME, "win32")).toBe("D:\\code");
    expect(stripVerbatimPrefix("\\\\?\\unc\\host\\share")).toBe("\\\\host\\share");
  });

  it("joins relative paths to W as text; absolute paths stay", () => {
    expect(absoluteFrom("projects/acme", "/e/workspace", "linux")).toBe("/e/workspace/projects/acme");
    expect(absoluteFrom("../capabilities", "/e/workspace/", "linux")).toBe("/e/workspace/../capabilities");
    expect(absoluteFrom("/abs", "/e/workspace", "linux")).toBe("/abs");
    expect(absoluteFrom("projects\\acme", "C:\\E\\workspace", "win32")).toBe(
      "C:\\E\\workspace\\projects\\acme",
    );
  });

  it("collapses `.` and `..` as text and drops trailing separators, keeping roots", () => {
    expect(lexicalForm("/home/a/Projects/foo/../../Outside/", "linux")).toBe("/home/a/Outside");
    expect(lexicalForm("/home/a/../../..", "linux")).toBe("/");
    expect(lexicalForm("C:\\Users\\alice\\Projects\\new\\..\\..\\Outside", "win32")).toBe(
      "C:\\Users\\alice\\Outside",
    );
    expect(lexicalForm("c:\\", "win32")).toBe("C:\\");
    expect(lexicalForm("\\\\host\\share\\a\\..\\..", "win32")).toBe("\\\\host\\share\\");
  });

  const workspace: ActiveRoot = {
    source: "workspace",
    given: "C:\\Users\\alice\\.wegent-executor\\workspace",
    realpath: "C:\\Users\\alice\\.wegent-executor\\workspace",
    caseInsensitive: true,
  };
  const winCtx = { platform: "win32" as const, home: WIN_HOME, workspace };

  it("33: the three spellings of one Windows folder have text forms inside the same root", () => {
    const root = "C:\\Users\\alice\\Projects";
    for (const p of [
      "C:/Users/alice/Projects/foo",
      "\\\\?\\C:\\Users\\alice\\Projects\\foo",
      "c:\\USERS\\alice\\projects\\FOO",
    ]) {
      const forms = requestedTextForms(p, winCtx);
      if ("problem" in forms) throw new Error(forms.problem);
      expect(forms.lexical.toLowerCase()).toBe("c:\\users\\alice\\projects\\foo");
      expect(isWithin(forms.lexical, root, "win32", rootRule(false, "win32"))).toBe(true);
    }
  });

  it("13 (Windows): `..` after a missing folder is collapsed as text, so resolution starts outside the root", () => {
    const forms = requestedTextForms("~\\Projects\\new\\..\\..\\Outside", winCtx);
    if ("problem" in forms) throw new Error(forms.problem);
    expect(forms.lexical).toBe("C:\\Users\\alice\\Outside");
    expect(isWithin(forms.lexical, "C:\\Users\\alice\\Projects", "win32", rootRule(true, "win32"))).toBe(
      false,
    );
  });

  it("relative Windows requests land in W", () => {
    const forms = requestedTextForms("project42", winCtx);
    if ("problem" in forms) throw new Error(forms.problem);
    expect(forms.lexical).toBe("C:\\Users\\alice\\.wegent-executor\\workspace\\project42");
  });
});

describe("LOCAL_WORKDIR_ALLOWED_ROOTS (§2)", () => {
  it("24: splits on commas, trims, and drops empty items", () => {
    expect(splitAllowedRoots(" ~/Projects , ,/does/not/exist,relative/dir,~/.ssh", "linux")).toEqual([
      "~/Projects",
      "/does/not/exist",
      "relative/dir",
      "~/.ssh",
    ]);
    expect(splitAllowedRoots(undefined, "linux")).toEqual([]);
    expect(splitAllowedRoots(" , ", "linux")).toEqual([]);
  });

  it("24 (Windows): also splits on semicolons, giving three items", () => {
    expect(splitAllowedRoots("C:\\src;D:\\code,E:\\x", "win32")).toEqual(["C:\\src", "D:\\code", "E:\\x"]);
    expect(splitAllowedRoots("/a;b", "linux")).toEqual(["/a;b"]);
  });
});
