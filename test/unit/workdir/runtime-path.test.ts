// How each agent runtime turns a tool's path argument into the path it opens (core/workdir/runtime-path.ts):
// the attack forms of issue 27 class 1 and the look-alikes that must stay plain paths. The same rules are
// checked against the real CLIs in test/integration/runtime-path/.
import { describe, expect, it } from "vitest";
import {
  claudeOpenedPath,
  codexOpenedPath,
  oddPathCharacter,
  type RuntimePathContext,
} from "../../../src/core/workdir/runtime-path.js";

const posix: RuntimePathContext = { platform: "linux", home: "/h", base: "/h/w" };
const windows: RuntimePathContext = { platform: "win32", home: "C:\\Users\\a", base: "C:\\Users\\a\\w" };

const claude = (raw: string, ctx = posix) => claudeOpenedPath(raw, ctx);
const codex = (raw: string, ctx = posix) => codexOpenedPath(raw, ctx);
const opened = (result: ReturnType<typeof claude>) => (result.ok ? result.path : `refused: ${result.reason}`);

describe("Claude Code opens a trimmed, `~`-expanded path with `..` collapsed as text", () => {
  it.each([
    ["\u2003~/.zshenv", "/h/.zshenv"], // a leading em-space is trimmed, then `~/` expands
    [" ~/sp.txt \n", "/h/sp.txt"],
    ["\ufeff/h/w/bom.txt", "/h/w/bom.txt"], // BOM is JavaScript white space
    ["\u00a0\u3000~\u2029", "/h"],
    ["rel/r.txt", "/h/w/rel/r.txt"],
    ["/h/w/deep/../../../outside", "/outside"], // text, whatever `deep` links to
    ["~", "/h"],
    ["~//dbl.txt", "/h/dbl.txt"],
    ["~user/x", "/h/w/~user/x"], // only `~` and `~/` are the home folder
    ["~\\x", "/h/w/~\\x"],
    ["", "/h/w"],
    ["/h/w/x/\u2003/../t.txt", "/h/w/x/t.txt"],
    ["\u0085/x", "/h/w/\u0085/x"], // NEL is not JavaScript white space: a relative name
    ["/h/w/a/", "/h/w/a"],
    ["../../../../..", "/"],
  ])("%j opens %j", (raw, path) => {
    expect(opened(claude(raw))).toBe(path);
  });

  it("a path that changes when expanded again (trailing white space once `..` is gone) is refused", () => {
    expect(claude("/h/w/a\u2003/b/..")).toMatchObject({ ok: false });
    expect(claude("/h/w/a\u2003/b")).toMatchObject({ ok: true, path: "/h/w/a\u2003/b" });
  });

  it("a NUL byte is refused, as Claude Code refuses it", () => {
    expect(claude("/h/w/a\0b")).toMatchObject({ ok: false, reason: "it contains a NUL byte" });
  });

  it("keeps the Unicode form the model wrote (no NFC on Linux)", () => {
    expect(opened(claude("cafe\u0301.txt"))).toBe("/h/w/cafe\u0301.txt");
  });

  it("on Windows: MSYS drive paths, `~/`, and no guess about drive-relative or driveless paths", () => {
    expect(opened(claude("/c/Users/a/x", windows))).toBe("C:\\Users\\a\\x");
    expect(opened(claude("~/x/../y", windows))).toBe("C:\\Users\\a\\y");
    expect(opened(claude("a/../b", windows))).toBe("C:\\Users\\a\\w\\b");
    expect(claude("C:foo", windows)).toMatchObject({ ok: false });
    expect(claude("\\foo", windows)).toMatchObject({ ok: false });
    expect(claude("\\\\.\\C:\\x", windows)).toMatchObject({ ok: false });
  });
});

describe("Codex opens its argument untrimmed, with no `~`, joined to the base with `..` collapsed as text", () => {
  it.each([
    ["~/x", "/h/w/~/x"], // a folder named `~`
    ["\u2003rel/x", "/h/w/\u2003rel/x"],
    [" ../wd", "/h/w/ ../wd"],
    ["deep/../../x", "/h/x"],
    ["/h/abs/../abs2.txt", "/h/abs2.txt"],
    ["./a//b.txt", "/h/w/a/b.txt"],
    ["", "/h/w"],
  ])("%j opens %j", (raw, path) => {
    expect(opened(codex(raw))).toBe(path);
  });

  it("takes relative paths from the base it is given (a call's workdir)", () => {
    expect(opened(codex("f.txt", { ...posix, base: "/h/other" }))).toBe("/h/other/f.txt");
  });

  it("on Windows joins to the base and refuses drive-relative paths", () => {
    expect(opened(codex("src\\..\\x", windows))).toBe("C:\\Users\\a\\w\\x");
    expect(codex("D:x", windows)).toMatchObject({ ok: false });
  });
});

describe("characters a path needs a person for", () => {
  it.each([
    ["\u2003~/.zshenv", "U+2003"],
    ["a\u200bb", "U+200B"], // zero-width space
    ["a\u202eb", "U+202E"], // right-to-left override
    ["a\u3164", "U+3164"], // Hangul filler
    ["x\u2028", "U+2028"],
    ["\ufeffx", "U+FEFF"],
    ["tab\there", "U+0009"],
    ["x\u0085", "U+0085"],
    ["\ue000", "U+E000"], // private use
    ["a\u00a0b", "U+00A0"],
    ["a\u2800b", "U+2800"], // Braille blank
  ])("%j holds %s", (raw, code) => {
    expect(oddPathCharacter(raw)).toBe(code);
  });

  it.each([
    "src/index.ts",
    "dir with spaces/file name.txt",
    "café/ünïcödé.md",
    "cafe\u0301.txt", // a combining accent
    "日本語/ファイル.txt",
    "Документы/отчёт.docx",
    "~/notes (draft) [v2] {x} #1 @me $HOME%.txt",
    "C:\\Users\\a\\x.txt",
    "emoji 📁 👍🏽.txt",
  ])("%j is plain", (raw) => {
    expect(oddPathCharacter(raw)).toBeNull();
  });
});
