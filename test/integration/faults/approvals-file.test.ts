// Fault injection for the approvals file E/exec-approvals.json (issue 30 item 2): `gatehouse allowlist
// add/remove` and the usage notes and use counts of a limited entry (`gatehouse exec` of a covered
// command) SIGKILLed before every file-system step they take (fs-steps.ts, by step, not by time), a
// full disk at every step (injected ENOSPC) and for real (a tmpfs filled up, where it can be mounted),
// and a read-only E. Every run goes through the real CLI as uid 65534 in a home that user owns (exec
// runs a command the policy lets through: never as root).
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsFileSchema, type ApprovalsFile } from "../../../src/core/approvals/index.js";
import { realProgram } from "../../support/programs.js";
import { copyHome, filesUnder, giveToOtherUser, mountFullDisk } from "../../support/fault-homes.js";
import { describeFsStep, leftovers, runWithFault, type FaultRun } from "../../support/fault-run.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy } from "../approval-server/fixtures.js";

const TRUE = realProgram("true");
const TOUCH = realProgram("touch");

/** What a person sees of the file: each list's entries by pattern, with their counts and notes. */
function view(file: ApprovalsFile): Record<string, Array<Record<string, unknown>>> {
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const [agent, settings] of Object.entries(file.agents))
    out[agent] = (settings.allowlist ?? []).map((e) => ({
      pattern: e.pattern,
      usesLeft: e.usesLeft,
      lastUsedCommand: e.lastUsedCommand,
    }));
  return out;
}

async function readApprovals(t: TempHome): Promise<ApprovalsFile> {
  const text = await fs.readFile(t.paths.approvals, "utf8");
  return ApprovalsFileSchema.parse(JSON.parse(text)); // throws on a half-written file
}

function run(t: TempHome, args: string[], stopAt: number | null, fault: "kill" | "enospc" = "kill") {
  return runWithFault(args, { env: t.env, root: t.home, stopAt, fault, asOtherUser: true });
}

/**
 * Kills `args` before each of its steps in a copy of `template`; after each kill the file is the old
 * or the new one, and the next command (`repair`) works and leaves no temp file or lock behind.
 */
async function killAtEveryStep(
  template: TempHome,
  args: string[],
  repair: string[],
  /** Whole states between old and new that a kill may leave (a use counted, its note not yet written). */
  between: (before: ReturnType<typeof view>) => ReturnType<typeof view>[] = () => [],
): Promise<{ steps: number; problems: string[]; sawOld: boolean; sawNew: boolean }> {
  const before = view(await readApprovals(template));
  const whole = await copyHome(template, "gh-fault-ap-");
  let recorded: FaultRun;
  let after: ReturnType<typeof view>;
  try {
    recorded = await run(whole, args, null);
    expect(recorded.code, recorded.stderr).toBe(0);
    after = view(await readApprovals(whole));
    expect(after).not.toEqual(before);
  } finally {
    await whole.cleanup();
  }
  const problems: string[] = [];
  let sawOld = false;
  let sawNew = false;
  for (let n = 1; n <= recorded.steps.length; n++) {
    const t = await copyHome(template, "gh-fault-ap-");
    const where = `kill before step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
    try {
      const killed = await run(t, args, n);
      if (killed.signal !== "SIGKILL") problems.push(`${where}: the run was not killed (${killed.code})`);
      let now: ReturnType<typeof view>;
      try {
        now = view(await readApprovals(t));
      } catch (error) {
        problems.push(`${where}: the file is half-written: ${(error as Error).message}`);
        continue;
      }
      const isOld = JSON.stringify(now) === JSON.stringify(before);
      const isNew = JSON.stringify(now) === JSON.stringify(after);
      const isBetween = between(before).some((b) => JSON.stringify(b) === JSON.stringify(now));
      sawOld ||= isOld;
      sawNew ||= isNew;
      if (!isOld && !isNew && !isBetween)
        problems.push(`${where}: neither old nor new: ${JSON.stringify(now)}`);
      const next = await run(t, repair, null);
      if (next.code !== 0) problems.push(`${where}: the next command failed: ${next.stderr}`);
      const left = await leftovers(t.paths.executorHome);
      if (left.length > 0) problems.push(`${where}: the next command left ${left.join(", ")}`);
    } finally {
      await t.cleanup();
    }
  }
  return { steps: recorded.steps.length, problems, sawOld, sawNew };
}

describe.skipIf(otherUserUnavailable)("the approvals file under faults", () => {
  let template: TempHome;
  let limitedId: string;

  beforeAll(async () => {
    template = await makeTempHome("gh-fault-ap-template-");
    await fs.chmod(template.home, 0o755);
    await writePolicy(template.paths, {
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: ["/usr/bin/env"],
    });
    const added = JSON.parse(
      execFileSync(
        process.execPath,
        ["bin/gatehouse.js", "allowlist", "add", "--json", "--uses", "3", TRUE],
        {
          env: template.env,
          encoding: "utf8",
        },
      ),
    ) as { entry: { id: string } };
    limitedId = added.entry.id;
    execFileSync(process.execPath, ["bin/gatehouse.js", "allowlist", "add", "--json", "--uses", "2", TOUCH], {
      env: template.env,
    });
    await fs.mkdir(path.join(template.home, "project"));
    await fs.writeFile(path.join(template.home, "project", "notes.txt"), "the user's own file\n");
    giveToOtherUser(template.home);
  });
  afterAll(async () => {
    await template.cleanup();
  });

  it(
    "an allowlist add killed at any step leaves the old or the new file, and the next command cleans up",
    { timeout: 300_000 },
    async () => {
      const result = await killAtEveryStep(
        template,
        ["allowlist", "add", "--json", "/usr/bin/printf"],
        ["allowlist", "add", "--json", "/usr/bin/date"],
      );
      expect(result.problems).toEqual([]);
      expect(result.steps).toBeGreaterThan(3);
      expect([result.sawOld, result.sawNew]).toEqual([true, true]);
    },
  );

  it(
    "an allowlist remove killed at any step leaves the old or the new file, and the next command cleans up",
    { timeout: 300_000 },
    async () => {
      const result = await killAtEveryStep(
        template,
        ["allowlist", "remove", "--json", limitedId],
        ["allowlist", "add", "--json", "/usr/bin/date"],
      );
      expect(result.problems).toEqual([]);
      expect([result.sawOld, result.sawNew]).toEqual([true, true]);
    },
  );

  it(
    "a covered run of a limited entry killed at any step never leaves a half-written count or note",
    { timeout: 300_000 },
    async () => {
      // old (nothing counted yet), the use counted (its note comes after the run), or counted and noted
      const counted = (before: ReturnType<typeof view>) => [
        { ...before, "*": before["*"]!.map((e) => (e.pattern === TRUE ? { ...e, usesLeft: 2 } : e)) },
      ];
      const result = await killAtEveryStep(
        template,
        ["exec", "--json", "--", TRUE],
        ["exec", "--json", "--", TRUE],
        counted,
      );
      expect(result.problems).toEqual([]);
      expect([result.sawOld, result.sawNew]).toEqual([true, true]);
    },
  );

  it(
    "a full disk at any step of an allowlist add is a clear error and leaves the file and the user's files as they were",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-ap-");
      const recorded = await run(whole, ["allowlist", "add", "--json", "/usr/bin/printf"], null);
      await whole.cleanup();
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-ap-");
        try {
          const before = await fs.readFile(t.paths.approvals, "utf8");
          const userFiles = await filesUnder(path.join(t.home, "project"));
          const full = await run(t, ["allowlist", "add", "--json", "/usr/bin/printf"], n, "enospc");
          const where = `disk full from step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
          if (!recorded.steps.slice(n - 1).some((s) => /write|mkdir|appendFile/i.test(s.op))) continue;
          if (full.code === 0) {
            // the steps from n on needed no space (a rename, an unlink): the add went through whole
            if (!(await fs.readFile(t.paths.approvals, "utf8")).includes("/usr/bin/printf"))
              problems.push(`${where}: reported success without the entry`);
            continue;
          }
          if (!/no space left on the disk that holds .*Free some space there/.test(full.stderr))
            problems.push(`${where}: the error does not say the disk is full: ${full.stderr.trim()}`);
          if ((await fs.readFile(t.paths.approvals, "utf8")) !== before)
            problems.push(`${where}: the approvals file changed`);
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

  it("a really full disk under E makes an allowlist add fail clearly, and it works once there is room", async (ctx) => {
    const t = await copyHome(template, "gh-fault-ap-");
    const disk = await mountFullDisk(t.paths.executorHome, { owner: 65534 });
    if (typeof disk === "string") {
      await t.cleanup();
      ctx.skip(disk);
      return;
    }
    try {
      const before = await fs.readFile(t.paths.approvals, "utf8");
      const full = await run(t, ["allowlist", "add", "--json", "/usr/bin/printf"], null);
      expect(full.code).not.toBe(0);
      expect(full.stderr).toContain(`no space left on the disk that holds ${t.paths.executorHome}`);
      expect(full.stderr).toContain("Free some space there and try again");
      expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(before);
      expect(await leftovers(t.paths.executorHome)).toEqual([]);
      await disk.free(64 * 1024);
      const roomy = await run(t, ["allowlist", "add", "--json", "/usr/bin/printf"], null);
      expect(roomy.code, roomy.stderr).toBe(0);
      expect(await fs.readFile(t.paths.approvals, "utf8")).toContain("/usr/bin/printf");
    } finally {
      disk.unmount();
      await t.cleanup();
    }
  });

  it("a read-only E refuses a limited entry's run, whose use cannot be counted, and nothing runs", async () => {
    const t = await copyHome(template, "gh-fault-ap-");
    const marker = path.join(t.home, "project", "marker");
    try {
      await fs.chmod(t.paths.executorHome, 0o500);
      const refused = await run(t, ["exec", "--", TOUCH, marker], null);
      expect(refused.code).toBe(126);
      expect(refused.stderr).toContain("could not count a use of allowlist entry");
      expect(refused.stderr).toContain(`chmod u+w ${t.paths.executorHome}`);
      expect(await fs.stat(marker).catch(() => null)).toBeNull();
      await fs.chmod(t.paths.executorHome, 0o700); // the same run, E writable: it does run
      const ran = await run(t, ["exec", "--", TOUCH, marker], null);
      expect(ran.code, ran.stderr).toBe(0);
      expect(await fs.stat(marker).catch(() => null)).not.toBeNull();
    } finally {
      await fs.chmod(t.paths.executorHome, 0o700).catch(() => undefined);
      await t.cleanup();
    }
  });

  it("a read-only E makes an allowlist add fail with an error that names the folder and what to do", async () => {
    const t = await copyHome(template, "gh-fault-ap-");
    try {
      const before = await fs.readFile(t.paths.approvals, "utf8");
      await fs.chmod(t.paths.executorHome, 0o500);
      const refused = await run(t, ["allowlist", "add", "--json", "/usr/bin/printf"], null);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`the folder ${t.paths.executorHome} is read-only`);
      expect(refused.stderr).toContain(`chmod u+w ${t.paths.executorHome}`);
      expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(before);
      await fs.chmod(t.paths.executorHome, 0o700);
      const again = await run(t, ["allowlist", "add", "--json", "/usr/bin/printf"], null);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await fs.chmod(t.paths.executorHome, 0o700).catch(() => undefined);
      await t.cleanup();
    }
  });
});
