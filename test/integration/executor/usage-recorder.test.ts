import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalsStore, type AllowlistEntry } from "../../../src/core/approvals/index.js";
import { silentLogger } from "../../../src/core/log.js";
import { UsageRecorder, type EntryUse } from "../../../src/executor/usage-recorder.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let store: ApprovalsStore;
/** How many locked rewrites the recorder asked the real store for. */
let writes: number;
let recorder: UsageRecorder;

beforeEach(async () => {
  t = await makeTempHome("gatehouse-usage-");
  store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  writes = 0;
  recorder = new UsageRecorder(
    {
      recordUse: (agentId, uses) => {
        writes++;
        return store.recordUse(agentId, uses);
      },
    },
    silentLogger,
  );
});
afterEach(async () => t.cleanup());

async function entry(id: string): Promise<AllowlistEntry | undefined> {
  const state = await store.load();
  return state.status === "ok" ? state.file.agents.local?.allowlist?.find((e) => e.id === id) : undefined;
}

const use = (entryId: string, command: string): EntryUse => ({
  entryId,
  command,
  resolvedPath: "/usr/bin/x",
});

describe("usage recorder", () => {
  it("gathers notes of unlimited entries into one write, the latest use of an entry winning", async () => {
    const a = await store.addEntry("local", { pattern: "/usr/bin/a" });
    const b = await store.addEntry("local", { pattern: "/usr/bin/b" });
    const pending = [
      recorder.record("local", [use(a.id, "a 1")]),
      recorder.record("local", [use(a.id, "a 2")]),
      recorder.record("local", [use(b.id, "b 1")]),
      recorder.record("local", [use(a.id, "a 3")]),
    ];
    await Promise.all(pending);
    expect(writes).toBe(1);
    expect(await entry(a.id)).toMatchObject({ lastUsedCommand: "a 3" });
    expect(await entry(b.id)).toMatchObject({ lastUsedCommand: "b 1" });
  });

  it("leaves a limited entry's uses as they are: the gate takes them when it decides", async () => {
    const limited = await store.addEntry("local", { pattern: "/usr/bin/a", usesLeft: 5 });
    await Promise.all([1, 2, 3].map((n) => recorder.record("local", [use(limited.id, `a ${n}`)])));
    expect(await entry(limited.id)).toMatchObject({ usesLeft: 5, lastUsedCommand: "a 3" });
  });

  it("says when everything recorded so far is written", async () => {
    const a = await store.addEntry("local", { pattern: "/usr/bin/a" });
    void recorder.record("local", [use(a.id, "a 1")]);
    await recorder.idle();
    expect(await entry(a.id)).toMatchObject({ lastUsedCommand: "a 1" });
  });

  it("keeps the time of each use in its note, not the time the gathered notes are written", async () => {
    let clock = 1_700_000_000_000;
    const recorder = new UsageRecorder(store, silentLogger, { now: () => clock });
    const a = await store.addEntry("local", { pattern: "/usr/bin/a" });
    const b = await store.addEntry("local", { pattern: "/usr/bin/b" });
    void recorder.record("local", [use(a.id, "a 1")]);
    clock += 1_500;
    void recorder.record("local", [use(b.id, "b 1")]);
    clock += 60_000;
    await recorder.idle();
    expect((await entry(a.id))?.lastUsedAt).toBe(1_700_000_000_000);
    expect((await entry(b.id))?.lastUsedAt).toBe(1_700_000_001_500);
  });
});
