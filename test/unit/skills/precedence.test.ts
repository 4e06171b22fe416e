// skills.md §13 cases 1–4 and 18–20 (engine level; the CLI versions are in test/integration/skills).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../../src/core/skills/index.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

const named = (skills: SkillEntry[], name: string) => skills.filter((s) => s.name === name);

describe("roots and precedence", () => {
  it("case 1: the highest-ranked entry wins and only it reaches the index", async () => {
    await f.skill(path.join(f.WS, ".clawseed/skills/demo"), {
      name: "demo",
      description: "Workspace version",
    });
    await f.skill(path.join(f.WS, "skills/demo"), { name: "demo", description: "Root version" });
    await f.skill(path.join(f.H, ".claude/skills/demo"), { name: "demo", description: "User version" });
    const engine = f.engine();
    const catalogue = await engine.buildCatalogue({ workspace: f.WS });
    const demos = named(catalogue.skills, "demo");
    const winner = path.join(f.WS, ".clawseed/skills/demo");
    expect(demos.map((d) => [d.path, d.rank, d.shadowed_by, d.offered])).toEqual([
      [winner, 1, null, true],
      [path.join(f.WS, "skills/demo"), 3, winner, false],
      [path.join(f.H, ".claude/skills/demo"), 5, winner, false],
    ]);
    const snapshot = await engine.snapshot("s1", f.WS);
    expect(snapshot.index.text).toContain("Workspace version");
    expect(snapshot.index.text).toContain(`${winner}/SKILL.md`);
    expect(snapshot.index.text).not.toContain(path.join(f.WS, "skills/demo"));
    expect(snapshot.index.text).not.toContain(path.join(f.H, ".claude/skills/demo"));
  });

  it("case 2: identity is the declared name, not the folder name", async () => {
    await f.skill(path.join(f.WS, ".claude/skills/helper-v2"), { name: "helper", description: "Workspace" });
    await f.skill(path.join(f.H, ".claude/skills/helper"), { name: "helper", description: "User" });
    const catalogue = await f.engine().buildCatalogue({ workspace: f.WS });
    const [ws, user] = named(catalogue.skills, "helper");
    expect(ws?.path).toBe(path.join(f.WS, ".claude/skills/helper-v2"));
    expect(ws?.warnings).toEqual(["name differs from folder: helper-v2"]);
    expect(ws?.shadowed_by).toBeNull();
    expect(user?.shadowed_by).toBe(ws?.path);
  });

  it("case 3: within one root the folder that sorts first wins", async () => {
    await f.skill(path.join(f.H, ".claude/skills/b-two"), { name: "shared", description: "B" });
    await f.skill(path.join(f.H, ".claude/skills/a-one"), { name: "shared", description: "A" });
    const catalogue = await f.engine().buildCatalogue({});
    const [a, b] = named(catalogue.skills, "shared");
    expect(a?.path).toBe(path.join(f.H, ".claude/skills/a-one"));
    expect(a?.shadowed_by).toBeNull();
    expect(b?.shadowed_by).toBe(path.join(f.H, ".claude/skills/a-one"));
  });

  it("case 4: an invalid entry never shadows a valid one", async () => {
    await f.skill(path.join(f.WS, "skills/x"), { name: "x" });
    await f.skill(path.join(f.H, ".codex/skills/x"), { name: "x", description: "Codex x" });
    const catalogue = await f.engine().buildCatalogue({ workspace: f.WS });
    const [ws, codex] = named(catalogue.skills, "x");
    expect(ws).toMatchObject({
      valid: false,
      errors: ["missing description"],
      shadowed_by: null,
      offered: false,
    });
    expect(ws?.eligible).toBe(false);
    expect(ws?.reasons).toEqual([]);
    expect(ws?.cost_chars).toBeNull();
    expect(codex).toMatchObject({ source: "codex", offered: true, rank: 6 });
  });

  it("case 18: a synced skill linked into CH/skills is wegent-managed; a real folder is the user's", async () => {
    const store = path.join(f.H, ".wegent-executor/capabilities/store/skills/42-default-image-gen");
    await f.skill(store, { name: "image-gen", description: "Makes images" });
    const link = path.join(f.H, ".claude/skills/image-gen");
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(store, link);
    await f.write(
      f.paths.capabilityManifest,
      JSON.stringify({
        version: 1,
        revision: 1,
        skills: {
          "image-gen": {
            skill_id: 42,
            namespace: "default",
            managed: true,
            store_path: store,
            runtime: { claude_link: link },
          },
        },
      }),
    );
    await f.skill(path.join(f.H, ".claude/skills/local-review"), {
      name: "local-review",
      description: "Reviews",
    });
    const catalogue = await f.engine().buildCatalogue({});
    const [managed] = named(catalogue.skills, "image-gen");
    expect(managed).toMatchObject({
      source: "wegent-managed",
      path: link,
      realpath: store,
      skill_file: `${link}/SKILL.md`,
    });
    expect(named(catalogue.skills, "local-review")[0]?.source).toBe("user");
  });

  it("a manifest record with a leading ~/ still marks the linked skill as wegent-managed", async () => {
    const store = path.join(f.H, ".wegent-executor/capabilities/store/skills/7-default-browser");
    await f.skill(store, { name: "browser", description: "Browses" });
    const link = path.join(f.H, ".codex/skills/browser");
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(store, link);
    await f.write(
      f.paths.capabilityManifest,
      JSON.stringify({
        skills: {
          browser: {
            managed: true,
            store_path: "~/.wegent-executor/capabilities/store/skills/7-default-browser",
            runtime: {},
          },
        },
      }),
    );
    const catalogue = await f.engine().buildCatalogue({});
    expect(named(catalogue.skills, "browser")[0]).toMatchObject({
      source: "wegent-managed",
      rank: 6,
      realpath: store,
    });
  });

  it("a synced skill appears as wegent-managed and a workspace skill of the same name shadows it; both are listed", async () => {
    const store = path.join(f.paths.capabilityStore, "skills/101-default-browser");
    await f.skill(store, { name: "browser", description: "Synced browser" });
    const claudeLink = path.join(f.paths.claudeHome, "skills/browser");
    const codexLink = path.join(f.paths.codexHome, "skills/browser");
    for (const link of [claudeLink, codexLink]) {
      await fs.mkdir(path.dirname(link), { recursive: true });
      await fs.symlink(store, link);
    }
    await f.write(
      f.paths.capabilityManifest,
      JSON.stringify({
        version: 1,
        revision: 2,
        skills: {
          browser: {
            skill_id: 101,
            namespace: "default",
            managed: true,
            store_path: store,
            runtime: { claude_link: claudeLink, codex_link: codexLink },
          },
        },
        plugins: {},
        mcps: {},
      }),
    );
    await f.skill(path.join(f.WS, "skills/browser"), { name: "browser", description: "My own browser" });
    const catalogue = await f.engine().buildCatalogue({ workspace: f.WS });
    const entries = named(catalogue.skills, "browser");
    expect(entries.map((e) => [e.source, e.path, e.realpath, e.shadowed_by])).toEqual([
      ["workspace", path.join(f.WS, "skills/browser"), path.join(f.WS, "skills/browser"), null],
      ["wegent-managed", claudeLink, store, path.join(f.WS, "skills/browser")],
      ["wegent-managed", codexLink, store, path.join(f.WS, "skills/browser")],
    ]);
    expect(entries[0]?.offered).toBe(true);
  });

  it("case 19: plugin skills come from the enabled plugin, are ineligible when it is disabled, and a user skill shadows them", async () => {
    const install = path.join(f.H, ".claude/plugins/cache/wegent/superpowers/1.0.0");
    await f.skill(path.join(install, "skills/systematic-debugging"), {
      name: "systematic-debugging",
      description: "Debug step by step",
    });
    await f.write(
      path.join(f.H, ".claude/plugins/installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: { "superpowers@wegent": [{ scope: "user", installPath: install, version: "1.0.0" }] },
      }),
    );
    const settingsFile = path.join(f.H, ".claude/settings.json");
    await f.write(settingsFile, JSON.stringify({ enabledPlugins: { "superpowers@wegent": true } }));
    let [entry] = named((await f.engine().buildCatalogue({})).skills, "systematic-debugging");
    expect(entry).toMatchObject({
      source: "plugin:superpowers@wegent",
      rank: 7,
      eligible: true,
      offered: true,
    });

    await f.write(settingsFile, JSON.stringify({ enabledPlugins: { "superpowers@wegent": false } }));
    [entry] = named((await f.engine().buildCatalogue({})).skills, "systematic-debugging");
    expect(entry?.reasons).toEqual(["plugin disabled: superpowers@wegent"]);

    await f.write(settingsFile, JSON.stringify({ enabledPlugins: { "superpowers@wegent": true } }));
    await f.skill(path.join(f.H, ".claude/skills/systematic-debugging"), {
      name: "systematic-debugging",
      description: "Mine",
    });
    const entries = named((await f.engine().buildCatalogue({})).skills, "systematic-debugging");
    expect(entries.map((e) => [e.rank, e.shadowed_by])).toEqual([
      [5, null],
      [7, path.join(f.H, ".claude/skills/systematic-debugging")],
    ]);
  });

  it("plugin skill folders follow the plugin manifest's skills field, and Codex plugins are read from config.toml", async () => {
    const claudeInstall = path.join(f.H, "plugins/claude-one");
    await f.write(
      path.join(claudeInstall, ".claude-plugin/plugin.json"),
      JSON.stringify({ name: "one", skills: ["./extra"] }),
    );
    await f.skill(path.join(claudeInstall, "extra/listed"), { name: "listed", description: "Listed" });
    await f.skill(path.join(claudeInstall, "skills/unlisted"), {
      name: "unlisted",
      description: "Not listed",
    });
    await f.write(
      path.join(f.H, ".claude/plugins/installed_plugins.json"),
      JSON.stringify({ version: 2, plugins: { "one@mp": [{ scope: "user", installPath: claudeInstall }] } }),
    );
    await f.write(
      path.join(f.H, ".claude/settings.json"),
      JSON.stringify({ enabledPlugins: { "one@mp": true } }),
    );
    const codexInstall = path.join(f.H, ".codex/plugins/cache/mp/two/abc123");
    await f.skill(path.join(codexInstall, "skills/codex-helper"), {
      name: "codex-helper",
      description: "Codex",
    });
    await f.write(path.join(f.H, ".codex/config.toml"), '[plugins."two@mp"]\nenabled = false\n');
    const catalogue = await f.engine().buildCatalogue({});
    expect(catalogue.skills.map((s) => s.name)).toEqual(["codex-helper", "listed"]);
    expect(named(catalogue.skills, "codex-helper")[0]?.reasons).toEqual(["plugin disabled: two@mp"]);
    expect(catalogue.roots.filter((r) => r.rank === 7).map((r) => [r.plugin, r.path])).toEqual([
      ["one@mp", path.join(claudeInstall, "extra")],
      ["two@mp", path.join(codexInstall, "skills")],
    ]);
  });

  it("case 20: extra roots rank last, and a root reached twice is scanned once at its highest rank", async () => {
    const X = await fs.mkdtemp(path.join(f.H, "extra-"));
    await f.settings({ extra_roots: [X] });
    await f.skill(path.join(X, "demo"), { name: "demo", description: "Extra" });
    await f.skill(path.join(f.H, ".codex/skills/demo"), { name: "demo", description: "Codex" });
    const engine = f.engine();
    const plain = await engine.buildCatalogue({});
    expect(named(plain.skills, "demo").map((e) => [e.source, e.shadowed_by])).toEqual([
      ["codex", null],
      ["extra", path.join(f.H, ".codex/skills/demo")],
    ]);

    await f.skill(path.join(f.H, ".claude/skills/mine"), { name: "mine", description: "Mine" });
    const home = await engine.buildCatalogue({ workspace: f.H });
    const claudeRoots = home.roots.filter((r) => r.path === path.join(f.H, ".claude/skills"));
    expect(claudeRoots.map((r) => [r.rank, r.source])).toEqual([[2, "workspace"]]);
    const mine = named(home.skills, "mine");
    expect(mine.map((e) => [e.rank, e.source])).toEqual([[2, "workspace"]]);
    const paths = home.skills.map((s) => s.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("reports a missing root with exists false and keeps scanning", async () => {
    await f.skill(path.join(f.H, ".claude/skills/only"), { name: "only", description: "Only" });
    const catalogue = await f.engine().buildCatalogue({ workspace: f.WS });
    expect(catalogue.roots.map((r) => [r.rank, r.kind, r.exists, r.count])).toEqual([
      [1, "workspace-clawseed", false, 0],
      [2, "workspace-claude", false, 0],
      [3, "workspace", false, 0],
      [4, "user-clawseed", false, 0],
      [5, "user-claude", true, 1],
      [6, "user-codex", false, 0],
    ]);
    expect(catalogue).toMatchObject({ workspace: f.WS, platform: "darwin", enabled: true, max_active: 5 });
  });

  it("a non-project task sees its own Claude folder and none of the global synced, Codex or plugin skills", async () => {
    const taskClaude = path.join(f.WS, "task-1/.claude");
    await f.skill(path.join(taskClaude, "skills/task-skill"), { name: "task-skill", description: "Task" });
    await f.skill(path.join(f.H, ".claude/skills/global"), { name: "global", description: "Global" });
    await f.skill(path.join(f.H, ".codex/skills/codex-one"), { name: "codex-one", description: "Codex" });
    const catalogue = await f.engine().buildCatalogue({ taskClaudeHome: taskClaude });
    expect(catalogue.skills.map((s) => s.name)).toEqual(["task-skill"]);
    expect(catalogue.roots.map((r) => r.rank)).toEqual([4, 5]);
  });
});
