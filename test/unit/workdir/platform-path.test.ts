// Containment is component by component, never a string prefix test (workdir.md §4 step 6).
import { describe, expect, it } from "vitest";
import {
  isWithin,
  joinComponents,
  pathComponents,
  rootRule,
  samePath,
  swapCase,
  looksLikeShortName,
} from "../../../src/core/workdir/platform-path.js";

describe("path components", () => {
  it("treat a drive or a \\\\host\\share as one component", () => {
    expect(pathComponents("/home/a/proj", "linux")).toEqual(["/", "home", "a", "proj"]);
    expect(pathComponents("/home//a/./proj/", "linux")).toEqual(["/", "home", "a", "proj"]);
    expect(pathComponents("c:\\Users\\alice", "win32")).toEqual(["C:", "Users", "alice"]);
    expect(pathComponents("C:\\", "win32")).toEqual(["C:"]);
    expect(pathComponents("\\\\localhost\\gh-test\\code\\app", "win32")).toEqual([
      "\\\\localhost\\gh-test",
      "code",
      "app",
    ]);
    expect(pathComponents("//server/share/x", "win32")).toEqual(["\\\\server\\share", "x"]);
  });

  it("join back into the same path", () => {
    for (const [p, platform] of [
      ["/home/a/proj", "linux"],
      ["/", "linux"],
      ["C:\\Users\\alice", "win32"],
      ["\\\\localhost\\gh-test\\code", "win32"],
    ] as const) {
      expect(joinComponents(pathComponents(p, platform), platform)).toBe(p);
    }
  });
});

describe("containment", () => {
  const exact = rootRule(false, "linux");

  it("9: a sibling that shares the prefix is not inside", () => {
    expect(isWithin("/home/a/proj-evil", "/home/a/proj", "linux", exact)).toBe(false);
    expect(isWithin("/home/a/proj/x", "/home/a/proj", "linux", exact)).toBe(true);
    expect(isWithin("/home/a/proj", "/home/a/proj", "linux", exact)).toBe(true);
  });

  it("ignores case only when the root's flag says so", () => {
    expect(isWithin("/home/a/PROJ/x", "/home/a/proj", "linux", exact)).toBe(false);
    expect(isWithin("/home/a/PROJ/x", "/home/a/proj", "linux", rootRule(true, "linux"))).toBe(true);
  });

  it("compares NFC forms on macOS only", () => {
    const composed = "/Users/a/caf\u00e9";
    const decomposed = "/Users/a/cafe\u0301";
    expect(isWithin(`${decomposed}/x`, composed, "darwin", rootRule(false, "darwin"))).toBe(true);
    expect(isWithin(`${decomposed}/x`, composed, "linux", rootRule(false, "linux"))).toBe(false);
  });

  it("37: on Windows, a share matches whatever the case, but a sibling share folder does not", () => {
    const rule = rootRule(false, "win32"); // always case-insensitive on Windows
    expect(isWithin("\\\\LOCALHOST\\GH-TEST\\code\\app", "\\\\localhost\\gh-test\\code", "win32", rule)).toBe(
      true,
    );
    expect(isWithin("\\\\localhost\\gh-test\\codex", "\\\\localhost\\gh-test\\code", "win32", rule)).toBe(
      false,
    );
    expect(isWithin("\\\\localhost\\gh-test2\\code", "\\\\localhost\\gh-test\\code", "win32", rule)).toBe(
      false,
    );
    expect(samePath("c:\\users\\ALICE", "C:\\Users\\alice", "win32", rule)).toBe(true);
  });

  it("swaps letter case for the case-insensitivity probe", () => {
    expect(swapCase("/tmp/Ab-1")).toBe("/TMP/aB-1");
  });
});

describe("Windows short names", () => {
  it("a name with `~` and a digit may be an 8.3 short name; other names with `~` are not", () => {
    for (const name of ["PROGRA~1", ".WEGENT~1", "EXEC-A~1.JSO", "x~12"])
      expect(looksLikeShortName(name)).toBe(true);
    for (const name of ["~", "a~b", "notes~", "~user"]) expect(looksLikeShortName(name)).toBe(false);
  });
});
