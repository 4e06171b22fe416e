// A catalogue of 2 000 skills across 4 roots is complete and correct, and one broken SKILL.md among
// them is reported with its path and error while the other 1 999 are listed.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeSkillTree } from "../../bench/catalogue.bench.js";
import { makeSkillFixture, type SkillFixture } from "../../unit/skills/fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

describe("a large catalogue", () => {
  it("lists 2 000 skills across 4 roots and reports the one broken SKILL.md with its path and error", async () => {
    const folders = await writeSkillTree(f.H, f.WS, 2000);
    const broken = folders[1234]!;
    await fs.writeFile(
      path.join(broken, "SKILL.md"),
      "---\nname: skill-1234\ndescription: [unclosed\n---\nBody\n",
    );
    const catalogue = await f
      .engine({ env: { ...f.env, PATH: "/usr/bin:/bin" } })
      .buildCatalogue({ workspace: f.WS });

    expect(catalogue.skills).toHaveLength(2000);
    expect(catalogue.roots.filter((r) => r.exists).map((r) => [r.rank, r.count])).toEqual([
      [1, 500],
      [3, 500],
      [5, 500],
      [6, 500],
    ]);
    const invalid = catalogue.skills.filter((s) => !s.valid);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ path: broken, name: "skill-1234" });
    expect(invalid[0]?.errors[0]).toMatch(/^invalid YAML at line 3: /);
    const offered = catalogue.skills.filter((s) => s.offered);
    expect(offered).toHaveLength(1999);
    expect(catalogue.index.count).toBe(1999);
    // Sorted by name, each name once, every folder accounted for.
    const names = catalogue.skills.map((s) => s.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(catalogue.skills.map((s) => s.path))).toEqual(new Set(folders));
    expect(offered[0]).toMatchObject({
      name: "skill-0000",
      permissions: ["file_read", "shell_exec"],
      triggers: ["job 0", "task 0"],
      description: "Does job number 0 step by step.\nUse it when the task mentions that job.",
    });
  });
});
