// skills.md §11 and §13 case 26: the watcher moves the catalogue version once per quiet period, real
// files on disk, real chokidar; the CLI's rescan reaches a running engine.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillCatalogue } from "../../../src/core/skills/index.js";
import { runCli } from "../../support/cli.js";
import { waitFor } from "../../support/wait-for.js";
import { frontmatterText, makeSkillFixture, type SkillFixture } from "../../unit/skills/fixture.js";

let f: SkillFixture;
let engine: SkillCatalogue | null = null;
let stop: (() => void) | null = null;
const bumps: Array<{ version: number; at: number }> = [];

beforeEach(async () => {
  f = await makeSkillFixture();
  bumps.length = 0;
});
afterEach(async () => {
  stop?.();
  await engine?.stopWatching();
  engine = null;
  stop = null;
  await f.cleanup();
});

async function watching(): Promise<SkillCatalogue> {
  engine = f.engine();
  stop = engine.watch((version) => bumps.push({ version, at: Date.now() }));
  await engine.watchReady();
  return engine;
}

/** Waits long enough for a debounce window (250 ms) and the watcher's own latency to pass. */
const quietPeriod = () => new Promise((resolve) => setTimeout(resolve, 700));

const demoDir = () => path.join(f.H, ".claude/skills/demo");

describe("watching skill roots", () => {
  it("case 26: three quick writes give exactly one bump, one quiet period after what the watcher saw; the next turn gets a new snapshot", async () => {
    await f.skill(demoDir(), { name: "demo", description: "Version 0" });
    const e = await watching();
    const running = await e.snapshot("agent-1", f.WS);
    const v = running.version;
    const firstWrite = Date.now();
    for (let i = 1; i <= 3; i++) {
      await fs.writeFile(
        path.join(demoDir(), "SKILL.md"),
        frontmatterText({ name: "demo", description: `Version ${i}` }),
      );
      if (i < 3) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await waitFor(() => bumps.length >= 1, { what: "a catalogue bump" });
    await quietPeriod();
    expect(bumps).toHaveLength(1);
    // The quiet period runs from the last change the watcher *saw*. chokidar passes on at most one change
    // of a file per 50 ms (its _emit throttle), so under load the third write (30 ms after the second)
    // can go unseen and the bump come sooner than 250 ms after it began (loop-flaky round 5 at load 7:
    // 224 ms); never sooner after the first. Nothing is lost: a write dropped that way began within 50 ms
    // of a change that was seen, so it is on disk before the bump, 250 ms after that change, and the next
    // snapshot has it (checked below).
    expect(bumps[0]!.at - firstWrite).toBeGreaterThanOrEqual(250);
    expect(e.version).toBe(bumps[0]!.version);
    expect(bumps[0]!.version).toBeGreaterThan(v);

    const next = await e.snapshot("agent-1", f.WS);
    expect(next.version).toBe(bumps[0]!.version);
    expect(next.entries[0]?.description).toBe("Version 3");
    // The turn that was already running keeps version v and what it saw.
    expect(running.version).toBe(v);
    expect(running.entries[0]?.description).toBe("Version 0");
  });

  it("adding, changing and removing a SKILL.md is reflected within one debounce window", async () => {
    const e = await watching();
    const before = (await e.buildCatalogue({})).skills.length;
    expect(before).toBe(0);

    const added = bumps.length;
    await f.skill(demoDir(), { name: "demo", description: "Added" });
    await waitFor(() => bumps.length > added, { what: "a bump after adding", timeoutMs: 3000 });
    expect((await e.buildCatalogue({})).skills.map((s) => s.description)).toEqual(["Added"]);

    const changed = bumps.length;
    await f.skill(demoDir(), { name: "demo", description: "Changed" });
    await waitFor(() => bumps.length > changed, { what: "a bump after changing", timeoutMs: 3000 });
    expect((await e.buildCatalogue({})).skills.map((s) => s.description)).toEqual(["Changed"]);

    const removed = bumps.length;
    await fs.rm(path.join(demoDir(), "SKILL.md"));
    await waitFor(() => bumps.length > removed, { what: "a bump after removing", timeoutMs: 3000 });
    expect((await e.buildCatalogue({})).skills).toEqual([]);
  });

  it("a root that does not exist yet is noticed when it appears", async () => {
    const e = await watching();
    await e.buildCatalogue({ workspace: f.WS });
    await e.watchReady(); // now also watching the new workspace's (missing) roots
    await f.skill(path.join(f.WS, ".claude/skills/fresh"), { name: "fresh", description: "New root" });
    await waitFor(
      async () => (await e.buildCatalogue({ workspace: f.WS })).skills.some((s) => s.name === "fresh"),
      { what: "the new workspace root to be scanned", timeoutMs: 5000 },
    );
    // Later changes inside the new root are watched too.
    const seen = bumps.length;
    await f.skill(path.join(f.WS, ".claude/skills/fresh"), { name: "fresh", description: "Edited" });
    await waitFor(() => bumps.length > seen, { what: "a bump inside the new root", timeoutMs: 5000 });
  });

  it("an edit made while a new root's watcher is starting is not lost", async () => {
    const e = await watching();
    await e.buildCatalogue({ workspace: f.WS });
    await e.watchReady();
    const dir = path.join(f.WS, ".claude/skills/quick");
    await f.skill(dir, { name: "quick", description: "First" });
    // Edit again as soon as the root is noticed, before its own watcher can have finished starting.
    await waitFor(() => bumps.length > 0, { what: "the new root to be noticed", timeoutMs: 5000 });
    await f.skill(dir, { name: "quick", description: "Second" });
    await waitFor(
      async () =>
        (await e.buildCatalogue({ workspace: f.WS })).skills.some((s) => s.description === "Second"),
      { what: "the second edit to be seen", timeoutMs: 5000 },
    );
  });

  it("a missing root is still noticed after the folder watched in its place is removed and made again", async () => {
    await fs.mkdir(path.join(f.WS, ".claude"), { recursive: true }); // the nearest existing parent
    const e = await watching();
    await e.buildCatalogue({ workspace: f.WS });
    await e.watchReady();
    await fs.rm(path.join(f.WS, ".claude"), { recursive: true });
    await waitFor(() => bumps.length > 0, {
      what: "a bump when the watched parent is removed",
      timeoutMs: 5000,
    });
    await e.watchReady(); // now watching the workspace itself
    await f.skill(path.join(f.WS, ".claude/skills/late"), { name: "late", description: "Made again" });
    await waitFor(
      async () => (await e.buildCatalogue({ workspace: f.WS })).skills.some((s) => s.name === "late"),
      { what: "the re-made root to be scanned", timeoutMs: 5000 },
    );
  });

  it("changes inside ignored folders (node_modules, .git, *.egg-info) do not bump", async () => {
    await f.skill(demoDir(), { name: "demo", description: "D" });
    await watching();
    await f.write(path.join(demoDir(), "node_modules/pkg/index.js"), "x");
    await f.write(path.join(demoDir(), "tool.egg-info/PKG-INFO"), "x");
    await quietPeriod();
    expect(bumps).toEqual([]);
  });

  it("a change to the skills settings bumps; other settings do not", async () => {
    await f.settings({});
    const e = await watching();
    await f.settings({}, { ui: { theme: "dark" } });
    await quietPeriod();
    expect(bumps).toEqual([]);
    await f.settings({ excluded: ["demo"] });
    await waitFor(() => bumps.length === 1, { what: "a bump after the settings change" });
    expect(e.version).toBe(bumps[0]!.version);
  });

  it("installing a plugin bumps, and the new plugin's skills are listed", async () => {
    const e = await watching();
    const install = path.join(f.H, ".claude/plugins/cache/mp/helper/1.0.0");
    await f.skill(path.join(install, "skills/plugged"), { name: "plugged", description: "From a plugin" });
    const seen = bumps.length;
    await f.write(
      path.join(f.H, ".claude/settings.json"),
      JSON.stringify({ enabledPlugins: { "helper@mp": true } }),
    );
    await f.write(
      path.join(f.H, ".claude/plugins/installed_plugins.json"),
      JSON.stringify({ version: 2, plugins: { "helper@mp": [{ scope: "user", installPath: install }] } }),
    );
    await waitFor(() => bumps.length > seen, {
      what: "a bump after the plugin registry changed",
      timeoutMs: 5000,
    });
    const catalogue = await e.buildCatalogue({});
    expect(catalogue.skills.map((s) => [s.name, s.source, s.offered])).toEqual([
      ["plugged", "plugin:helper@mp", true],
    ]);
  });

  it("a capability sync that finishes bumps at once through notifyExternalChange", async () => {
    const e = await watching();
    const before = e.version;
    e.notifyExternalChange();
    expect(bumps.map((b) => b.version)).toEqual([e.version]);
    expect(e.version).toBeGreaterThan(before);
  });

  it("with watch off, nothing bumps until `gatehouse skills rescan`", async () => {
    await f.settings({ watch: false });
    await f.skill(demoDir(), { name: "demo", description: "Before" });
    const e = await watching();
    await e.snapshot("agent-1", f.WS);
    await f.skill(demoDir(), { name: "demo", description: "After" });
    await quietPeriod();
    expect(bumps).toEqual([]);

    const result = await runCli(["skills", "rescan"], { env: f.env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    await waitFor(() => bumps.length === 1, { what: "the bump from the rescan request", timeoutMs: 5000 });
    const next = await e.snapshot("agent-1", f.WS);
    expect(next.entries[0]?.description).toBe("After");
  });
});
