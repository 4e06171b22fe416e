// Fault injection for the workdir bindings E/workdir-bindings.json (issue 30 item 2): `gatehouse workdir
// resolve --task` (which creates the task's folder and binds it) SIGKILLed before every file-system step
// (fs-steps.ts), a full disk at every step (injected ENOSPC) and for real (a full tmpfs over E), and a
// read-only E. Through the real CLI as uid 65534 in a home that user owns.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkdirBindingsFileSchema } from "../../../src/core/workdir/io/bindings.js";
import { copyHome, filesUnder, giveToOtherUser, mountFullDisk } from "../../support/fault-homes.js";
import { describeFsStep, leftovers, runWithFault } from "../../support/fault-run.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { runCli } from "../../support/cli.js";

function run(t: TempHome, args: string[], stopAt: number | null, fault: "kill" | "enospc" = "kill") {
  return runWithFault(args, { env: t.env, root: t.home, stopAt, fault, asOtherUser: true });
}

/** The bound tasks and their folders (throws on a half-written file). */
async function bound(t: TempHome): Promise<string[]> {
  const text = await fs.readFile(t.paths.workdirBindings, "utf8");
  const file = WorkdirBindingsFileSchema.parse(JSON.parse(text));
  // the folder under E/workspace (a copied home's first binding names the template's folder)
  return file.tasks.map((b) => `${b.task_id}=${b.cwd.split(path.sep).slice(-2).join("/")}`).sort();
}

const RESOLVE = (task: string) => ["workdir", "resolve", "--json", "--task", task];

describe.skipIf(otherUserUnavailable)("the workdir bindings under faults", () => {
  let template: TempHome;

  beforeAll(async () => {
    template = await makeTempHome("gh-fault-wd-template-");
    await fs.chmod(template.home, 0o755);
    const first = await runCli(RESOLVE("1"), { env: template.env, cwd: template.home });
    expect(first.code, first.stderr).toBe(0);
    await fs.mkdir(path.join(template.home, "project"));
    await fs.writeFile(path.join(template.home, "project", "notes.txt"), "the user's own file\n");
    giveToOtherUser(template.home);
  });
  afterAll(async () => {
    await template.cleanup();
  });

  it(
    "a resolve killed at any step leaves the old or the new bindings, and the task gets the same folder next time",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-wd-");
      const recorded = await run(whole, RESOLVE("2"), null);
      expect(recorded.code, recorded.stderr).toBe(0);
      const before = await bound(template);
      const after = await bound(whole);
      const folder = (JSON.parse(recorded.stdout) as { cwd: string }).cwd.replace(whole.home, "");
      await whole.cleanup();
      expect(after).toEqual([...before, "2=workspace/2"]);
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-wd-");
        const where = `kill before step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          const killed = await run(t, RESOLVE("2"), n);
          if (killed.signal !== "SIGKILL") problems.push(`${where}: not killed (${killed.code})`);
          const now = await bound(t).catch((error: Error) => `half-written: ${error.message}`);
          if (JSON.stringify(now) !== JSON.stringify(before) && JSON.stringify(now) !== JSON.stringify(after))
            problems.push(`${where}: neither old nor new: ${JSON.stringify(now)}`);
          const again = await run(t, RESOLVE("2"), null);
          if (again.code !== 0) problems.push(`${where}: the next resolve failed: ${again.stderr}`);
          else if ((JSON.parse(again.stdout) as { cwd: string }).cwd.replace(t.home, "") !== folder)
            problems.push(`${where}: the next resolve gave another folder: ${again.stdout}`);
          const left = await leftovers(t.paths.executorHome);
          if (left.length > 0) problems.push(`${where}: the next resolve left ${left.join(", ")}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
      expect(recorded.steps.length).toBeGreaterThan(4);
    },
  );

  it(
    "a full disk at any step of a resolve is a clear error and leaves the bindings and the user's files as they were",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-wd-");
      const recorded = await run(whole, RESOLVE("2"), null);
      await whole.cleanup();
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-wd-");
        const where = `disk full from step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          const before = await fs.readFile(t.paths.workdirBindings, "utf8");
          const userFiles = await filesUnder(path.join(t.home, "project"));
          const full = await run(t, RESOLVE("2"), n, "enospc");
          if (full.code === 0) {
            if (!(await bound(t)).includes("2=workspace/2"))
              problems.push(`${where}: reported success without the binding`);
          } else {
            if (!/no space left on the disk that holds .*Free some space there/.test(full.stderr))
              problems.push(`${where}: the error does not say the disk is full: ${full.stderr.trim()}`);
            if ((await fs.readFile(t.paths.workdirBindings, "utf8")) !== before)
              problems.push(`${where}: the bindings file changed`);
          }
          if (JSON.stringify(await filesUnder(path.join(t.home, "project"))) !== JSON.stringify(userFiles))
            problems.push(`${where}: the user's files changed`);
          const left = await leftovers(t.paths.executorHome);
          if (left.length > 0) problems.push(`${where}: left ${left.join(", ")}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it("a really full disk under E makes a resolve fail clearly, and it works once there is room", async (ctx) => {
    const t = await copyHome(template, "gh-fault-wd-");
    const disk = await mountFullDisk(t.paths.executorHome, { owner: 65534 });
    if (typeof disk === "string") {
      await t.cleanup();
      ctx.skip(disk);
      return;
    }
    try {
      const before = await fs.readFile(t.paths.workdirBindings, "utf8");
      const full = await run(t, RESOLVE("2"), null);
      expect(full.code).not.toBe(0);
      expect(full.stderr).toContain("no space left on the disk that holds");
      expect(full.stderr).toContain("Free some space there and try again");
      expect(await fs.readFile(t.paths.workdirBindings, "utf8")).toBe(before);
      expect(await leftovers(t.paths.executorHome)).toEqual([]);
      await disk.free(64 * 1024);
      const roomy = await run(t, RESOLVE("2"), null);
      expect(roomy.code, roomy.stderr).toBe(0);
      expect(await bound(t)).toContain("2=workspace/2");
    } finally {
      disk.unmount();
      await t.cleanup();
    }
  });

  it("a read-only E makes a resolve fail with an error that names the folder and what to do", async () => {
    const t = await copyHome(template, "gh-fault-wd-");
    try {
      const before = await fs.readFile(t.paths.workdirBindings, "utf8");
      await fs.chmod(t.paths.executorHome, 0o500);
      const refused = await run(t, RESOLVE("2"), null);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`${t.paths.executorHome} is read-only`);
      expect(refused.stderr).toContain(`chmod u+w ${t.paths.executorHome}`);
      expect(await fs.readFile(t.paths.workdirBindings, "utf8")).toBe(before);
      await fs.chmod(t.paths.executorHome, 0o700);
      const again = await run(t, RESOLVE("2"), null);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await fs.chmod(t.paths.executorHome, 0o700).catch(() => undefined);
      await t.cleanup();
    }
  });
});
