import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog, type AuditRecord } from "../../../src/executor/audit-log.js";
import { REPO_ROOT } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-audit-");
});
afterEach(async () => t.cleanup());

function record(over: Partial<AuditRecord> = {}): AuditRecord {
  return {
    ts: 1_700_000_000_000,
    runId: "run_1",
    event: "decision",
    agentId: "local",
    sessionKey: "local",
    source: "cli",
    command: "git status",
    cwd: "/tmp",
    decision: "allow-once",
    decidedBy: "rule:e1",
    reason: "allowlist",
    exitCode: null,
    timedOut: false,
    durationMs: 1,
    ...over,
  };
}

describe("audit log", () => {
  it("appends one JSON line per record to a 0600 file in a 0700 folder", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    await log.append(record());
    await log.append(record({ event: "run", exitCode: 0, durationMs: 12 }));
    const lines = (await fs.readFile(t.paths.audit, "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).event)).toEqual(["decision", "run"]);
    expect((await fs.stat(t.paths.audit)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(t.paths.audit))).mode & 0o777).toBe(0o700);
  });

  it("reads the newest records first, up to the limit", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    for (let i = 0; i < 5; i++) await log.append(record({ runId: `run_${i}`, ts: 1000 + i }));
    const newest = await log.read({ limit: 2 });
    expect(newest.map((r) => r.runId)).toEqual(["run_4", "run_3"]);
  });

  it("reads only records at or after `since`", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    for (let i = 0; i < 5; i++) await log.append(record({ runId: `run_${i}`, ts: 100_000 + i * 10_000 }));
    const recent = await log.read({ limit: 100, since: 120_000 });
    expect(recent.map((r) => r.runId)).toEqual(["run_4", "run_3", "run_2"]);
  });

  it("skips a torn or invalid line instead of failing the read", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    await log.append(record({ runId: "a" }));
    await fs.appendFile(t.paths.audit, 'not json\n{"ts":1}\n');
    await log.append(record({ runId: "b" }));
    await fs.appendFile(t.paths.audit, '{"ts":17000000, "runId": "torn');
    expect((await log.read({ limit: 10 })).map((r) => r.runId)).toEqual(["b", "a"]);
  });

  it("reads lines longer than its read block", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    const long = "x".repeat(200_000);
    await log.append(record({ runId: "first", command: long }));
    await log.append(record({ runId: "second" }));
    const all = await log.read({ limit: 10 });
    expect(all.map((r) => r.runId)).toEqual(["second", "first"]);
    expect(all[1]?.command).toBe(long);
  });

  it("returns nothing when there is no log yet", async () => {
    expect(await new AuditLog({ path: t.paths.audit }).read({ limit: 10 })).toEqual([]);
  });

  it("rotates to audit.jsonl.1 when the file would pass its size limit, and reads across both", async () => {
    const log = new AuditLog({ path: t.paths.audit, maxBytes: 2_000 });
    for (let i = 0; i < 20; i++) await log.append(record({ runId: `run_${i}` }));
    const current = await fs.stat(t.paths.audit);
    expect(current.size).toBeLessThanOrEqual(2_000);
    await expect(fs.access(`${t.paths.audit}.1`)).resolves.toBeUndefined();
    const all = await log.read({ limit: 100 });
    expect(all[0]?.runId).toBe("run_19");
    expect(all.length).toBeGreaterThan(current.size / 300);
  });

  it("writes to the new file after another process rotated the one it holds open", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    await log.append(record({ runId: "before" }));
    await fs.rename(t.paths.audit, `${t.paths.audit}.1`); // what another process's rotation does
    await log.append(record({ runId: "after" }));
    const current = await fs.readFile(t.paths.audit, "utf8");
    expect(current).toContain('"after"');
    expect(current).not.toContain('"before"');
    expect((await log.read({ limit: 10 })).map((r) => r.runId)).toEqual(["after", "before"]);
    await log.close();
  });

  it("stops writing when a link replaces the file it holds open", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    await log.append(record());
    const target = path.join(t.home, "elsewhere");
    await fs.writeFile(target, "");
    await fs.rm(t.paths.audit);
    await fs.symlink(target, t.paths.audit);
    await expect(log.append(record())).rejects.toThrow();
    expect(await fs.readFile(target, "utf8")).toBe("");
    await log.close();
  });

  it("refuses an invalid record and writes nothing", async () => {
    const log = new AuditLog({ path: t.paths.audit });
    await expect(log.append(record({ decidedBy: "someone" as AuditRecord["decidedBy"] }))).rejects.toThrow();
    await expect(fs.access(t.paths.audit)).rejects.toThrow();
  });

  it("does not write through a symbolic link", async () => {
    await fs.mkdir(path.dirname(t.paths.audit), { recursive: true });
    const target = path.join(t.home, "elsewhere");
    await fs.writeFile(target, "");
    await fs.symlink(target, t.paths.audit);
    await expect(new AuditLog({ path: t.paths.audit }).append(record())).rejects.toThrow();
    expect(await fs.readFile(target, "utf8")).toBe("");
  });

  it("keeps every line whole when several processes append at once", async () => {
    const modulePath = path.join(REPO_ROOT, "dist/src/executor/audit-log.js");
    const writer = `
      const { AuditLog } = await import(${JSON.stringify(modulePath)});
      const log = new AuditLog({ path: process.argv[1] });
      const base = ${JSON.stringify(record())};
      for (let i = 0; i < 200; i++) {
        await log.append({ ...base, runId: process.argv[2] + "-" + i, command: process.argv[2].repeat(3000) });
      }`;
    const writers = ["a", "b", "c", "d"].map(
      (name) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", writer, t.paths.audit, name], {
            stdio: "inherit",
          });
          child.on("close", resolve);
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    const lines = (await fs.readFile(t.paths.audit, "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(800);
    for (const line of lines) {
      const parsed = JSON.parse(line) as AuditRecord;
      expect(parsed.command).toBe(parsed.runId.slice(0, 1).repeat(3000));
    }
  });
});
