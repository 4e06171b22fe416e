// Issue 18, "Sync integrity", as attacks on the real sync engine with a real package server: a sync
// plans every path before it changes anything; names are names (`__proto__` too); folder names and
// keys cannot collide, old folder names keep working; budgets fail one item, not half a sync.
import fs from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildCapabilityReport,
  loadManifest,
  type SyncItemsAck,
} from "../../../src/core/capabilities/index.js";
import { makeTar, pluginZip, skillMd, skillZip } from "../../support/archives.js";
import { waitFor } from "../../support/wait-for.js";
import {
  codexPluginLinks,
  exists,
  makeSyncHarness,
  publishPlugin,
  publishSkill,
  readJson,
  type SyncHarness,
} from "./sync-fixture.js";

let h: SyncHarness;
afterEach(async () => h?.cleanup());

const items = (ack: unknown) => ack as SyncItemsAck;

async function linkOf(p: string): Promise<string | null> {
  return fs.readlink(p).catch(() => null);
}

async function manifestSkills(h: SyncHarness): Promise<string[]> {
  const loaded = await loadManifest(h.home.paths.capabilityManifest);
  if (!loaded.ok) throw new Error(loaded.error);
  return Object.keys(loaded.manifest.skills).sort();
}

/** Every manifest skill has both links, each leading to its store folder, which holds SKILL.md. */
async function everySkillLinked(h: SyncHarness): Promise<void> {
  const loaded = await loadManifest(h.home.paths.capabilityManifest);
  if (!loaded.ok) throw new Error(loaded.error);
  for (const [name, entry] of Object.entries(loaded.manifest.skills)) {
    for (const root of [h.home.paths.claudeHome, h.home.paths.codexHome]) {
      expect({ name, link: await linkOf(path.join(root, "skills", name)) }).toEqual({
        name,
        link: entry.store_path,
      });
    }
    expect(await exists(path.join(entry.store_path!, "SKILL.md"))).toBe(true);
  }
}

async function skill(h: SyncHarness, id: number, name: string, namespace = "default") {
  return publishSkill(h.server, { id, name, namespace, bytes: await skillZip(name) });
}

describe("plan, then apply", () => {
  it("a 400-byte skill name in a replace fails that item before anything changes; removals and the rest are right, and a resend is stable", async () => {
    h = await makeSyncHarness();
    const a = await skill(h, 1, "alpha");
    const b = await skill(h, 2, "beta");
    expect(items(await h.sync.applySync({ mode: "replace", skills: [a, b] })).success).toBe(true);

    const longName = "é".repeat(200); // 200 characters, 400 bytes: a safe name, too long for a folder
    const long = await skill(h, 3, longName);
    for (let attempt = 0; attempt < 2; attempt++) {
      const ack = items(await h.sync.applySync({ mode: "replace", skills: [b, long] }));
      expect(ack.skills).toEqual([
        { id: 2, name: "beta", status: "synced" },
        {
          id: 3,
          name: longName,
          status: "failed",
          error: `Capability name is too long for this file system: ${longName} (400 bytes in one folder name, at most 255)`,
        },
      ]);
      expect(JSON.stringify(ack)).not.toContain(h.home.home); // no local path goes to the backend
      expect(await manifestSkills(h)).toEqual(["beta"]);
      await everySkillLinked(h);
      expect(await linkOf(path.join(h.home.paths.claudeHome, "skills", "alpha"))).toBeNull();
      const report = await buildCapabilityReport(h.home.paths);
      expect(report.skills).toEqual([{ name: "beta", skill_id: 2, namespace: "default", source: "wegent" }]);
    }
  });

  it("a deeply nested MCP server fails that MCP only: the skill of the same payload is linked and in the manifest", async () => {
    h = await makeSyncHarness();
    const s = await skill(h, 5, "kept");
    const deep = JSON.parse(`${"[".repeat(50_000)}${"]".repeat(50_000)}`) as unknown;
    const ack = items(
      await h.sync.applySync({
        mode: "merge",
        skills: [s],
        mcps: [
          { installed_mcp_id: 1, name: "deep", server: { type: "stdio", command: "x", args: deep } },
          { installed_mcp_id: 2, name: "docs", server: { type: "sse", url: "https://x" } },
        ],
      }),
    );
    expect(ack.skills).toEqual([{ id: 5, name: "kept", status: "synced" }]);
    expect(ack.mcps).toEqual([
      {
        id: 1,
        name: "deep",
        status: "failed",
        error: "MCP server definition of deep is nested deeper than 32 levels; it was not stored",
      },
      { id: 2, name: "docs", status: "synced" },
    ]);
    const loaded = await loadManifest(h.home.paths.capabilityManifest);
    expect(loaded.ok && Object.keys(loaded.manifest.mcps)).toEqual(["docs"]);
    expect(await manifestSkills(h)).toEqual(["kept"]);
    await everySkillLinked(h);
  });
});

describe("an apply the environment refuses", () => {
  it("is a hard error, and what it did is undone: the links agree with the manifest on disk", async () => {
    h = await makeSyncHarness();
    const a = await skill(h, 1, "alpha");
    expect(items(await h.sync.applySync({ mode: "replace", skills: [a] })).success).toBe(true);
    const before = await fs.readFile(h.home.paths.capabilityManifest, "utf8");
    // XH is now a file: the apply stage cannot even create its folders.
    await fs.rm(h.home.paths.codexHome, { recursive: true });
    await fs.writeFile(h.home.paths.codexHome, "not a folder");
    const b = await skill(h, 2, "beta");
    const ack = await h.sync.applySync({ mode: "replace", skills: [b] });
    expect(ack).toMatchObject({ success: false });
    expect((ack as { error: string }).error).toMatch(
      /^Capability sync could not be applied \(.*\); the last synced state was restored$/,
    );
    expect(await fs.readFile(h.home.paths.capabilityManifest, "utf8")).toBe(before);
    expect(await linkOf(path.join(h.home.paths.claudeHome, "skills", "alpha"))).not.toBeNull();
    expect(await linkOf(path.join(h.home.paths.claudeHome, "skills", "beta"))).toBeNull();
  });
});

describe("names are names", () => {
  it("a skill and an MCP called __proto__ (and constructor, toString) are synced, listed and keep their links", async () => {
    h = await makeSyncHarness();
    const names = ["__proto__", "constructor", "toString"];
    const skills = await Promise.all(names.map((name, i) => skill(h, 10 + i, name)));
    const mcps = names.map((name, i) => ({ installed_mcp_id: 20 + i, name, server: { url: `u${i}` } }));
    for (let round = 0; round < 2; round++) {
      const ack = items(await h.sync.applySync({ mode: "replace", skills, mcps }));
      expect(ack.success).toBe(true);
      const raw = await readJson<{ skills: object; mcps: object }>(h.home.paths.capabilityManifest);
      expect(Object.keys(raw.skills).sort()).toEqual([...names].sort());
      expect(Object.keys(raw.mcps).sort()).toEqual([...names].sort());
      await everySkillLinked(h);
      const report = await buildCapabilityReport(h.home.paths);
      expect(report.skills.map((s) => [s.name, s.source])).toEqual(
        [...names].sort().map((n) => [n, "wegent"]),
      );
      expect(report.mcps.map((m) => m.name).sort()).toEqual([...names].sort());
    }
    // And a replace without them removes them like any other name.
    expect(items(await h.sync.applySync({ mode: "replace", skills: [], mcps: [] })).success).toBe(true);
    expect(await manifestSkills(h)).toEqual([]);
    expect(await linkOf(path.join(h.home.paths.claudeHome, "skills", "__proto__"))).toBeNull();
  });
});

describe("folder names and keys cannot collide", () => {
  it("plugins a@b @ c and a @ b@c are refused as a whole: no plugin key may be ambiguous", async () => {
    h = await makeSyncHarness();
    const bytes = await pluginZip("x");
    const ack = await h.sync.applySync({
      mode: "merge",
      plugins: [
        publishPlugin(h.server, { id: 1, name: "a@b", marketplace: "c", bytes }),
        publishPlugin(h.server, { id: 2, name: "a", marketplace: "b@c", bytes }),
      ],
    });
    expect(ack).toEqual({ success: false, error: "Unsafe capability name: a@b" });
    expect(await exists(h.home.paths.capabilityManifest)).toBe(false);
    expect(await fs.readdir(path.join(h.home.paths.capabilityStore, "plugins"))).toEqual([]);
  });

  it("skills (7, a-b, c) and (7, a, b-c) get folders of their own and each link leads to its own package", async () => {
    h = await makeSyncHarness();
    const one = publishSkill(h.server, { id: 7, name: "c", namespace: "a-b", bytes: await skillZip("one") });
    const two = publishSkill(h.server, { id: 7, name: "b-c", namespace: "a", bytes: await skillZip("two") });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [one, two] }));
    expect(ack.success).toBe(true);
    const store = path.join(h.home.paths.capabilityStore, "skills");
    expect((await fs.readdir(store)).sort()).toEqual(["7-a%2Db-c", "7-a-b-c"]);
    const read = (name: string) =>
      fs.readFile(path.join(h.home.paths.claudeHome, "skills", name, "SKILL.md"), "utf8");
    expect(await read("c")).toBe(skillMd("one"));
    expect(await read("b-c")).toBe(skillMd("two"));
    await everySkillLinked(h);
  });

  it("two skills whose links would be one folder on a case-insensitive disk: the later one is refused", async () => {
    h = await makeSyncHarness();
    const upper = await skill(h, 1, "Notes");
    const lower = await skill(h, 2, "notes");
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [upper, lower] }));
    expect(ack.skills).toEqual([
      { id: 1, name: "Notes", status: "synced" },
      {
        id: 2,
        name: "notes",
        status: "failed",
        error: "Capability skill notes would share a folder with skill Notes; it was not installed",
      },
    ]);
    expect(await manifestSkills(h)).toEqual(["Notes"]);
  });

  it("plugins whose old store folder or Codex link names were one get their own, each with its own package", async () => {
    h = await makeSyncHarness();
    // Under the old naming, b@c-a and a-b@c (same id and version) shared the store folder 1-c-a-b-1,
    // and a-b@c and a@b-c shared the Codex link a-b-c.
    const plugin = async (id: number, name: string, marketplace: string) => {
      const bytes = await pluginZip(name);
      const item = publishPlugin(h.server, { id, name, marketplace, version: "1", bytes });
      const downloadPath = `/packages/${encodeURIComponent(`${name}@${marketplace}`)}`;
      h.server.serve(downloadPath, bytes);
      return { ...item, download_path: downloadPath };
    };
    const plugins = [await plugin(1, "b", "c-a"), await plugin(1, "a-b", "c"), await plugin(2, "a", "b-c")];
    const ack = items(await h.sync.applySync({ mode: "merge", plugins }));
    expect(ack.success).toBe(true);
    expect((await fs.readdir(path.join(h.home.paths.capabilityStore, "plugins"))).sort()).toEqual([
      "1-c-a%2Db-1",
      "1-c-a-b-1",
      "2-b-c-a-1",
    ]);
    const codex = path.join(h.home.paths.codexHome, "plugins");
    expect(await codexPluginLinks(h.home.paths.codexHome)).toEqual(["a%2Db-c", "a-b-c", "b-c-a"]);
    const nameIn = async (link: string) =>
      (await readJson<{ name: string }>(path.join(codex, link, ".claude-plugin", "plugin.json"))).name;
    expect([await nameIn("b-c-a"), await nameIn("a%2Db-c"), await nameIn("a-b-c")]).toEqual([
      "b",
      "a-b",
      "a",
    ]);
  });
});

/** Rewrites one synced skill into the layout an earlier version wrote: `{id}-{namespace}-{name}`. */
async function makeLegacy(h: SyncHarness, name: string, legacyFolder: string): Promise<string> {
  const file = h.home.paths.capabilityManifest;
  const manifest = await readJson<{ skills: Record<string, { store_path: string }> }>(file);
  const entry = manifest.skills[name]!;
  const legacy = path.join(path.dirname(entry.store_path), legacyFolder);
  await fs.rename(entry.store_path, legacy);
  entry.store_path = legacy;
  for (const root of [h.home.paths.claudeHome, h.home.paths.codexHome]) {
    const link = path.join(root, "skills", name);
    await fs.unlink(link);
    await fs.symlink(legacy, link);
  }
  await fs.writeFile(file, JSON.stringify(manifest, null, 2));
  return legacy;
}

describe("stores written with the old folder names", () => {
  it("keep working, and move to the new name at the next sync without a download", async () => {
    h = await makeSyncHarness();
    const one = publishSkill(h.server, { id: 7, name: "c", namespace: "a-b", bytes: await skillZip("one") });
    expect(items(await h.sync.applySync({ mode: "merge", skills: [one] })).success).toBe(true);
    const legacy = await makeLegacy(h, "c", "7-a-b-c");
    // The old layout is read as it is: reported, and its link leads to the package.
    const report = await buildCapabilityReport(h.home.paths);
    expect(report.skills).toEqual([{ name: "c", skill_id: 7, namespace: "a-b", source: "wegent" }]);
    h.server.resetLog();
    // The skill that now owns the name `7-a-b-c` arrives with it: the old folder moves first.
    const two = publishSkill(h.server, { id: 7, name: "b-c", namespace: "a", bytes: await skillZip("two") });
    const ack = items(await h.sync.applySync({ mode: "replace", skills: [one, two] }));
    expect(ack.success).toBe(true);
    expect(h.server.requests.map((r) => r.path)).toEqual([
      `/api/v1/kinds/skills/7/download?namespace=a`, // only the new skill was downloaded
    ]);
    expect(await fs.readlink(path.join(h.home.paths.claudeHome, "skills", "c"))).not.toBe(legacy);
    const read = (name: string) =>
      fs.readFile(path.join(h.home.paths.claudeHome, "skills", name, "SKILL.md"), "utf8");
    expect(await read("c")).toBe(skillMd("one"));
    expect(await read("b-c")).toBe(skillMd("two"));
    await everySkillLinked(h);
  });

  it("an old entry a merge leaves alone keeps its folder: a new item that would take its name is refused", async () => {
    h = await makeSyncHarness();
    const one = publishSkill(h.server, { id: 7, name: "c", namespace: "a-b", bytes: await skillZip("one") });
    await h.sync.applySync({ mode: "merge", skills: [one] });
    await makeLegacy(h, "c", "7-a-b-c");
    const two = publishSkill(h.server, { id: 7, name: "b-c", namespace: "a", bytes: await skillZip("two") });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [two] }));
    expect(ack.skills[0]).toMatchObject({
      status: "failed",
      error: "Capability skill b-c would share a folder with skill c; it was not installed",
    });
    expect(await fs.readFile(path.join(h.home.paths.claudeHome, "skills", "c", "SKILL.md"), "utf8")).toBe(
      skillMd("one"),
    );
    await everySkillLinked(h);
  });

  it("an old Codex plugin link name is replaced by the new one at the next sync", async () => {
    h = await makeSyncHarness();
    const item = publishPlugin(h.server, {
      id: 3,
      name: "code-review",
      marketplace: "mp",
      bytes: await pluginZip("code-review"),
    });
    await h.sync.applySync({ mode: "merge", plugins: [item] });
    const plugins = path.join(h.home.paths.codexHome, "plugins");
    // What an earlier version left: the link under `{name}-{marketplace}`, recorded in the manifest.
    const file = h.home.paths.capabilityManifest;
    const manifest = await readJson<{ plugins: Record<string, { runtime: { codex_link: string } }> }>(file);
    const target = await fs.readlink(path.join(plugins, "code%2Dreview-mp"));
    await fs.unlink(path.join(plugins, "code%2Dreview-mp"));
    await fs.symlink(target, path.join(plugins, "code-review-mp"));
    manifest.plugins["code-review@mp"]!.runtime.codex_link = path.join(plugins, "code-review-mp");
    await fs.writeFile(file, JSON.stringify(manifest));
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [item] })).success).toBe(true);
    expect(await codexPluginLinks(h.home.paths.codexHome)).toEqual(["code%2Dreview-mp"]);
  });
});

describe("time and cancellation", () => {
  it("a .tar.gz with 64 MiB of zeros after the tar end is installed within a small time budget", async () => {
    h = await makeSyncHarness({ limits: { maxExtractMs: 2_000 } });
    const tar = makeTar([{ path: "SKILL.md", data: skillMd("zeros") }]);
    const bytes = gzipSync(Buffer.concat([tar, Buffer.alloc(64 * 1024 * 1024)]), { level: 9 });
    expect(bytes.length).toBeLessThan(100 * 1024);
    const item = publishSkill(h.server, { id: 1, name: "zeros", bytes });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [item] }));
    expect(ack.skills).toEqual([{ id: 1, name: "zeros", status: "synced" }]);
  });

  it("a package over its time budget is refused and its staged files are discarded", async () => {
    h = await makeSyncHarness({ limits: { maxExtractMs: 0 } });
    const item = await skill(h, 1, "slow");
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [item] }));
    expect(ack.skills).toEqual([
      {
        id: 1,
        name: "slow",
        status: "failed",
        error: "Skill package took too long to extract (more than 0 ms)",
      },
    ]);
    expect(await fs.readdir(path.join(h.home.paths.capabilityStore, ".staging"))).toEqual([]);
    expect(await fs.readdir(path.join(h.home.paths.capabilityStore, "skills"))).toEqual([]);
    expect(await linkOf(path.join(h.home.paths.claudeHome, "skills", "slow"))).toBeNull();
  });

  it("a sync cancelled while it downloads is a hard error and changes nothing", async () => {
    h = await makeSyncHarness();
    const a = await skill(h, 1, "alpha");
    expect(items(await h.sync.applySync({ mode: "replace", skills: [a] })).success).toBe(true);
    const before = await fs.readFile(h.home.paths.capabilityManifest, "utf8");
    const stalled = publishSkill(h.server, { id: 2, name: "stalled", bytes: await skillZip("stalled") });
    h.server.serve("/api/v1/kinds/skills/2/download?namespace=default", await skillZip("stalled"), {
      stall: true,
    });
    const pending = h.sync.applySync({ mode: "replace", skills: [stalled] }); // alpha would be removed
    await waitFor(() => h.server.requests.some((r) => r.path.startsWith("/api/v1/kinds/skills/2/")), {
      what: "the download to start",
    });
    h.sync.cancel();
    expect(await pending).toEqual({
      success: false,
      error: "Capability sync was cancelled because Gatehouse is stopping; nothing was changed",
    });
    expect(await fs.readFile(h.home.paths.capabilityManifest, "utf8")).toBe(before);
    await everySkillLinked(h);
    expect(await fs.readdir(path.join(h.home.paths.capabilityStore, ".staging"))).toEqual([]);
    // Later syncs run normally.
    expect(items(await h.sync.applySync({ mode: "merge", skills: [a] })).success).toBe(true);
  });
});
