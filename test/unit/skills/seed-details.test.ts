// Issue 14, point 5: the bundled skill root with `allowBundled`, a plain `apiKey` or secret-named `env`
// value in a skill entry (moved into the secret store, with a notice), and the two ClawSeed manifest
// shapes (manifest.toml next to a plain-markdown SKILL.md; a name-only manifest).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../../src/core/skills/index.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

function only(skills: SkillEntry[], name: string): SkillEntry {
  const found = skills.filter((e) => e.name === name);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("bundled skills", () => {
  it("are the lowest root, offered unless allowBundled leaves them out, and shadowed by a user skill", async () => {
    const bundled = path.join(f.H, "app", "skills");
    await f.skill(path.join(bundled, "pdf-fill"), { name: "pdf-fill", description: "Fills PDFs." });
    await f.skill(path.join(bundled, "notes"), { name: "notes", description: "Bundled notes." });
    await f.skill(path.join(f.H, ".claude/skills/notes"), { name: "notes", description: "My notes." });
    const engine = () => f.engine({ bundledRoot: bundled });

    let catalogue = await engine().buildCatalogue({});
    expect(catalogue.roots.at(-1)).toMatchObject({
      rank: 9,
      kind: "bundled",
      source: "bundled",
      exists: true,
    });
    expect(only(catalogue.skills, "pdf-fill")).toMatchObject({ rank: 9, source: "bundled", offered: true });
    const notes = catalogue.skills.filter((e) => e.name === "notes");
    expect(notes.map((e) => [e.source, e.shadowed_by])).toEqual([
      ["user", null],
      ["bundled", path.join(f.H, ".claude/skills/notes")],
    ]);

    await f.settings({ allowBundled: ["notes"] });
    catalogue = await engine().buildCatalogue({});
    expect(only(catalogue.skills, "pdf-fill")).toMatchObject({
      eligible: false,
      reasons: ["bundled skill not in skills.allowBundled"],
    });
  });
});

describe("a plain apiKey in a skill entry", () => {
  const meta = '{"openclaw":{"requires":{"env":["GEMINI_API_KEY"]},"primaryEnv":"GEMINI_API_KEY"}}';

  it("is moved into the secret store, the settings keep the reference, and the notice names no value", async () => {
    await f.skill(path.join(f.H, ".claude/skills/nano"), {
      name: "nano",
      description: "Images.",
      metadata: meta,
    });
    await f.settings({ entries: { nano: { apiKey: "plain-key-123" } } });
    const stored = new Map<string, string>();
    const engine = f.engine({
      secrets: {
        get: async (ref) => stored.get(ref) ?? null,
        set: async (ref, v) => void stored.set(ref, v),
      },
    });
    expect(only((await engine.buildCatalogue({})).skills, "nano")).toMatchObject({ eligible: true });
    expect(stored.get("skills/nano/apiKey")).toBe("plain-key-123");
    const settings = JSON.parse(await fs.readFile(f.paths.settings, "utf8")) as {
      skills: { entries: { nano: { apiKey: string } } };
    };
    expect(settings.skills.entries.nano.apiKey).toBe("skills/nano/apiKey");
    expect(f.logLines.join("\n")).toContain("the apiKey in settings.json was moved into the secret store");
    expect(f.logLines.join("\n")).not.toContain("plain-key-123");
  });

  it("says so when it cannot be moved, instead of ignoring it silently", async () => {
    await f.skill(path.join(f.H, ".claude/skills/nano"), {
      name: "nano",
      description: "Images.",
      metadata: meta,
    });
    await f.settings({ entries: { nano: { apiKey: "plain-key-123" } } });
    const entry = only((await f.engine().buildCatalogue({})).skills, "nano");
    expect(entry.reasons).toEqual(["missing env: GEMINI_API_KEY"]);
    expect(f.logLines.join("\n")).toContain("is a plain value, not a secret-store reference");
    expect(f.logLines.join("\n")).not.toContain("plain-key-123");
  });
});

describe("plain secret values in a skill entry's env", () => {
  const meta = '{"openclaw":{"requires":{"env":["GITHUB_TOKEN","REGION"]}}}';

  it("moves a secret-named value into the store, keeps the reference, and leaves other values alone", async () => {
    await f.skill(path.join(f.H, ".claude/skills/gh"), {
      name: "gh",
      description: "GitHub.",
      metadata: meta,
    });
    await f.settings({
      entries: {
        gh: { env: { GITHUB_TOKEN: "ghp-plain-value-1", REGION: "skills/gh/env/REGION" }, enabled: true },
      },
    });
    const stored = new Map<string, string>([["skills/gh/env/REGION", "eu-west-1"]]);
    const engine = f.engine({
      secrets: {
        get: async (ref) => stored.get(ref) ?? null,
        set: async (ref, v) => void stored.set(ref, v),
      },
    });
    expect(only((await engine.buildCatalogue({})).skills, "gh")).toMatchObject({ eligible: true });
    expect(stored.get("skills/gh/env/GITHUB_TOKEN")).toBe("ghp-plain-value-1");
    const text = await fs.readFile(f.paths.settings, "utf8");
    expect(text).not.toContain("ghp-plain-value-1");
    const settings = JSON.parse(text) as { skills: { entries: { gh: Record<string, unknown> } } };
    expect(settings.skills.entries.gh).toEqual({
      env: { GITHUB_TOKEN: "skills/gh/env/GITHUB_TOKEN", REGION: "skills/gh/env/REGION" },
      enabled: true,
    });
    const log = f.logLines.join("\n");
    expect(log).toContain(
      "Skill gh: the value of env GITHUB_TOKEN in settings.json was moved into the secret store; the settings now hold the reference skills/gh/env/GITHUB_TOKEN.",
    );
    expect(log).not.toContain("ghp-plain-value-1");
  });

  it("leaves a plain value whose name does not look secret where it is", async () => {
    await f.skill(path.join(f.H, ".claude/skills/gh"), {
      name: "gh",
      description: "GitHub.",
      metadata: meta,
    });
    await f.settings({ entries: { gh: { env: { REGION: "eu-west-1" } } } });
    const before = await fs.readFile(f.paths.settings, "utf8");
    const stored = new Map<string, string>();
    const engine = f.engine({
      secrets: {
        get: async (ref) => stored.get(ref) ?? null,
        set: async (ref, v) => void stored.set(ref, v),
      },
    });
    await engine.buildCatalogue({});
    expect(stored.size).toBe(0);
    expect(await fs.readFile(f.paths.settings, "utf8")).toBe(before);
    expect(f.logLines.join("\n")).not.toContain("moved into the secret store");
  });

  it("says so when a secret-named value cannot be moved, naming the place and never the value", async () => {
    await f.skill(path.join(f.H, ".claude/skills/gh"), {
      name: "gh",
      description: "GitHub.",
      metadata: meta,
    });
    await f.settings({ entries: { gh: { env: { GITHUB_TOKEN: "ghp-plain-value-1" } } } });
    await f.engine().buildCatalogue({});
    const log = f.logLines.join("\n");
    expect(log).toContain(
      "Skill gh: skills.entries.gh.env.GITHUB_TOKEN in settings.json is a plain value, not a secret-store reference; it is not used. Store it as skills/gh/env/GITHUB_TOKEN.",
    );
    expect(log).not.toContain("ghp-plain-value-1");
    expect(await fs.readFile(f.paths.settings, "utf8")).toContain("ghp-plain-value-1");
  });
});

describe("ClawSeed manifests", () => {
  it("a manifest.toml next to a plain-markdown SKILL.md gives a valid skill whose body is the whole file", async () => {
    const dir = path.join(f.H, ".clawseed/skills/auto-coder");
    await f.write(path.join(dir, "SKILL.md"), "# Auto Coder\n\nRead before you write.\n");
    await f.write(
      path.join(dir, "manifest.toml"),
      '[skill]\nname = "auto-coder"\ndescription = "Writes code."\npermissions = ["file_read"]\n',
    );
    const engine = f.engine();
    const entry = only((await engine.buildCatalogue({})).skills, "auto-coder");
    expect(entry).toMatchObject({ valid: true, errors: [], description: "Writes code.", offered: true });
    await engine.snapshot("s1", f.WS);
    const result = await engine.handleSkillCall("s1", { skill: "auto-coder" }, new Set(["file_read"]));
    expect(result.text).toContain("# Auto Coder\n\nRead before you write.\n</active_skill>");
  });

  it("a name-only manifest takes the description from the SKILL.md text, with a warning", async () => {
    const dir = path.join(f.H, ".clawseed/skills/lint-fix");
    await f.write(path.join(dir, "SKILL.md"), "# Lint fix\n\nFixes lint errors\nin place.\n\n## Steps\n");
    await f.write(path.join(dir, "manifest.toml"), '[skill]\nname = "lint-fix"\n');
    const entry = only((await f.engine().buildCatalogue({})).skills, "lint-fix");
    expect(entry).toMatchObject({
      valid: true,
      description: "Fixes lint errors in place.",
      warnings: ["description taken from SKILL.md text"],
    });
  });

  it("a plain SKILL.md without a manifest is still invalid", async () => {
    await f.write(path.join(f.H, ".clawseed/skills/bare/SKILL.md"), "# Bare\n");
    expect(only((await f.engine().buildCatalogue({})).skills, "bare").errors).toEqual(["no frontmatter"]);
  });
});
