// Fault injection for the runner's own files (issue 30 item 2): the resume ids E/agent-sessions.json and
// the device outbox E/outbox/<subtask>.json, each written by the product's module in a process of its
// own (test/fixtures/faults/runner-files-child.mjs, as uid 65534) that is SIGKILLed before every
// file-system step, finds the disk full at every step, or finds E read-only. The runner never fails a
// task for these files: a write it cannot make is a warning that says why and what to do, and the
// next start repairs what a kill left. The clock steps are checked on the module with its injected clock.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import {
  agentSessionsFile,
  AgentSessionStore,
  SESSION_MAX_AGE_MS,
} from "../../../src/executor/tasks/session-store.js";
import { REPO_ROOT } from "../../support/cli.js";
import { copyHome, giveToOtherUser } from "../../support/fault-homes.js";
import { describeFsStep, leftovers, runWithFault } from "../../support/fault-run.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const CHILD = path.join(REPO_ROOT, "test/fixtures/faults/runner-files-child.mjs");

function run(t: TempHome, args: string[], stopAt: number | null, fault: "kill" | "enospc" = "kill") {
  return runWithFault(args, { env: t.env, root: t.home, stopAt, fault, asOtherUser: true, script: CHILD });
}

/** The first JSON line a child printed. */
function firstLine<T>(stdout: string): T {
  return JSON.parse(stdout.split("\n")[0]!) as T;
}

describe.skipIf(otherUserUnavailable)("the runner's resume ids and outbox under faults", () => {
  let template: TempHome;

  beforeAll(async () => {
    template = await makeTempHome("gh-fault-rf-template-");
    await fs.chmod(template.home, 0o755);
    await fs.mkdir(template.paths.executorHome, { mode: 0o700 });
    giveToOtherUser(template.home);
    const sessions = await run(template, ["sessions", "1=resume-one"], null);
    expect(sessions.code, sessions.stderr).toBe(0);
    const kept = await run(template, ["outbox", "keep", "101"], null);
    expect(kept.code, kept.stderr).toBe(0);
  });
  afterAll(async () => {
    await template.cleanup();
  });

  it(
    "resume ids: a write killed at any step leaves the old or the new file, and the next start reads it and clears leftovers",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-rf-");
      const recorded = await run(whole, ["sessions", "2=resume-two"], null);
      await whole.cleanup();
      expect(recorded.code, recorded.stderr).toBe(0);
      const old = { "1": "resume-one" };
      const fresh = { "1": "resume-one", "2": "resume-two" };
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-rf-");
        const where = `kill before step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          const killed = await run(t, ["sessions", "2=resume-two"], n);
          if (killed.signal !== "SIGKILL") problems.push(`${where}: not killed (${killed.code})`);
          const next = await run(t, ["sessions"], null);
          const { loaded } = firstLine<{ loaded: Record<string, string> }>(next.stdout);
          if (
            JSON.stringify(loaded) !== JSON.stringify(old) &&
            JSON.stringify(loaded) !== JSON.stringify(fresh)
          )
            problems.push(`${where}: the next start read ${JSON.stringify(loaded)}`);
          if (next.stderr.includes("invalid")) problems.push(`${where}: ${next.stderr.trim()}`);
          const left = await leftovers(t.paths.executorHome);
          if (left.length > 0) problems.push(`${where}: the next start left ${left.join(", ")}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it(
    "resume ids: a full disk at any step is a warning that says so, and the file stays as it was",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-rf-");
      const recorded = await run(whole, ["sessions", "2=resume-two"], null);
      await whole.cleanup();
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-rf-");
        const where = `disk full from step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          const file = agentSessionsFile(t.paths.executorHome);
          const before = await fs.readFile(file, "utf8");
          const full = await run(t, ["sessions", "2=resume-two"], n, "enospc");
          if (full.code !== 0) problems.push(`${where}: the runner failed: ${full.stderr}`);
          const after = await fs.readFile(file, "utf8");
          if (after !== before && !after.includes("resume-two")) problems.push(`${where}: the file changed`);
          if (
            after === before &&
            !/no space left on the disk that holds .*Free some space there/.test(full.stderr)
          )
            problems.push(`${where}: the warning does not say the disk is full: ${full.stderr.trim()}`);
          const left = await leftovers(t.paths.executorHome);
          if (left.length > 0) problems.push(`${where}: left ${left.join(", ")}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it("resume ids: a read-only E is a warning that names the folder and what to do", async () => {
    const t = await copyHome(template, "gh-fault-rf-");
    try {
      await fs.chmod(t.paths.executorHome, 0o500);
      const refused = await run(t, ["sessions", "2=resume-two"], null);
      expect(refused.code).toBe(0); // a task never fails for its resume id
      expect(refused.stderr).toContain(`the folder ${t.paths.executorHome} is read-only`);
      expect(refused.stderr).toContain(`chmod u+w ${t.paths.executorHome}`);
    } finally {
      await fs.chmod(t.paths.executorHome, 0o700).catch(() => undefined);
      await t.cleanup();
    }
  });

  it(
    "outbox: keeping a result killed at any step leaves it whole or absent, and the next start delivers it at most once",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-rf-");
      const recorded = await run(whole, ["outbox", "keep", "102"], null);
      await whole.cleanup();
      expect(recorded.code, recorded.stderr).toBe(0);
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-rf-");
        const where = `kill before step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          await run(t, ["outbox", "keep", "102"], n);
          const next = await run(t, ["outbox", "flush"], null);
          const sent = next.stdout
            .split("\n")
            .filter((l) => l.startsWith('{"sent"'))
            .map((l) => (JSON.parse(l) as { subtask: number }).subtask);
          if (!(JSON.stringify(sent) === "[101]" || JSON.stringify(sent) === "[101,102]"))
            problems.push(`${where}: the next start sent ${JSON.stringify(sent)}`);
          if (next.stderr.includes("unreadable")) problems.push(`${where}: ${next.stderr.trim()}`);
          const left = await fs.readdir(path.join(t.paths.executorHome, "outbox"));
          if (left.length > 0)
            problems.push(`${where}: after delivery the outbox still holds ${left.join(", ")}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it(
    "outbox: a full disk at any step keeps the result in memory with a warning that says so, and no half file",
    { timeout: 300_000 },
    async () => {
      const whole = await copyHome(template, "gh-fault-rf-");
      const recorded = await run(whole, ["outbox", "keep", "102"], null);
      await whole.cleanup();
      const problems: string[] = [];
      for (let n = 1; n <= recorded.steps.length; n++) {
        const t = await copyHome(template, "gh-fault-rf-");
        const where = `disk full from step ${n} (${describeFsStep(recorded.steps[n - 1])})`;
        try {
          const full = await run(t, ["outbox", "keep", "102"], n, "enospc");
          if (full.code !== 0) problems.push(`${where}: the runner failed: ${full.stderr}`);
          const names = (await fs.readdir(path.join(t.paths.executorHome, "outbox"))).sort();
          if (names.join() !== "101.json" && names.join() !== "101.json,102.json")
            problems.push(`${where}: the outbox holds ${names.join(", ")}`);
          if (
            names.length === 1 &&
            !/no space left on the disk that holds .*Free some space there/.test(full.stderr)
          )
            problems.push(`${where}: the warning does not say the disk is full: ${full.stderr.trim()}`);
        } finally {
          await t.cleanup();
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it("resume ids: a clock stepped back keeps a session, and one stepped past 90 days lets it go", async () => {
    const t = await makeTempHome("gh-fault-rf-clock-");
    try {
      const file = agentSessionsFile(t.paths.executorHome);
      const logger = createLogger({ sink: () => undefined });
      const T = Date.UTC(2026, 0, 10);
      const first = new AgentSessionStore(file, logger, () => T);
      await first.load();
      first.set("1", { runtime: "codex", resumeId: "thread-1", cwd: t.home });
      await first.flush();
      const back = new AgentSessionStore(file, logger, () => T - 24 * 3600_000);
      await back.load();
      expect(back.get("1")?.resumeId).toBe("thread-1");
      back.set("2", { runtime: "codex", resumeId: "thread-2", cwd: t.home });
      await back.flush();
      const forward = new AgentSessionStore(file, logger, () => T + SESSION_MAX_AGE_MS + 1);
      await forward.load();
      expect([...forward.keys()]).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });
});
