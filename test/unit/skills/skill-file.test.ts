// SKILL.md splitting (skills.md §3.1): BOM, line ends, the frontmatter lines and the body.
import { describe, expect, it } from "vitest";
import { parseSkillMarkdown } from "../../../src/core/skills/skill-file.js";

describe("SKILL.md splitting", () => {
  it("takes the body after the closing line, which may carry trailing spaces", () => {
    expect(parseSkillMarkdown("---\nname: a\n---  \n\nBody\n")).toEqual({
      ok: true,
      value: { frontmatter: { name: "a" }, body: "\nBody\n" },
    });
    expect(parseSkillMarkdown("---\nname: a\n---")).toEqual({
      ok: true,
      value: { frontmatter: { name: "a" }, body: "" },
    });
  });

  it("removes a BOM and turns CRLF and lone CR into LF", () => {
    expect(parseSkillMarkdown("\uFEFF---\r\nname: a\rdescription: b\r\n---\r\nOne\r\nTwo")).toEqual({
      ok: true,
      value: { frontmatter: { name: "a", description: "b" }, body: "One\nTwo" },
    });
  });

  it("needs the first line to be exactly --- and a closing line", () => {
    expect(parseSkillMarkdown("--- \nname: a\n---\n")).toEqual({ ok: false, error: "no frontmatter" });
    expect(parseSkillMarkdown("\n---\nname: a\n---\n")).toEqual({ ok: false, error: "no frontmatter" });
    expect(parseSkillMarkdown("---\nname: a\n----\n")).toEqual({
      ok: false,
      error: "unterminated frontmatter",
    });
    expect(parseSkillMarkdown("---")).toEqual({ ok: false, error: "unterminated frontmatter" });
    expect(parseSkillMarkdown("---\n---\n")).toEqual({ ok: false, error: "frontmatter is not a mapping" });
  });

  it("counts YAML error lines in file lines, from the opening ---", () => {
    const result = parseSkillMarkdown("---\nname: a\n\ndescription: Use when: testing\n---\n");
    expect(result.ok ? null : result.error).toMatch(/^invalid YAML at line 4: /);
  });
});
