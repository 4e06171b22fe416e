// The terminal-event outbox (device-protocol.md §6.2): kept on disk, sent once after registration,
// also after a restart, and removed right after its emit.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/log.js";
import { DiskOutbox, memoryOutbox, outboxDir } from "../../../src/device/terminal-outbox.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let dir: string;
beforeEach(async () => {
  t = await makeTempHome("gh-outbox-");
  dir = outboxDir(t.paths.executorHome);
});
afterEach(async () => {
  await t.cleanup();
});

function completed(subtask: number, text: string): Record<string, unknown> {
  return { event_type: "response.completed", task_id: 1, subtask_id: subtask, data: { text } };
}

async function files(): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [] as string[])).sort();
}

describe("the on-disk outbox", () => {
  it("keeps a terminal event as E/outbox/<subtask>.json with mode 0600 in a 0700 folder", async () => {
    const outbox = new DiskOutbox(dir, { logger: silentLogger });
    outbox.keep("response.completed", completed(42, "done"));
    await outbox.idle();
    expect(await files()).toEqual(["42.json"]);
    expect((await fs.stat(path.join(dir, "42.json"))).mode & 0o777).toBe(0o600);
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await fs.readFile(path.join(dir, "42.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(stored).toMatchObject({
      version: 1,
      event_type: "response.completed",
      body: completed(42, "done"),
    });
  });

  it("sends each kept event once, oldest first, and deletes its file right after the emit", async () => {
    let clock = 1000;
    const outbox = new DiskOutbox(dir, { logger: silentLogger, now: () => clock++ });
    outbox.keep("error", completed(7, "first"));
    outbox.keep("response.completed", completed(3, "second"));
    await outbox.idle();
    const sent: Array<{ type: string; subtask: unknown; filesAtEmit: string[] }> = [];
    const { readdirSync } = await import("node:fs");
    outbox.flush((type, body) =>
      sent.push({ type, subtask: body.subtask_id, filesAtEmit: readdirSync(dir).sort() }),
    );
    expect(sent).toEqual([
      { type: "error", subtask: 7, filesAtEmit: ["3.json", "7.json"] },
      { type: "response.completed", subtask: 3, filesAtEmit: ["3.json"] },
    ]);
    expect(await files()).toEqual([]);
    outbox.flush(() => {
      throw new Error("nothing is sent twice");
    });
    expect(outbox.pending()).toBe(0);
  });

  it("an event sent while its file is still being written leaves no file behind", async () => {
    const outbox = new DiskOutbox(dir, { logger: silentLogger });
    outbox.keep("response.completed", completed(9, "quick"));
    const sent: unknown[] = [];
    outbox.flush((_type, body) => sent.push(body.subtask_id));
    await outbox.idle();
    expect(sent).toEqual([9]);
    expect(await files()).toEqual([]);
  });

  it("events kept by an earlier run of the app are sent once after a restart", async () => {
    const before = new DiskOutbox(dir, { logger: silentLogger });
    before.keep("response.completed", completed(5, "kept across a restart"));
    await before.idle();

    const after = new DiskOutbox(dir, { logger: silentLogger });
    await after.load();
    expect(after.pending()).toBe(1);
    const sent: Array<Record<string, unknown>> = [];
    after.flush((_type, body) => sent.push(body));
    expect(sent).toEqual([completed(5, "kept across a restart")]);

    const third = new DiskOutbox(dir, { logger: silentLogger });
    await third.load();
    expect(third.pending()).toBe(0);
  });

  it("a newer event of the same subtask replaces the kept one", async () => {
    const outbox = new DiskOutbox(dir, { logger: silentLogger });
    outbox.keep("response.incomplete", completed(4, "old"));
    outbox.keep("response.completed", completed(4, "new"));
    await outbox.idle();
    const reloaded = new DiskOutbox(dir, { logger: silentLogger });
    await reloaded.load();
    const sent: Array<Record<string, unknown>> = [];
    reloaded.flush((_type, body) => sent.push(body));
    expect(sent).toEqual([completed(4, "new")]);
  });

  it("an unreadable kept file is set aside instead of blocking the others, and temp files are removed", async () => {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(dir, "8.json"), "{ not json");
    await fs.writeFile(path.join(dir, ".9.json.gatehouse-abcdef"), "partial");
    await fs.writeFile(
      path.join(dir, "9.json"),
      JSON.stringify({ version: 1, event_type: "error", kept_at: 1, body: completed(9, "ok") }),
    );
    const outbox = new DiskOutbox(dir, { logger: silentLogger, now: () => 77 });
    await outbox.load();
    expect(outbox.pending()).toBe(1);
    expect(await files()).toEqual(["8.json.corrupt-77", "9.json"]);
  });
});

describe("the in-memory outbox", () => {
  it("sends what it kept once", () => {
    const outbox = memoryOutbox();
    outbox.keep("error", completed(1, "x"));
    const sent: string[] = [];
    outbox.flush((type) => sent.push(type));
    outbox.flush((type) => sent.push(type));
    expect(sent).toEqual(["error"]);
  });
});
