// workdir.md §8: the re-check just before a spawn catches a folder swapped for a link, and the
// real process then starts in the managed folder.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkdirService } from "../../../src/core/workdir/index.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

const run = promisify(execFile);
let fx: WorkdirFixture;
let service: WorkdirService;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
  service = await fx.service();
});
afterEach(async () => {
  await fx.cleanup();
});

async function pwdIn(cwd: string): Promise<string> {
  const { stdout } = await run("pwd", ["-P"], { cwd });
  return stdout.trim();
}

describe.skipIf(process.platform === "win32")("re-check before spawn", () => {
  it("a workdir swapped for a link to / between resolve and spawn is refused and pwd runs in W/<task>", async () => {
    const { resolution } = await service.resolveForTask({ taskId: "race", workdir: "~/Projects/bar" });
    expect(resolution.cwd).toBe(path.join(fx.H, "Projects", "bar"));
    await fs.rm(path.join(fx.H, "Projects", "bar"), { recursive: true });
    await fs.symlink("/", path.join(fx.H, "Projects", "bar"));

    const checked = await service.recheckBeforeSpawn(resolution);
    if (checked.ok || checked.code !== "changed-before-start") throw new Error("the swap was not caught");
    expect(checked.fallback.fallback?.code).toBe("changed-before-start");
    expect(await pwdIn(checked.fallback.cwd)).toBe(path.join(fx.W, "race"));
  });

  it("an unchanged workdir passes the re-check and pwd runs there", async () => {
    const { resolution } = await service.resolveForTask({ taskId: "t1", workdir: "~/Projects/link-in" });
    const checked = await service.recheckBeforeSpawn(resolution);
    expect(checked).toEqual({ ok: true, cwd: path.join(fx.H, "Projects", "foo") });
    if (checked.ok) expect(await pwdIn(checked.cwd)).toBe(path.join(fx.H, "Projects", "foo"));
  });

  it("a root removed after the resolution is caught by the re-check", async () => {
    await service.addRoot("~/Work");
    const { resolution } = await service.resolveForTask({ taskId: "t1", workdir: "~/Work/app" });
    expect(resolution.cwd).toBe(path.join(fx.H, "Work", "app"));
    await service.removeRoot("~/Work");
    const checked = await service.recheckBeforeSpawn(resolution);
    expect(checked).toMatchObject({ ok: false, code: "changed-before-start" });
  });

  it("a managed folder swapped for a link before the spawn is fatal", async () => {
    const { resolution } = await service.resolveForTask({ taskId: "t1" });
    await fs.rm(resolution.cwd, { recursive: true });
    await fs.symlink("/", resolution.cwd);
    expect(await service.recheckBeforeSpawn(resolution)).toEqual({
      ok: false,
      code: "managed-unavailable",
      message: "Working folder error: managed-unavailable.",
    });
  });
});
