// Live progress and the window's Cancel (issue 16), on a real package server and real files: a download
// reports its bytes, packages ready of packages to fetch and the item; a cancel before the apply stage
// leaves every file as it was and stops only the running sync; a cancel once applying is refused and
// the sync finishes whole; and "Apply the last sync again" re-runs the last valid payload.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncItemsAck } from "../../../src/core/capabilities/index.js";
import { skillZip } from "../../support/archives.js";
import { waitFor } from "../../support/wait-for.js";
import { exists, makeSyncHarness, publishSkill, snapshotTree, type SyncHarness } from "./sync-fixture.js";

let h: SyncHarness;
afterEach(async () => h?.cleanup());

const items = (ack: unknown) => ack as SyncItemsAck;
const CANCELLED = "Capability sync was cancelled in Gatehouse before it changed anything";

describe("sync progress", () => {
  it("reports a large download's bytes as they arrive, with the item, its size and the packages ready", async () => {
    h = await makeSyncHarness();
    // Random bytes do not compress: the package is about 600 kB on the wire.
    const big = await skillZip("big", { extra: [{ name: "data.bin", data: randomBytes(600_000) }] });
    const small = publishSkill(h.server, { id: 2, name: "small", bytes: await skillZip("small") });
    const item = publishSkill(h.server, { id: 1, name: "big", bytes: big });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [item, small] }));
    expect(ack.success).toBe(true);

    const bytes = h.progress.filter((p) => p.bytes);
    expect(bytes.length).toBeGreaterThanOrEqual(5);
    expect(bytes.every((p) => p.phase === "download" && p.item === "big" && p.total === 2)).toBe(true);
    expect(bytes.every((p) => p.bytes?.total === big.length && p.cancellable === true)).toBe(true);
    const received = bytes.map((p) => p.bytes?.received ?? 0);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    expect(received.at(-1)).toBeLessThanOrEqual(big.length);
    // Packages ready count up in the download phase; the apply phases count items and cannot be cancelled.
    const downloads = h.progress.filter((p) => p.phase === "download");
    expect(downloads.every((p) => p.done <= 2)).toBe(true);
    const applying = h.progress.filter((p) => p.phase === "install" || p.phase === "write");
    expect(applying.length).toBeGreaterThan(0);
    expect(applying.every((p) => !p.cancellable)).toBe(true);
    expect(h.progress.at(-1)).toMatchObject({ phase: "done", outcome: "finished", done: 2, total: 2 });
  });
});

describe("cancel from the window", () => {
  it("a cancel while downloading ends the sync with nothing changed, says so, and later syncs run", async () => {
    h = await makeSyncHarness();
    const alpha = publishSkill(h.server, { id: 1, name: "alpha", bytes: await skillZip("alpha") });
    expect(items(await h.sync.applySync({ mode: "replace", skills: [alpha] })).success).toBe(true);
    const before = await snapshotTree(h.home.home);
    const stalled = publishSkill(h.server, { id: 2, name: "stalled", bytes: await skillZip("stalled") });
    h.server.serve("/api/v1/kinds/skills/2/download?namespace=default", await skillZip("stalled"), {
      stall: true,
    });
    h.progress.length = 0;
    // replace without alpha: had it applied, alpha would be gone.
    const pending = h.sync.applySync({ mode: "replace", skills: [stalled] });
    await waitFor(() => h.progress.some((p) => p.phase === "download" && p.item === "stalled"), {
      what: "the download to start",
    });
    expect(h.sync.cancelRunning()).toBe("cancelled");
    expect(await pending).toEqual({ success: false, error: CANCELLED });
    expect(await snapshotTree(h.home.home)).toEqual(before);
    expect(h.progress.at(-1)).toMatchObject({ phase: "done", outcome: "cancelled" });
    expect(h.sync.cancelRunning()).toBe("idle");
    expect(items(await h.sync.applySync({ mode: "merge", skills: [alpha] })).success).toBe(true);
  });

  it("stops only the running sync: one queued behind it still runs", async () => {
    h = await makeSyncHarness();
    const stalled = publishSkill(h.server, { id: 2, name: "stalled", bytes: await skillZip("stalled") });
    h.server.serve("/api/v1/kinds/skills/2/download?namespace=default", await skillZip("stalled"), {
      stall: true,
    });
    const next = publishSkill(h.server, { id: 3, name: "next", bytes: await skillZip("next") });
    const first = h.sync.applySync({ mode: "merge", skills: [stalled] });
    const second = h.sync.applySync({ mode: "merge", skills: [next] });
    await waitFor(() => h.progress.some((p) => p.item === "stalled"), { what: "the first download" });
    expect(h.sync.cancelRunning()).toBe("cancelled");
    expect(await first).toEqual({ success: false, error: CANCELLED });
    expect(items(await second).skills).toEqual([{ id: 3, name: "next", status: "synced" }]);
    expect(await exists(path.join(h.home.paths.claudeHome, "skills", "next"))).toBe(true);
    expect(await exists(path.join(h.home.paths.claudeHome, "skills", "stalled"))).toBe(false);
  });

  it("a cancel once the sync applies is refused and every item is installed whole", async () => {
    h = await makeSyncHarness();
    const names = ["one", "two", "three"];
    const payload = [];
    for (const [i, name] of names.entries())
      payload.push(publishSkill(h.server, { id: i + 1, name, bytes: await skillZip(name) }));
    const answers: string[] = [];
    const stop = h.sync.onProgress((p) => {
      if (p.phase === "install") answers.push(h.sync.cancelRunning());
    });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: payload }));
    stop();
    expect(answers.length).toBe(3);
    expect(new Set(answers)).toEqual(new Set(["applying"]));
    expect(ack.success).toBe(true);
    for (const name of names)
      expect(
        await fs.readFile(path.join(h.home.paths.claudeHome, "skills", name, "SKILL.md"), "utf8"),
      ).toContain(name);
    expect(h.progress.at(-1)).toMatchObject({ phase: "done", outcome: "finished" });
  });
});

describe("apply the last sync again", () => {
  it("re-runs the last valid payload: after the user moves their folder away, the conflicting skill installs", async () => {
    h = await makeSyncHarness();
    expect(h.sync.rerunLast()).toBeNull();
    expect(h.sync.lastPayload()).toBeNull();
    const mine = path.join(h.home.paths.claudeHome, "skills", "browser");
    await fs.mkdir(mine, { recursive: true });
    await fs.writeFile(path.join(mine, "SKILL.md"), "my own browser skill");
    const browser = publishSkill(h.server, { id: 101, name: "browser", bytes: await skillZip("browser") });
    const first = items(await h.sync.applySync({ mode: "merge", skills: [browser] }));
    expect(first.skills[0]).toMatchObject({ status: "failed" });
    expect(await fs.readFile(path.join(mine, "SKILL.md"), "utf8")).toBe("my own browser skill");
    // An invalid payload afterwards is not what gets re-run.
    expect(await h.sync.applySync({ mode: "nope" })).toEqual({ success: false, error: "Invalid sync mode" });
    expect(h.sync.lastPayload()?.skills.map((s) => s.name)).toEqual(["browser"]);

    await fs.rename(mine, path.join(h.home.home, "browser-mine"));
    const again = await h.sync.rerunLast();
    expect(items(again).skills).toEqual([{ id: 101, name: "browser", status: "synced" }]);
    expect(await fs.readFile(path.join(mine, "SKILL.md"), "utf8")).toContain("browser");
    expect(await fs.readFile(path.join(h.home.home, "browser-mine", "SKILL.md"), "utf8")).toBe(
      "my own browser skill",
    );
  });
});
