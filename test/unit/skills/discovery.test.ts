// Finding skill folders (skills.md §2): the per-root limit.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SKILL_FOLDER_LIMIT, scanRoot } from "../../../src/core/skills/io/discovery.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

describe("discovery limits", () => {
  it("keeps the first folders up to the limit, in code-point order, and says the root has more", async () => {
    const root = path.join(f.H, "root");
    for (const name of ["d", "b", "a", "c"]) await f.skill(path.join(root, name), { name, description: "D" });
    const scan = await scanRoot(root, { limit: 3 });
    expect(scan.folders.map((x) => path.basename(x.path))).toEqual(["a", "b", "c"]);
    expect(scan.error).toBe("too many skill folders (limit 3)");
    expect((await scanRoot(root, { limit: 4 })).error).toBeNull();
  });

  it("the limit is 5 000 skill folders per root", () => {
    expect(SKILL_FOLDER_LIMIT).toBe(5000);
  });
});
