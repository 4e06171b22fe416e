// The compiled-code cache one-shot commands load the bundle through (bin/code-cache.js, docs/decisions.md
// "Start-up"). It is code Gatehouse runs, so it must live only where nobody but the user writes, and a
// bad entry may cost time but never change what a command answers.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { realProgram } from "../../support/programs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const BUNDLED = path.join(REPO_ROOT, "dist/cli/main.cjs");
// The cache serves the bundle only; without one (a bare tsc) the compiled modules run and nothing is cached.
const hasBundle = await fs.stat(BUNDLED).then(
  () => true,
  () => false,
);
// Node 22.1+ keeps its own cache in the same folder instead (module.enableCompileCache).
const nodeCachesItself = "enableCompileCache" in (await import("node:module")).default;

let t: TempHome;
let cacheDir: string;
beforeEach(async () => {
  t = await makeTempHome("gh-code-cache-");
  cacheDir = path.join(t.paths.executorHome, "compile-cache");
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  await store.addEntry("*", { pattern: realProgram("git") });
});
afterEach(async () => t?.cleanup());

const explainGit = () =>
  runCli(["policy", "explain", "--json", "--", "git", "status"], { env: t.env, cwd: t.home });

describe.skipIf(!hasBundle || nodeCachesItself)("the bundle's code cache", () => {
  it("is kept in Gatehouse's home, private to the user, and the next run answers the same from it", async () => {
    const first = await explainGit();
    expect(first.code).toBe(0);
    const folder = await fs.stat(cacheDir);
    expect(folder.mode & 0o777).toBe(0o700);
    const entries = await fs.readdir(cacheDir);
    expect(entries.some((e) => e.startsWith("main.cjs."))).toBe(true);
    for (const entry of entries) expect((await fs.stat(path.join(cacheDir, entry))).mode & 0o777).toBe(0o600);
    const second = await explainGit();
    expect(second.json()).toEqual(first.json());
    expect(await fs.readdir(cacheDir)).toEqual(entries);
  });

  it("is not used where another user could write it, and such a home is refused", async () => {
    await fs.mkdir(cacheDir, { mode: 0o700 });
    await fs.chmod(cacheDir, 0o777);
    const refused = await explainGit();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${cacheDir} can be written by other users`);
    expect(await fs.readdir(cacheDir)).toEqual([]);
    await fs.chmod(cacheDir, 0o700);
    await fs.chmod(t.paths.executorHome, 0o770);
    expect((await explainGit()).code).not.toBe(0);
    expect(await fs.readdir(cacheDir)).toEqual([]);
  });

  it("is not made before Gatehouse's home exists", async () => {
    await fs.rm(t.paths.executorHome, { recursive: true });
    await runCli(["--version"], { env: t.env, cwd: t.home });
    await expect(fs.stat(t.paths.executorHome)).rejects.toThrow();
  });

  it("a damaged entry is rejected and written again; the answer does not change", async () => {
    const first = await explainGit();
    for (const entry of await fs.readdir(cacheDir)) {
      await fs.writeFile(path.join(cacheDir, entry), Buffer.alloc(4096, 0x41));
    }
    const second = await explainGit();
    expect(second.json()).toEqual(first.json());
    for (const entry of await fs.readdir(cacheDir)) {
      const data = await fs.readFile(path.join(cacheDir, entry));
      expect(data.equals(Buffer.alloc(data.length, 0x41))).toBe(false);
    }
  });
});
