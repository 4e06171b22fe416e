// skills.md §13 cases 5–11 and the file rules of §2–§4 (engine level).
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../../src/core/skills/index.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

const userRoot = () => path.join(f.H, ".claude/skills");

async function entries(): Promise<SkillEntry[]> {
  return (await f.engine().buildCatalogue({})).skills;
}

async function entryAt(folder: string): Promise<SkillEntry> {
  const found = (await entries()).find((e) => e.path === path.join(userRoot(), folder));
  if (!found) throw new Error(`no entry for ${folder}`);
  return found;
}

const CASE_9_SKILL = [
  "---",
  "name: auto-coder",
  "description: From frontmatter",
  "permissions: [shell_exec]",
  "triggers: [write code]",
  "---",
  "# Auto Coder",
  "",
].join("\n");
const CASE_9_MANIFEST = [
  "[skill]",
  'name = "auto-coder"',
  'description = "From manifest"',
  'permissions = ["file_read"]',
  "",
].join("\n");

describe("skill files", () => {
  it("case 5: names must be lowercase words joined by single hyphens, at most 64 characters", async () => {
    const names: Record<string, string> = {
      a: "a",
      "pdf-tools": "pdf-tools",
      x64: "x".repeat(64),
      x65: "x".repeat(65),
      mine: "My_Skill",
      lead: "-lead",
      trail: "trail-",
      double: "a--b",
    };
    for (const [folder, name] of Object.entries(names)) {
      await f.skill(path.join(userRoot(), folder), { name, description: "D" });
    }
    await f.skill(path.join(userRoot(), "nameless"), { description: "D" });
    const errors = async (folder: string) => (await entryAt(folder)).errors;
    expect(await errors("a")).toEqual([]);
    expect(await errors("pdf-tools")).toEqual([]);
    expect(await errors("x64")).toEqual([]);
    expect(await errors("x65")).toEqual(["name too long: 65 characters (limit 64)"]);
    expect(await errors("mine")).toEqual(["invalid name: My_Skill"]);
    expect(await errors("lead")).toEqual(["invalid name: -lead"]);
    expect(await errors("trail")).toEqual(["invalid name: trail-"]);
    expect(await errors("double")).toEqual(["invalid name: a--b"]);
    expect(await errors("nameless")).toEqual(["missing name"]);
    // An invalid entry shows its folder name, for display only.
    expect((await entryAt("mine")).name).toBe("mine");
  });

  it("case 6: descriptions up to 1024 characters are valid; longer or blank ones are not", async () => {
    await f.skill(path.join(userRoot(), "d1024"), { name: "d1024", description: "d".repeat(1024) });
    await f.skill(path.join(userRoot(), "d1025"), { name: "d1025", description: "d".repeat(1025) });
    await f.skill(path.join(userRoot(), "blank"), { name: "blank", description: '"   "' });
    expect((await entryAt("d1024")).valid).toBe(true);
    expect((await entryAt("d1025")).errors).toEqual(["description too long: 1025 characters (limit 1024)"]);
    expect((await entryAt("blank")).errors).toEqual(["missing description"]);
  });

  it("length limits count code points, not UTF-16 units", async () => {
    await f.skill(path.join(userRoot(), "emoji"), { name: "emoji", description: "😀".repeat(1024) });
    expect((await entryAt("emoji")).valid).toBe(true);
  });

  it("case 7: inline lists, block lists and comma-separated strings give the same list", async () => {
    await f.skill(path.join(userRoot(), "inline"), {
      name: "inline",
      description: "D",
      permissions: "[file_read, shell_exec]",
    });
    await f.skill(
      path.join(userRoot(), "block"),
      "---\nname: block\ndescription: D\npermissions:\n  - file_read\n  - shell_exec\n---\nBody\n",
    );
    await f.skill(path.join(userRoot(), "comma"), {
      name: "comma",
      description: "D",
      permissions: '"file_read, shell_exec"',
    });
    for (const folder of ["inline", "block", "comma"]) {
      expect((await entryAt(folder)).permissions).toEqual(["file_read", "shell_exec"]);
    }
  });

  it("list items are trimmed, empty items and duplicates dropped", async () => {
    await f.skill(path.join(userRoot(), "tags"), { name: "tags", description: "D", tags: '" a, b,, a ,c "' });
    expect((await entryAt("tags")).details.tags).toEqual(["a", "b", "c"]);
  });

  it("case 8: a block scalar description keeps its line breaks", async () => {
    await f.skill(
      path.join(userRoot(), "block"),
      "---\nname: block\ndescription: |\n  line one\n  line two\n---\nBody\n",
    );
    expect((await entryAt("block")).description).toBe("line one\nline two");
  });

  it("case 9: manifest.toml wins field by field", async () => {
    const dir = path.join(userRoot(), "auto-coder");
    await f.write(path.join(dir, "SKILL.md"), CASE_9_SKILL);
    await f.write(path.join(dir, "manifest.toml"), CASE_9_MANIFEST);
    const entry = await entryAt("auto-coder");
    expect(entry).toMatchObject({
      valid: true,
      description: "From manifest",
      permissions: ["file_read"],
      triggers: ["write code"],
    });
  });

  it("case 10: an obsolete [[tools]] table is ignored with a warning", async () => {
    const dir = path.join(userRoot(), "tooled");
    await f.skill(dir, { name: "tooled", description: "D" });
    await f.write(
      path.join(dir, "manifest.toml"),
      '[skill]\nname = "tooled"\ndescription = "Tools"\n\n[[tools]]\nname = "run"\ncommand = "run.sh"\n',
    );
    const entry = await entryAt("tooled");
    expect(entry.valid).toBe(true);
    expect(entry.warnings).toEqual(["deprecated [[tools]] ignored"]);
  });

  it("a manifest with no [skill] table is ignored with a warning", async () => {
    const dir = path.join(userRoot(), "plain");
    await f.skill(dir, { name: "plain", description: "D" });
    await f.write(path.join(dir, "manifest.toml"), 'title = "x"\n');
    const entry = await entryAt("plain");
    expect(entry).toMatchObject({ valid: true, warnings: ["manifest.toml has no [skill] table; ignored"] });
  });

  it("case 11: errors in one skill do not stop the scan, and each file error has its exact text", async () => {
    await f.skill(path.join(userRoot(), "bad"), { name: "bad", description: "Use when: testing" });
    await f.skill(path.join(userRoot(), "good"), { name: "good", description: "Fine" });
    await f.write(path.join(userRoot(), "manifest-only/manifest.toml"), '[skill]\nname = "manifest-only"\n');
    await f.write(path.join(userRoot(), "no-front/SKILL.md"), "# Just markdown\n");
    const bom = path.join(userRoot(), "auto-coder");
    await f.write(path.join(bom, "SKILL.md"), `\uFEFF${CASE_9_SKILL.replace(/\n/g, "\r\n")}`);
    await f.write(path.join(bom, "manifest.toml"), `\uFEFF${CASE_9_MANIFEST.replace(/\n/g, "\r\n")}`);

    const bad = await entryAt("bad");
    expect(bad.valid).toBe(false);
    expect(bad.errors).toHaveLength(1);
    expect(bad.errors[0]).toMatch(/^invalid YAML at line 3: /);
    expect((await entryAt("good")).valid).toBe(true);
    expect((await entryAt("manifest-only")).errors).toEqual(["missing SKILL.md"]);
    expect((await entryAt("no-front")).errors).toEqual(["no frontmatter"]);
    expect(await entryAt("auto-coder")).toMatchObject({
      valid: true,
      description: "From manifest",
      permissions: ["file_read"],
      triggers: ["write code"],
    });
  });

  it("reports unterminated frontmatter, a non-mapping frontmatter, duplicate keys and TOML errors with their line", async () => {
    await f.write(path.join(userRoot(), "open/SKILL.md"), "---\nname: open\ndescription: D\n");
    await f.write(path.join(userRoot(), "list/SKILL.md"), "---\n- a\n- b\n---\nBody\n");
    await f.write(
      path.join(userRoot(), "dup/SKILL.md"),
      "---\nname: dup\ndescription: D\nname: again\n---\n",
    );
    const toml = path.join(userRoot(), "toml");
    await f.skill(toml, { name: "toml", description: "D" });
    await f.write(path.join(toml, "manifest.toml"), '[skill]\nname = "toml"\ndescription = \n');
    expect((await entryAt("open")).errors).toEqual(["unterminated frontmatter"]);
    expect((await entryAt("list")).errors).toEqual(["frontmatter is not a mapping"]);
    expect((await entryAt("dup")).errors[0]).toMatch(/^invalid YAML at line 4: Map keys must be unique$/);
    expect((await entryAt("toml")).errors).toEqual(["invalid TOML at line 3: invalid value"]);
  });

  it("a metadata string is parsed as JSON or JSON5, and a broken one makes the entry invalid", async () => {
    await f.skill(path.join(userRoot(), "json5"), {
      name: "json5",
      description: "D",
      metadata: `'{openclaw: {emoji: "🔧", requires: {bins: ["uv"]},},}'`,
    });
    await f.skill(path.join(userRoot(), "broken"), {
      name: "broken",
      description: "D",
      metadata: `'{"openclaw": '`,
    });
    await f.skill(path.join(userRoot(), "array"), { name: "array", description: "D", metadata: `'[1, 2]'` });
    expect((await entryAt("json5")).details).toMatchObject({ emoji: "🔧", requires: { bins: ["uv"] } });
    expect((await entryAt("broken")).errors[0]).toMatch(/^invalid metadata: /);
    expect((await entryAt("array")).errors).toEqual(["invalid metadata: not an object"]);
  });

  it("normalises the other fields and keeps unknown keys under extra without warnings", async () => {
    await f.skill(
      path.join(userRoot(), "fields"),
      [
        "---",
        "name: fields",
        "description: '  Trimmed  '",
        "version: 1.10",
        "license: 2",
        "user-invocable: no",
        "disable-model-invocation: yes",
        "allowed-tools: Read, Grep",
        "model: opus",
        "tags: {a: 1}",
        "---",
        "Body",
      ].join("\n"),
    );
    const entry = await entryAt("fields");
    expect(entry.description).toBe("Trimmed");
    expect(entry.details).toMatchObject({
      version: "1.10",
      license: "2",
      user_invocable: false,
      disable_model_invocation: true,
      tags: [],
      extra: { "allowed-tools": "Read, Grep", model: "opus" },
    });
    expect(entry.warnings).toEqual(["ignored field tags: expected list or comma-separated string"]);
    expect(entry.offered).toBe(false);
  });

  it("finds skill folders 1 to 3 levels deep, in code-point order, and nothing below a skill folder", async () => {
    await f.skill(path.join(userRoot(), "group/sub/deep"), { name: "deep", description: "D" });
    await f.skill(path.join(userRoot(), "group/sub/deep/inner"), { name: "inner", description: "D" });
    await f.skill(path.join(userRoot(), "a/b/c/too-deep"), { name: "too-deep", description: "D" });
    await f.skill(path.join(userRoot(), ".hidden"), { name: "hidden", description: "D" });
    await f.skill(path.join(userRoot(), "node_modules/pkg"), { name: "pkg", description: "D" });
    await f.write(path.join(userRoot(), "README.md"), "not a skill");
    await f.skill(path.join(f.H, ".codex/skills/.system/bundled"), { name: "bundled", description: "D" });
    const names = (await entries()).map((e) => e.name);
    expect(names).toEqual(["bundled", "deep"]);
  });

  it("follows links, stops cycles, and reports a broken link as an invalid entry", async () => {
    const elsewhere = path.join(f.H, "elsewhere/linked");
    await f.skill(elsewhere, { name: "linked", description: "D" });
    await fs.mkdir(userRoot(), { recursive: true });
    await fs.symlink(elsewhere, path.join(userRoot(), "linked"));
    await fs.symlink(path.join(f.H, "missing-target"), path.join(userRoot(), "dangling"));
    await fs.mkdir(path.join(userRoot(), "loop"));
    await fs.symlink(userRoot(), path.join(userRoot(), "loop/back"));
    const all = await entries();
    expect(all.map((e) => [e.name, e.valid, e.errors])).toEqual([
      ["dangling", false, [`broken link: ${path.join(f.H, "missing-target")}`]],
      ["linked", true, []],
    ]);
    expect(all[1]).toMatchObject({ path: path.join(userRoot(), "linked"), realpath: elsewhere });
  });

  it("a SKILL.md that is a folder or a FIFO is unreadable, and never blocks the scan", async () => {
    await fs.mkdir(path.join(userRoot(), "folder/SKILL.md"), { recursive: true });
    await fs.mkdir(path.join(userRoot(), "fifo"), { recursive: true });
    execFileSync("mkfifo", [path.join(userRoot(), "fifo/SKILL.md")]);
    await fs.mkdir(path.join(userRoot(), "linked-fifo"), { recursive: true });
    await fs.symlink(path.join(userRoot(), "fifo/SKILL.md"), path.join(userRoot(), "linked-fifo/SKILL.md"));
    expect((await entryAt("folder")).errors).toEqual(["unreadable: SKILL.md (EISDIR)"]);
    expect((await entryAt("fifo")).errors).toEqual(["unreadable: SKILL.md (not a regular file)"]);
    expect((await entryAt("linked-fifo")).errors).toEqual(["unreadable: SKILL.md (not a regular file)"]);
  });

  it("refuses files over their size limit", async () => {
    await f.skill(path.join(userRoot(), "huge"), { name: "huge", description: "D" }, "x".repeat(256 * 1024));
    const size = (await fs.stat(path.join(userRoot(), "huge/SKILL.md"))).size;
    expect((await entryAt("huge")).errors).toEqual([
      `file too large: SKILL.md (${size} bytes, limit 262144)`,
    ]);
  });
});
