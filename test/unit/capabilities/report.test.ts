import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildCapabilityReport, capabilityDigest } from "../../../src/core/capabilities/io/report.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => (t = await makeTempHome("gatehouse-report-")));
afterEach(async () => t.cleanup());

async function write(file: string, text: string) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

const skillFile = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: "${description}"\n---\nbody\n`;

describe("heartbeat capability report (device-protocol.md §5)", () => {
  it("lists managed skills by name, then local skills in CH/skills, each sorted by code point", async () => {
    const CH = t.paths.claudeHome;
    await write(
      t.paths.capabilityManifest,
      JSON.stringify({
        version: 1,
        revision: 4,
        last_sync_at: "2026-05-27T02:29:17+00:00",
        skills: {
          zeta: { skill_id: 3, namespace: "default", managed: true },
          "\u{1F600}smile": { skill_id: 5, managed: true },
          "\uFFFDreplacement": { skill_id: 6 },
          hidden: { skill_id: 4, managed: false },
          alpha: { skill_id: 1, namespace: "team" },
        },
      }),
    );
    for (const name of ["beta", "hidden", "alpha", "Zed", "中文技能"])
      await write(path.join(CH, "skills", name, "SKILL.md"), "x");
    await fs.mkdir(path.join(CH, "skills", "no-skill-md"), { recursive: true });
    await write(path.join(CH, "skills", "loose.md"), "not a folder");
    await write(path.join(t.home, "elsewhere", "linked", "SKILL.md"), "x");
    await fs.symlink(path.join(t.home, "elsewhere", "linked"), path.join(CH, "skills", "gamma"));
    await fs.symlink(path.join(t.home, "nowhere"), path.join(CH, "skills", "broken"));
    await fs.mkdir(path.join(CH, "skills", ".cache"), { recursive: true });
    await write(path.join(CH, "skills", ".cache", "SKILL.md"), "x");

    const report = await buildCapabilityReport(t.paths);
    expect(report.revision).toBe(4);
    expect(report.last_sync_at).toBe("2026-05-27T02:29:17+00:00");
    expect(report.full).toBe(true);
    expect(report.skills).toEqual([
      { name: "alpha", skill_id: 1, namespace: "team", source: "wegent" },
      { name: "zeta", skill_id: 3, namespace: "default", source: "wegent" },
      { name: "\uFFFDreplacement", skill_id: 6, source: "wegent" },
      { name: "\u{1F600}smile", skill_id: 5, source: "wegent" },
      { name: "Zed", source: "local_user" },
      { name: "beta", source: "local_user" },
      { name: "gamma", source: "local_user" },
      { name: "中文技能", source: "local_user" },
    ]);
    expect(report.digest).toBe(capabilityDigest(report));
  });

  it("reads plugins from installed_plugins.json with their skills, falling back to the store folder", async () => {
    const CH = t.paths.claudeHome;
    const store = path.join(t.paths.capabilityStore, "plugins", "9-mp-ctx-1.0");
    await write(path.join(store, "skills", "b-skill", "SKILL.md"), skillFile("Bee", "Second"));
    await write(path.join(store, "skills", "a-skill", "SKILL.md"), "no front matter");
    await fs.mkdir(path.join(store, "skills", "empty"), { recursive: true });
    const userPath = path.join(CH, "plugins", "cache", "um", "lint", "2");
    await write(path.join(userPath, "skills", "fix", "SKILL.md"), skillFile("fixer", "Fixes"));
    await write(
      t.paths.capabilityManifest,
      JSON.stringify({
        revision: 2,
        plugins: {
          "ctx@mp": {
            installed_plugin_id: 9,
            name: "ctx",
            marketplace: "mp",
            version: "1.0",
            managed: true,
            store_path: store,
          },
          "lint@um": { installed_plugin_id: 77, managed: false },
        },
        mcps: {
          zed: { server: { url: "z" }, managed: true, source: "custom" },
          docs: { installed_mcp_id: 7, server: { type: "sse" }, managed: true },
        },
      }),
    );
    await write(
      path.join(CH, "plugins", "installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: {
          "lint@um": [
            { scope: "project", installPath: userPath, version: "2", installedAt: "i", lastUpdated: "u" },
            { scope: "user" },
          ],
          "ctx@mp": [{ installPath: path.join(CH, "plugins", "cache", "mp", "ctx", "1.0"), installedAt: 5 }],
          "odd@name@mp2": [{ scope: "user" }],
          "empty@x": [],
        },
      }),
    );
    const report = await buildCapabilityReport(t.paths);
    expect(report.plugins).toEqual([
      {
        name: "ctx",
        marketplace: "mp",
        scope: "user",
        version: "1.0",
        source: "wegent",
        skills: [
          { name: "a-skill", description: "", path: "skills/a-skill" },
          { name: "Bee", description: "Second", path: "skills/b-skill" },
        ],
        installed_plugin_id: 9,
      },
      {
        name: "lint",
        marketplace: "um",
        scope: "project",
        version: "2",
        source: "local_user",
        installed_at: "i",
        last_updated: "u",
        skills: [{ name: "fixer", description: "Fixes", path: "skills/fix" }],
      },
      { name: "odd@name", marketplace: "mp2", scope: "user", source: "local_user", skills: [] },
    ]);
    expect(report.mcps).toEqual([
      { installed_mcp_id: 7, server: { type: "sse" }, name: "docs", source: "wegent" },
      { server: { url: "z" }, name: "zed", source: "wegent" },
    ]);
  });

  it("counts unreadable sources as empty", async () => {
    await write(t.paths.capabilityManifest, "{ not json");
    await write(path.join(t.paths.claudeHome, "plugins", "installed_plugins.json"), "nope");
    await write(path.join(t.paths.claudeHome, "skills", "mine", "SKILL.md"), "x");
    const report = await buildCapabilityReport(t.paths);
    expect(report).toMatchObject({
      revision: 0,
      last_sync_at: null,
      plugins: [],
      mcps: [],
      skills: [{ name: "mine", source: "local_user" }],
    });
  });

  it("follows every change between heartbeats: a manifest rewritten in place or replaced, a skill added or removed, a plugin registered", async () => {
    const CH = t.paths.claudeHome;
    const manifest = (revision: number, skills: Record<string, object>) =>
      JSON.stringify({ version: 1, revision, skills });
    // A file modified a minute ago (one written just now is read on every call: racily clean).
    const settle = (file: string, secondsAgo = 60) =>
      fs.utimes(file, new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000));
    await write(t.paths.capabilityManifest, manifest(1, { alpha: { skill_id: 1 } }));
    await settle(t.paths.capabilityManifest);
    const first = await buildCapabilityReport(t.paths);
    expect(first.skills.map((s) => s.name)).toEqual(["alpha"]);

    // Nothing changed: the same report, not rebuilt.
    expect(await buildCapabilityReport(t.paths)).toBe(first);

    // Rewritten in place with the same length (the inode stays): read again, at once and once settled.
    await fs.writeFile(t.paths.capabilityManifest, manifest(2, { alpha: { skill_id: 1 } }));
    expect((await buildCapabilityReport(t.paths)).revision).toBe(2);
    await fs.writeFile(t.paths.capabilityManifest, manifest(3, { alpha: { skill_id: 1 } }));
    await settle(t.paths.capabilityManifest, 30);
    expect((await buildCapabilityReport(t.paths)).revision).toBe(3);

    // Replaced atomically, as Gatehouse writes it.
    const next = `${t.paths.capabilityManifest}.next`;
    await fs.writeFile(next, manifest(4, { alpha: { skill_id: 1 }, beta: { skill_id: 2 } }));
    await settle(next);
    await fs.rename(next, t.paths.capabilityManifest);
    const replaced = await buildCapabilityReport(t.paths);
    expect(replaced.skills.map((s) => s.name)).toEqual(["alpha", "beta"]);
    expect(replaced.digest).not.toBe(first.digest);

    // A local skill appears inside a folder that was already there, then goes.
    await fs.mkdir(path.join(CH, "skills", "mine"), { recursive: true });
    expect((await buildCapabilityReport(t.paths)).skills.map((s) => s.name)).toEqual(["alpha", "beta"]);
    await write(path.join(CH, "skills", "mine", "SKILL.md"), "x");
    const withMine = await buildCapabilityReport(t.paths);
    expect(withMine.skills).toContainEqual({ name: "mine", source: "local_user" });
    expect(withMine.digest).not.toBe(replaced.digest);
    await fs.rm(path.join(CH, "skills", "mine", "SKILL.md"));
    expect((await buildCapabilityReport(t.paths)).digest).toBe(replaced.digest);

    // A plugin registered by Claude Code.
    const root = path.join(t.home, "plugin-root");
    await write(path.join(root, "skills", "p1", "SKILL.md"), skillFile("p1", "one"));
    await write(
      path.join(CH, "plugins", "installed_plugins.json"),
      JSON.stringify({ version: 2, plugins: { "tool@market": [{ scope: "user", installPath: root }] } }),
    );
    const withPlugin = await buildCapabilityReport(t.paths);
    expect(withPlugin.plugins.map((p) => [p.name, p.skills.map((s) => s.name)])).toEqual([["tool", ["p1"]]]);

    // The manifest becomes unreadable: the report says so (empty manifest), and recovers after.
    await fs.writeFile(t.paths.capabilityManifest, "{ not json");
    expect((await buildCapabilityReport(t.paths)).revision).toBe(0);
    await fs.writeFile(t.paths.capabilityManifest, manifest(5, { alpha: { skill_id: 1 } }));
    expect((await buildCapabilityReport(t.paths)).revision).toBe(5);
  });
});
