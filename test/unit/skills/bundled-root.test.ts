import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { bundledSkillsRoot } from "../../../src/core/skills/bundled-root.js";
import { findGatehouseBin } from "../../../src/executor/tasks/gatehouse-command.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

describe("the installation's bundled skills folder", () => {
  it("is skills/ next to bin/ for the sources, the compiled dist/src/ and the dist/cli/ bundle alike", () => {
    const expected = path.join(REPO_ROOT, "skills");
    expect(bundledSkillsRoot()).toBe(expected);
    expect(bundledSkillsRoot(path.join(REPO_ROOT, "dist", "src", "core", "skills"))).toBe(expected);
    expect(bundledSkillsRoot(path.join(REPO_ROOT, "dist", "cli"))).toBe(expected);
  });

  it("is found by walking up to the folder holding bin/gatehouse.js, as the hook command is", async () => {
    const install = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-install-")));
    made.push(install);
    await fs.mkdir(path.join(install, "bin"));
    await fs.writeFile(path.join(install, "bin", "gatehouse.js"), "");
    const deep = path.join(install, "resources", "app", "dist", "cli");
    expect(bundledSkillsRoot(deep)).toBe(path.join(install, "skills"));
    expect(findGatehouseBin(deep)).toBe(path.join(install, "bin", "gatehouse.js"));
  });

  it("names no real folder when the module is outside any installation", () => {
    expect(findGatehouseBin(path.parse(os.tmpdir()).root)).toBeNull();
    expect(bundledSkillsRoot(path.parse(os.tmpdir()).root)).toContain("nonexistent-gatehouse-installation");
  });
});
