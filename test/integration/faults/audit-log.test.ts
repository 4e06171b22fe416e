// Fault injection for the audit log E/audit.jsonl (issue 30 item 2): a covered `gatehouse exec` killed
// before every file-system step leaves only whole lines, and a real full disk (a tmpfs over E) that cuts
// a line short does not take the next line with it. Through the real CLI as uid 65534 (exec runs a
// command the policy lets through: never as root).
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog, AuditRecordSchema } from "../../../src/executor/audit-log.js";
import { realProgram } from "../../support/programs.js";
import { copyHome, giveToOtherUser, mountFullDisk } from "../../support/fault-homes.js";
import { describeFsStep, runWithFault } from "../../support/fault-run.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy } from "../approval-server/fixtures.js";

const TRUE = realProgram("true");
const EXEC = ["exec", "--json", "--", TRUE];

function run(t: TempHome, args: string[], stopAt: number | null) {
  return runWithFault(args, { env: t.env, root: t.home, stopAt, asOtherUser: true });
}

/** The log's lines; each must be a whole record. */
async function lines(t: TempHome): Promise<{ whole: number; torn: string[] }> {
  const text = await fs.readFile(t.paths.audit, "utf8").catch(() => "");
  const torn: string[] = [];
  let whole = 0;
  for (const line of text.split("\n").filter(Boolean)) {
    try {
      AuditRecordSchema.parse(JSON.parse(line));
      whole++;
    } catch {
      torn.push(line.slice(0, 80));
    }
  }
  if (text !== "" && !text.endsWith("\n")) torn.push("(no newline at the end)");
  return { whole, torn };
}

describe.skipIf(otherUserUnavailable)("the audit log under faults", () => {
  let template: TempHome;

  beforeAll(async () => {
    template = await makeTempHome("gh-fault-au-template-");
    await fs.chmod(template.home, 0o755);
    await writePolicy(template.paths, {
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: [TRUE],
    });
    giveToOtherUser(template.home);
    const first = await run(template, EXEC, null);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => {
    await template.cleanup();
  });

  it(
    "an exec killed at any step leaves only whole audit lines, and the next exec adds whole ones",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-au-");
      const recorded = await run(whole, EXEC, null);
      await whole.cleanup();
      expect(recorded.code, recorded.stderr).toBe(0);
      const before = (await lines(template)).whole;
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-au-");
        const where = `kill before step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          await run(t, EXEC, n);
          const killed = await lines(t);
          if (killed.torn.length > 0) problems.push(`${where}: torn lines ${JSON.stringify(killed.torn)}`);
          const next = await run(t, EXEC, null);
          if (next.code !== 0) problems.push(`${where}: the next exec failed: ${next.stderr}`);
          const after = await lines(t);
          if (after.torn.length > 0 || after.whole < killed.whole + 2)
            problems.push(`${where}: after the next exec ${JSON.stringify(after)} (killed: ${killed.whole})`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
      expect(before).toBe(2); // the decision and the run
    },
  );

  it("a full disk that cuts an audit line short says so, and the next line after freeing space is whole", async (ctx) => {
    const t = await copyHome(template, "gh-fault-au-");
    // The log ends a few bytes short of a page: the next line fills them, then finds no page left.
    const size = (await fs.stat(t.paths.audit)).size;
    const pad = 4096 - 40 - size - 1;
    await fs.appendFile(t.paths.audit, `${"x".repeat(pad)}\n`); // a line the reader skips (not a record)
    const disk = await mountFullDisk(t.paths.executorHome, { owner: 65534 });
    if (typeof disk === "string") {
      await t.cleanup();
      ctx.skip(disk);
      return;
    }
    try {
      const full = await run(t, EXEC, null);
      expect(full.stderr).toContain("audit");
      expect(full.stderr).toMatch(/short write|no space left/i);
      const cut = await fs.readFile(t.paths.audit, "utf8");
      expect(cut.endsWith("\n")).toBe(false); // the line really was cut short
      await disk.free(256 * 1024);
      const roomy = await run(t, EXEC, null);
      expect(roomy.code, roomy.stderr).toBe(0);
      const newest = await new AuditLog({ path: t.paths.audit }).read({ limit: 2 });
      expect(newest.map((r) => r.event)).toEqual(["run", "decision"]);
      expect(newest.every((r) => r.ts >= newest[1]!.ts)).toBe(true);
      const tail = (await lines(t)).torn;
      expect(tail).toHaveLength(2); // the pad and the line the full disk cut, each on its own
    } finally {
      disk.unmount();
      await t.cleanup();
    }
  });
});
