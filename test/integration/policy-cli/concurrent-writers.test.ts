// Two processes writing the approvals file at once (the UI and the CLI) lose no update.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ApprovalsFile } from "../../../src/core/approvals/index.js";
import { REPO_ROOT } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-concurrent-");
});
afterEach(async () => t.cleanup());

/** A child process that adds `count` entries through ApprovalsStore (the built dist/). */
function writer(name: string, count: number): Promise<number | null> {
  const store = pathToFileURL(path.join(REPO_ROOT, "dist/src/core/approvals/index.js")).href;
  const code = `
    const { ApprovalsStore } = await import(${JSON.stringify(store)});
    const store = new ApprovalsStore({ path: ${JSON.stringify(t.paths.approvals)}, defaultSocketPath: "x.sock" });
    for (let i = 0; i < ${count}; i++) await store.addEntry("*", { pattern: "/opt/${name}/tool-" + i });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

it("two processes adding 200 entries each at the same time end with all 400", async () => {
  const codes = await Promise.all([writer("a", 200), writer("b", 200)]);
  expect(codes).toEqual([0, 0]);
  const file = JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as ApprovalsFile;
  const entries = file.agents["*"]?.allowlist ?? [];
  expect(entries).toHaveLength(400);
  expect(new Set(entries.map((e) => e.id)).size).toBe(400);
  expect(new Set(entries.map((e) => e.pattern)).size).toBe(400);
  await expect(fs.stat(`${t.paths.approvals}.lock`)).rejects.toThrow();
}, 120_000);
