// The port of Codex's apply_patch grammar (src/core/policy/apply-patch-grammar.ts): Codex's own test
// cases (codex-rs/apply-patch parser.rs and streaming_parser.rs tests, and its whitespace fixtures)
// give the same hunks and errors here, and the attack classes of issue 27 are read as Codex reads them,
// then refused by the positive model. test/integration/policy/apply-patch-codex.test.ts checks the same
// port against the real Codex binary.
import { describe, expect, it } from "vitest";
import {
  isRustWhitespace,
  parseCodexPatch,
  readCodexPatch,
  readCodexShellPatch,
  rustLines,
  rustTrim,
} from "../../../src/core/policy/apply-patch-grammar.js";
import { patchPaths } from "../../../src/cli/hook/apply-patch.js";
import { ORDINARY_PATCHES } from "../../fixtures/policy/ordinary-patches.js";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
const ops = (text: string) => {
  const parsed = parseCodexPatch(text);
  return parsed.ok ? parsed.operations : parsed.error;
};
const headerError = (line: string, at: number) =>
  `invalid hunk at line ${at}, '${line}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`;
const unexpected = (line: string, at: number) =>
  `invalid hunk at line ${at}, Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`;
const FIRST_LINE = "invalid patch: The first line of the patch must be '*** Begin Patch'";
const LAST_LINE = "invalid patch: The last line of the patch must be '*** End Patch'";

describe("Rust's whitespace and lines, as Codex uses them", () => {
  it("whitespace is exactly the Unicode White_Space set: NEL and U+2028 are, BOM and zero-width space are not", () => {
    const rust = [];
    for (let c = 0; c <= 0xffff; c++) if (isRustWhitespace(String.fromCharCode(c))) rust.push(c);
    expect(rust).toEqual([
      0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
      0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    ]);
    // JavaScript's trim differs: it trims BOM and keeps NEL.
    expect(rustTrim("\u0085\ufeffx\u2028")).toBe("\ufeffx");
    expect("\u0085\ufeffx\u2028".trim()).toBe("\u0085\ufeffx");
  });

  it("lines split on \\n only, each losing one \\r before it; U+2028, NEL and a bare \\r split nothing", () => {
    expect(rustLines("a\r\nb\n\nc\n")).toEqual(["a", "b", "", "c"]);
    expect(rustLines("a\u2028b\u0085c\rd")).toEqual(["a\u2028b\u0085c\rd"]);
    expect(rustLines("a\r\r\nb\r")).toEqual(["a\r", "b\r"]);
    expect(rustLines("")).toEqual([]);
  });
});

describe("Codex's own parser tests give the same hunks and errors", () => {
  it("test_parse_patch: markers, padding, empty hunks and every kind of operation", () => {
    expect(ops("bad")).toBe(FIRST_LINE);
    expect(ops("*** Begin Patch\nbad")).toBe(LAST_LINE);
    expect(ops("*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch")).toEqual([
      { kind: "add", path: "foo" },
    ]);
    expect(ops(patch("*** Update File: test.py"))).toBe(
      "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
    );
    expect(ops(patch())).toEqual([]);
    expect(
      ops(
        patch(
          "*** Add File: path/add.py",
          "+abc",
          "+def",
          "*** Delete File: path/delete.py",
          "*** Update File: path/update.py",
          "*** Move to: path/update2.py",
          "@@ def f():",
          "-    pass",
          "+    return 123",
        ),
      ),
    ).toEqual([
      { kind: "add", path: "path/add.py" },
      { kind: "delete", path: "path/delete.py" },
      { kind: "update", path: "path/update.py", moveTo: "path/update2.py" },
    ]);
    expect(
      ops(patch("*** Update File: file.py", "@@", "+line", "*** Add File: other.py", "+content")),
    ).toEqual([
      { kind: "update", path: "file.py" },
      { kind: "add", path: "other.py" },
    ]);
    expect(ops(patch("*** Update File: file2.py", " import foo", "+bar"))).toEqual([
      { kind: "update", path: "file2.py" },
    ]);
  });

  it("test_parse_patch_preserves_end_of_file_marker and absolute paths", () => {
    expect(ops(patch("*** Update File: file.txt", "@@", "+quux", "*** End of File", ""))).toEqual([
      { kind: "update", path: "file.txt" },
    ]);
    expect(
      ops(
        patch(
          "*** Add File: relative-add.py",
          "+content",
          "*** Delete File: /tmp/d.py",
          "*** Update File: /tmp/u.py",
          "@@",
          "-old",
          "+new",
        ),
      ),
    ).toEqual([
      { kind: "add", path: "relative-add.py" },
      { kind: "delete", path: "/tmp/d.py" },
      { kind: "update", path: "/tmp/u.py" },
    ]);
  });

  it("test_parse_patch_lenient: a patch inside <<EOF, <<'EOF' or <<\"EOF\", but not mismatched quotes", () => {
    const body = patch("*** Update File: file2.py", " import foo", "+bar");
    for (const opener of ["<<EOF", "<<'EOF'", '<<"EOF"'])
      expect(ops(`${opener}\n${body}\nEOF\n`)).toEqual([{ kind: "update", path: "file2.py" }]);
    expect(ops(`<<"EOF'\n${body}\nEOF\n`)).toBe(FIRST_LINE);
    expect(ops("<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n")).toBe(LAST_LINE);
  });

  it("test_parse_patch_environment_id_preamble: an environment before the first hunk, never empty", () => {
    const parsed = parseCodexPatch(patch("*** Environment ID: remote", "*** Add File: hello.txt", "+hello"));
    expect(parsed).toMatchObject({ ok: true, environmentId: "remote" });
    expect(ops(patch("*** Environment ID:   ", "*** Add File: hello.txt", "+hello"))).toBe(
      "invalid patch: apply_patch environment_id cannot be empty",
    );
    expect(ops(patch("*** Environment ID: a", "*** Environment ID: b"))).toBe(
      "invalid patch: apply_patch environment_id cannot be specified more than once",
    );
  });

  it("streaming parser tests: the large patch, indented markers as context, bare empty lines, line endings", () => {
    const large = patch(
      "*** Add File: docs/release-notes.md",
      "+# Release notes",
      "+",
      "*** Update File: src/config.rs",
      "@@ impl Config",
      "-    pub apply_patch_progress: bool,",
      "+    pub stream_apply_patch_progress: bool,",
      "     pub include_diagnostics: bool,",
      "@@ fn default_progress_interval()",
      "-    Duration::from_millis(500)",
      "+    Duration::from_millis(250)",
      "*** Delete File: src/legacy_patch_progress.rs",
      "*** Update File: crates/cli/src/main.rs",
      "*** Move to: crates/cli/src/bin/codex.rs",
      "@@ fn run()",
      "-    dispatch(args)",
      "+    dispatch(cli)",
      "*** Add File: tests/fixtures/apply_patch_progress.json",
      "+{",
      "+}",
      "*** Update File: README.md",
      "@@ Development workflow",
      " Build the Rust workspace before opening a pull request.",
      "+Prefer tests that exercise the exact event payload shape.",
      "*** Delete File: docs/old-apply-patch-progress.md",
    );
    expect(ops(large)).toEqual([
      { kind: "add", path: "docs/release-notes.md" },
      { kind: "update", path: "src/config.rs" },
      { kind: "delete", path: "src/legacy_patch_progress.rs" },
      { kind: "update", path: "crates/cli/src/main.rs", moveTo: "crates/cli/src/bin/codex.rs" },
      { kind: "add", path: "tests/fixtures/apply_patch_progress.json" },
      { kind: "update", path: "README.md" },
      { kind: "delete", path: "docs/old-apply-patch-progress.md" },
    ]);
    expect(
      ops(
        patch(
          "*** Update File: a.txt",
          "@@",
          "-old a",
          "+new a",
          " *** Update File: b.txt",
          "@@",
          "-old b",
          "+new b",
        ),
      ),
    ).toEqual([{ kind: "update", path: "a.txt" }]);
    expect(ops(patch("*** Update File: file.txt", "@@", " context before", "", " context after"))).toEqual([
      { kind: "update", path: "file.txt" },
    ]);
    expect(
      ops("*** Begin Patch\r\n*** Update File: file.txt\r\n@@\r\n-old\r\r\n+new\r\n*** End Patch\r\n"),
    ).toEqual([{ kind: "update", path: "file.txt" }]);
    expect(ops("*** Begin Patch\n*** Update File: file.txt\n@@\n-old\n+new\n *** End Patch")).toEqual([
      { kind: "update", path: "file.txt" },
    ]);
  });

  it("streaming parser errors: each at the line Codex names", () => {
    expect(ops(patch("bad"))).toBe(headerError("bad", 2));
    expect(ops(patch("*** Add File: file.txt", "bad"))).toBe(headerError("bad", 3));
    expect(ops(patch("*** Delete File: file.txt", "bad"))).toBe(headerError("bad", 3));
    expect(ops(patch("*** Update File: old.txt", "*** Move to: new.txt", "*** Delete File: other.txt"))).toBe(
      "invalid hunk at line 2, Update file hunk for path 'old.txt' is empty",
    );
    expect(ops(patch("*** Update File: file.txt", "@@"))).toBe(
      "invalid hunk at line 4, Update hunk does not contain any lines",
    );
    expect(ops(patch("*** Update File: file.txt", "@@", "*** End of File"))).toBe(
      "invalid hunk at line 4, Update hunk does not contain any lines",
    );
    expect(ops(patch("*** Update File: file.txt", "@@", "@@"))).toBe(unexpected("@@", 4));
    expect(ops(patch("*** Update File: file.txt", "@@", "-old", "bad"))).toBe(
      "invalid hunk at line 5, Expected update hunk to start with a @@ context marker, got: 'bad'",
    );
    expect(ops(patch("*** Update File: file.txt", "@@", "*** Update File: other.txt"))).toBe(
      unexpected("*** Update File: other.txt", 4),
    );
    expect(ops("*** Begin Patch\n*** Add File: file.txt\n+hello\n")).toBe(LAST_LINE);
  });

  it("the whitespace-padded fixtures (017, 018, 020) parse", () => {
    expect(ops(patch("  *** Update File: foo.txt", "@@", "-old", "+new"))).toEqual([
      { kind: "update", path: "foo.txt" },
    ]);
    expect(ops("*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n")).toEqual([
      { kind: "update", path: "file.txt" },
    ]);
  });
});

describe("what Codex 0.169–0.171 do beyond its tests (each checked with the real binary)", () => {
  it("an `*** End Patch` in the middle ends the patch: anything but blank lines after it is an error", () => {
    expect(
      ops(patch("*** Update File: a.txt", "@@", "-two", "+TWO", "*** End Patch", "*** Add File: x")),
    ).toBe(LAST_LINE);
    expect(ops(patch("*** Update File: a.txt", "@@", "-two", "+TWO", "*** End Patch", "", ""))).toEqual([
      { kind: "update", path: "a.txt" },
    ]);
  });

  it("inside an update only the line's end is trimmed: an indented header or move is a context line", () => {
    expect(ops(patch("*** Update File: a.txt", "  *** Move to: m.txt", "@@", "-two"))).toEqual([
      { kind: "update", path: "a.txt" },
    ]);
    expect(ops(patch("*** Update File: a.txt", "*** Move to: m.txt \t", "@@", "-two"))).toEqual([
      { kind: "update", path: "a.txt", moveTo: "m.txt" },
    ]);
    expect(ops(patch("*** Update File: a.txt", "*** Move to:   m.txt", "@@", "-two"))).toEqual([
      { kind: "update", path: "a.txt", moveTo: "  m.txt" },
    ]);
  });

  it("after an add or a delete, headers are trimmed: an indented header starts the next hunk", () => {
    expect(ops(patch("*** Add File: c.txt", "+hi", "  *** Delete File: b.txt"))).toEqual([
      { kind: "add", path: "c.txt" },
      { kind: "delete", path: "b.txt" },
    ]);
    expect(ops(patch("*** Delete File: b.txt", ""))).toBe(headerError("", 3));
  });
});

describe("the attack classes: read as Codex reads them, refused by the positive model", () => {
  it("a NEL before a header is trimmed by Codex, so the header counts: the port reports its path for the file gate", () => {
    const attack = patch(
      "*** Add File: notes.txt",
      "+x",
      "\u0085*** Add File: ../../.wegent-executor/exec-approvals.json",
      "+{}",
    );
    expect(readCodexPatch(attack)).toEqual({
      ok: true,
      operations: [
        { kind: "add", path: "notes.txt" },
        { kind: "add", path: "../../.wegent-executor/exec-approvals.json" },
      ],
    });
    expect(readCodexPatch(patch("\u2028*** Delete File: ../x"))).toEqual({
      ok: true,
      operations: [{ kind: "delete", path: "../x" }],
    });
    expect(readCodexPatch(patch("*** Delete File: ../x\u3000\u00a0"))).toEqual({
      ok: true,
      operations: [{ kind: "delete", path: "../x" }],
    });
  });

  it("lines Codex versions read differently are not understood: an indented header in an update, a padded move, a bare \\r", () => {
    for (const text of [
      patch("*** Update File: a", "@@", "-x", "+y", "  *** Add File: ../b", "+z"),
      patch("*** Update File: a", "*** Move to: b \t", "@@", "-x", "+y"),
      patch("*** Add File: a", "+x\ry"),
      "*** Begin Patch\r\n*** Add File: a\r\r\n+x\r\n*** End Patch",
    ])
      expect(readCodexPatch(text)).toMatchObject({
        ok: false,
        reason: expect.stringContaining("Codex versions read the patch differently"),
      });
    expect(readCodexPatch("*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n")).toEqual({
      ok: true,
      operations: [{ kind: "add", path: "a" }],
    });
  });

  it("U+2028, U+2029, \\r, tab or NEL inside a path do not split the line: the path holds them, and is refused", () => {
    for (const odd of [
      "\u2028",
      "\u2029",
      "\r",
      "\t",
      "\u0085",
      "\u00a0",
      "\ufeff",
      "\u200b",
      "\u202e",
      "\u0001",
    ]) {
      const text = patch(`*** Add File: a${odd}b`, "+x");
      expect(ops(text)).toEqual([{ kind: "add", path: `a${odd}b` }]);
      expect(readCodexPatch(text)).toMatchObject({ ok: false });
    }
    expect(readCodexPatch(patch("*** Update File: a.txt", "*** Move to:  moved", "@@", "-x"))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("spaces at its ends"),
    });
  });

  it("a BOM is not whitespace to Codex: a BOM-prefixed header is no header, and the patch is rejected", () => {
    expect(ops(patch("\ufeff*** Add File: x", "+x"))).toBe(headerError("\ufeff*** Add File: x", 2));
    expect(ops("\ufeff*** Begin Patch\n*** Add File: x\n+x\n*** End Patch")).toBe(FIRST_LINE);
    expect(readCodexPatch(patch("\ufeff*** Add File: x", "+x"))).toMatchObject({ ok: false });
  });

  it("headers Codex accepts that a naive reader misses: NEL or em-space padding, a heredoc wrapper, CRLF", () => {
    expect(ops(`\u0085${patch("*** Add File: a", "+x")}\u2003`)).toEqual([{ kind: "add", path: "a" }]);
    expect(ops(patch("*** Add File: a", "+x", "\u2003*** Add File: b", "+y"))).toEqual([
      { kind: "add", path: "a" },
      { kind: "add", path: "b" },
    ]);
    expect(ops(`<<'EOF'\n${patch("*** Add File: a", "+x")}\nxEOF`)).toEqual([{ kind: "add", path: "a" }]);
  });

  it("lines a naive reader takes for headers that Codex does not: indented in an update, wrong case, a `+` line", () => {
    expect(ops(patch("*** Update File: a", "@@", "-x", " *** Add File: b"))).toEqual([
      { kind: "update", path: "a" },
    ]);
    expect(ops(patch("*** add file: b", "+x"))).toBe(headerError("*** add file: b", 2));
    expect(ops(patch("*** Add File: a", "+*** Add File: b"))).toEqual([{ kind: "add", path: "a" }]);
    expect(ops(patch("*** Add File:b", "+x"))).toBe(headerError("*** Add File:b", 2));
  });

  it("an environment, a patch Codex rejects, and a patch that names no file are not understood", () => {
    expect(readCodexPatch(patch("*** Environment ID: remote", "*** Add File: a", "+x"))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("names an environment"),
    });
    expect(readCodexPatch("*** Begin Patch\n*** Add File: a\n+x")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("Codex would reject this patch"),
    });
    expect(readCodexPatch(patch())).toEqual({ ok: false, reason: "the patch names no file" });
  });

  it("an ordinary patch with non-ASCII names and content is understood", () => {
    expect(
      readCodexPatch(
        patch(
          "*** Add File: docs/café 说明.md",
          "+\u00a0naïve\u2003text",
          "*** Update File: src/a.ts",
          "@@",
          "-x",
          "+y",
        ),
      ),
    ).toEqual({
      ok: true,
      operations: [
        { kind: "add", path: "docs/café 说明.md" },
        { kind: "update", path: "src/a.ts" },
      ],
    });
  });
});

describe("ordinary patches (the false-positive list)", () => {
  it.each(ORDINARY_PATCHES)("understood, writing exactly its files: $what", ({ patch: text, writes }) => {
    const reading = readCodexPatch(text);
    expect(reading.ok && patchPaths(reading.operations)).toEqual(writes);
  });
});

describe("shell commands Codex applies as patches itself", () => {
  const body = patch("*** Add File: a.txt", "+hi");
  it("`apply_patch <<'EOF'` (any quoting, any name, applypatch, after `cd DIR &&`) is the patch it holds", () => {
    expect(readCodexShellPatch(`apply_patch <<'EOF'\n${body}\nEOF\n`)).toEqual({
      kind: "patch",
      patch: body,
      cd: null,
    });
    expect(readCodexShellPatch(`applypatch <<"PATCH"\n${body}\nPATCH`)).toEqual({
      kind: "patch",
      patch: body,
      cd: null,
    });
    expect(readCodexShellPatch(`cd sub/dir && apply_patch <<EOF\n${body}\nEOF\n`)).toEqual({
      kind: "patch",
      patch: body,
      cd: "sub/dir",
    });
  });

  it("a command that does not mention apply_patch is a command", () => {
    expect(readCodexShellPatch("git apply fix.patch")).toEqual({ kind: "none" });
    expect(readCodexShellPatch("cat <<'EOF' > x\n*** Begin Patch\nEOF")).toEqual({ kind: "none" });
  });

  it("any other mention of apply_patch is not understood: Codex may intercept it or run its helper", () => {
    for (const command of [
      `# note\napply_patch <<'EOF'\n${body}\nEOF\n`,
      `apply_patch <<'EOF'\n${body}\nEOF\necho done`,
      `apply_patch "${body}"`,
      `APPLY_PATCH <<'EOF'\n${body}\nEOF`,
      `apply_patch <<EOF\n${body.replace("a.txt", "$HOME/a.txt")}\nEOF`,
      `apply_patch <<'EOF'\r\n${body}\r\nEOF\r\n`,
      `cd ../up && apply_patch <<'EOF'\n${body}\nEOF`,
      `cd "sub" && apply_patch <<'EOF'\n${body}\nEOF`,
      `apply_patch <<'EOF'\n*** Begin Patch\nEOF\n*** End Patch\nEOF`,
      "grep -rn apply_patch src/",
    ])
      expect(readCodexShellPatch(command)).toMatchObject({ kind: "unsure" });
  });
});
