// The approvals store keeps what it wrote itself as its state, so a long-running service does not read
// back (trust-check, parse, validate, and hand the policy a new object for) its own usage notes — and
// still sees, on the very next load, every change anyone else makes: an in-place rewrite of the same
// size put back to the same modification time, a file renamed over it, a chmod, another store's write.
// Real files in a temp home; `store.reads` counts the reads the store made.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ApprovalsStore,
  type AllowlistEntry,
  type ApprovalsState,
} from "../../../src/core/approvals/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";

let t: TempHome;
let store: ApprovalsStore;
let entryId: string;

const FIRST = "/usr/bin/aaaa";
const OTHER = "/usr/bin/bbbb"; // as long as FIRST: swapping them keeps the file's size

function open(watch = false): ApprovalsStore {
  return new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket, watch });
}

beforeEach(async () => {
  t = await makeTempHome("gatehouse-own-writes-");
  store = open();
  await store.ensure();
  await store.applyPreset("ask");
  entryId = (await store.addEntry("*", { pattern: FIRST })).id;
  await store.load();
});
afterEach(async () => {
  store.stopWatching();
  await t.cleanup();
});

function entryOf(state: ApprovalsState): AllowlistEntry | undefined {
  return state.status === "ok" ? state.file.agents["*"]?.allowlist?.find((e) => e.id === entryId) : undefined;
}

/** A usage note, as the runner writes it after a covered run. */
async function noteUse(on: ApprovalsStore, command: string): Promise<void> {
  await on.recordUse("local", [{ entryId, command, resolvedPath: FIRST, at: 1_700_000_000_123 }]);
}

/**
 * Rewrites the file in place (same inode, same size), then puts its modification time back to the
 * nanosecond (GNU touch): only ctime, which no user can set, can still tell the versions apart.
 */
function editInPlace(from: string, to: string): void {
  const file = t.paths.approvals;
  const before = fs.statSync(file, { bigint: true });
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, to)); // O_TRUNC on the same inode, as many editors save
  const ns = before.mtimeNs % 1_000_000_000n;
  const stamp = `@${before.mtimeNs / 1_000_000_000n}.${ns.toString().padStart(9, "0")}`;
  execFileSync("touch", ["-m", "-d", stamp, file]);
  const after = fs.statSync(file, { bigint: true });
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
}

describe("the store's own writes", () => {
  it("answers the next load with the usage note it wrote, without reading the file back", async () => {
    const reads = store.reads;
    await noteUse(store, "aaaa --first");
    const state = await store.load();
    expect(entryOf(state)).toMatchObject({ lastUsedCommand: "aaaa --first", lastUsedAt: 1_700_000_000_123 });
    expect(await store.load()).toBe(state);
    expect(store.reads).toBe(reads);
    // exactly what a reader of the file gets
    const fresh = await open().load();
    expect(fresh.status === "ok" && state.status === "ok" && state.file).toEqual(
      fresh.status === "ok" && fresh.file,
    );
  });

  it("does the same for a watched store, as the runner keeps one", async () => {
    const watched = open(true);
    try {
      await watched.load();
      const reads = watched.reads;
      await noteUse(watched, "aaaa --watched");
      for (let i = 0; i < 3; i++)
        expect(entryOf(await watched.load())?.lastUsedCommand).toBe("aaaa --watched");
      expect(watched.reads).toBe(reads);
    } finally {
      watched.stopWatching();
    }
  });
});

describe("changes by anyone else right after the store's own write", () => {
  it("sees an in-place rewrite of the same size and modification time on the next load", async () => {
    await noteUse(store, "aaaa --first");
    editInPlace(`"pattern": "${FIRST}"`, `"pattern": "${OTHER}"`);
    expect(entryOf(await store.load())?.pattern).toBe(OTHER);
  });

  it("sees a same-size note rewritten in place, even though only the bytes differ", async () => {
    await noteUse(store, "aaaa --first");
    editInPlace("aaaa --first", "aaaa --other");
    expect(entryOf(await store.load())?.lastUsedCommand).toBe("aaaa --other");
  });

  it("sees a file of the same size renamed over it", async () => {
    await noteUse(store, "aaaa --first");
    const file = t.paths.approvals;
    const replaced = fs.readFileSync(file, "utf8").replace(FIRST, OTHER);
    const temp = path.join(path.dirname(file), ".attacker-temp");
    fs.writeFileSync(temp, replaced, { mode: 0o600 });
    fs.renameSync(temp, file);
    expect(entryOf(await store.load())?.pattern).toBe(OTHER);
  });

  it("reports the file untrusted once it is opened to others right after", async () => {
    await noteUse(store, "aaaa --first");
    fs.chmodSync(t.paths.approvals, 0o666);
    const state = await store.load();
    expect(state.status).toBe("invalid");
    expect(state.status === "invalid" && state.error).toMatch(/writable|others|0666/);
  });

  it("sees another store's write (the CLI, the tray app) on the next load", async () => {
    await noteUse(store, "aaaa --first");
    await open().updateEntry("*", entryId, { pattern: OTHER });
    expect(entryOf(await store.load())?.pattern).toBe(OTHER);
  });

  it("a watched store sees an in-place rewrite of the same size as soon as the watch tells", async () => {
    const watched = open(true);
    try {
      await noteUse(watched, "aaaa --first");
      editInPlace(`"pattern": "${FIRST}"`, `"pattern": "${OTHER}"`);
      await waitFor(async () => entryOf(await watched.load())?.pattern === OTHER, {
        what: "the watched store to see the edit",
      });
    } finally {
      watched.stopWatching();
    }
  });
});
