import { writeFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SyncItemsAck } from "../../../src/core/capabilities/index.js";
import { makeZip, pluginZip, rawZip, skillMd, skillZip } from "../../support/archives.js";
import {
  exists,
  makeSyncHarness,
  publishPlugin,
  publishSkill,
  readJson,
  sha256,
  snapshotTree,
  type SyncHarness,
} from "./sync-fixture.js";

let h: SyncHarness;
afterEach(async () => h?.cleanup());

const items = (ack: unknown) => ack as SyncItemsAck;

function runtime(h: SyncHarness) {
  const { claudeHome: CH, codexHome: XH, capabilityStore: store } = h.home.paths;
  return {
    CH,
    XH,
    store,
    registry: path.join(CH, "plugins", "installed_plugins.json"),
    settings: path.join(CH, "settings.json"),
    manifest: h.home.paths.capabilityManifest,
  };
}

/** A user's own skill folder, a user plugin in the registry and an enabledPlugins entry. */
async function seedUserContent(h: SyncHarness) {
  const r = runtime(h);
  await fs.mkdir(path.join(r.CH, "skills", "my-notes", "refs"), { recursive: true });
  await fs.writeFile(path.join(r.CH, "skills", "my-notes", "SKILL.md"), skillMd("my-notes", "Mine"));
  await fs.writeFile(path.join(r.CH, "skills", "my-notes", "refs", "a.txt"), "user bytes");
  await fs.mkdir(path.join(r.XH, "skills", "codex-own"), { recursive: true });
  await fs.writeFile(path.join(r.XH, "skills", "codex-own", "SKILL.md"), skillMd("codex-own"));
  const userPluginPath = path.join(r.CH, "plugins", "cache", "user-mp", "linter", "0.9");
  await fs.mkdir(path.join(userPluginPath, ".claude-plugin"), { recursive: true });
  await fs.writeFile(path.join(userPluginPath, ".claude-plugin", "plugin.json"), '{"name":"linter"}');
  const registryText = `${JSON.stringify(
    {
      version: 2,
      plugins: {
        "linter@user-mp": [
          {
            scope: "user",
            installPath: userPluginPath,
            version: "0.9",
            installedAt: "2025-01-01T00:00:00.000Z",
            lastUpdated: "2025-01-01T00:00:00.000Z",
          },
        ],
      },
    },
    null,
    2,
  )}\n`;
  await fs.writeFile(r.registry, registryText);
  const settingsText = `${JSON.stringify({ model: "opus", enabledPlugins: { "linter@user-mp": true } }, null, 2)}\n`;
  await fs.writeFile(r.settings, settingsText);
  return { registryText, settingsText };
}

describe("merge then replace (device-protocol.md §7.9)", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  it("merge installs skills, plugins and MCPs; replace removes only managed entries and keeps the user's own", async () => {
    const r = runtime(h);
    const user = await seedUserContent(h);
    const userSkillBefore = await snapshotTree(path.join(r.CH, "skills", "my-notes"));
    const browser = publishSkill(h.server, {
      id: 101,
      name: "browser",
      bytes: await skillZip("browser", { prefix: "browser/" }),
    });
    const imageGen = publishSkill(h.server, {
      id: 42,
      name: "image-gen",
      bytes: await skillZip("image-gen"),
    });
    const ctx7 = publishPlugin(h.server, {
      id: 9,
      name: "context7",
      version: "1057d02c5307",
      bytes: await pluginZip("context7"),
    });
    const docs = {
      installed_mcp_id: 7,
      name: "docs",
      server: { type: "streamable-http", url: "https://mcp.example.com/docs" },
    };

    const merged = await h.sync.applySync({
      mode: "merge",
      skills: [browser, imageGen],
      plugins: [ctx7],
      mcps: [docs],
    });
    expect(merged).toEqual({
      success: true,
      skills: [
        { id: 101, name: "browser", status: "synced" },
        { id: 42, name: "image-gen", status: "synced" },
      ],
      plugins: [{ id: 9, name: "context7", status: "synced" }],
      mcps: [{ id: 7, name: "docs", status: "synced" }],
      errors: [],
    });
    const browserStore = path.join(r.store, "skills", "101-default-browser");
    const pluginStore = path.join(r.store, "plugins", "9-claude-plugins-official-context7-1057d02c5307");
    // Claude Code knows it as context7@gatehouse, in Gatehouse's own cache folder (docs/agent-clis.md).
    const cacheLink = path.join(r.CH, "plugins", "cache", "gatehouse", "context7", "1057d02c5307");
    expect(await fs.readlink(path.join(r.CH, "skills", "browser"))).toBe(browserStore);
    expect(await fs.readlink(path.join(r.XH, "skills", "browser"))).toBe(browserStore);
    expect(await fs.readFile(path.join(r.CH, "skills", "browser", "SKILL.md"), "utf8")).toBe(
      skillMd("browser"),
    );
    expect(await fs.readlink(cacheLink)).toBe(pluginStore);
    expect(await fs.readlink(path.join(r.XH, "plugins", "context7-claude-plugins-official"))).toBe(
      pluginStore,
    );
    const registry = await readJson<{ version: number; plugins: Record<string, unknown[]> }>(r.registry);
    expect(Object.keys(registry.plugins)).toEqual(["linter@user-mp", "context7@gatehouse"]);
    expect(registry.plugins["context7@gatehouse"]).toEqual([
      {
        scope: "user",
        installPath: cacheLink,
        version: "1057d02c5307",
        installedAt: expect.any(String),
        lastUpdated: expect.any(String),
      },
    ]);
    expect(await readJson(r.settings)).toEqual({
      model: "opus",
      enabledPlugins: { "linter@user-mp": true, "context7@gatehouse": true },
    });
    const manifest = await readJson<Record<string, unknown>>(r.manifest);
    expect(manifest).toMatchObject({
      version: 1,
      revision: 1,
      skills: {
        browser: {
          skill_id: 101,
          namespace: "default",
          managed: true,
          is_public: false,
          content_hash: browser.content_hash,
          store_path: browserStore,
          runtime: {
            claude_link: path.join(r.CH, "skills", "browser"),
            codex_link: path.join(r.XH, "skills", "browser"),
          },
          updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
        },
      },
      plugins: {
        "context7@claude-plugins-official": {
          installed_plugin_id: 9,
          name: "context7",
          marketplace: "claude-plugins-official",
          version: "1057d02c5307",
          enabled: true,
          checksum: ctx7.checksum,
          managed: true,
          store_path: pluginStore,
          runtime: {
            claude_link: cacheLink,
            codex_link: path.join(r.XH, "plugins", "context7-claude-plugins-official"),
          },
        },
      },
      mcps: { docs: { installed_mcp_id: 7, server: docs.server, managed: true } },
      last_sync_at: expect.stringMatching(/\+00:00$/),
    });
    expect((await fs.stat(r.manifest)).mode & 0o777).toBe(0o600);

    const replaced = await h.sync.applySync({ mode: "replace", skills: [browser], plugins: [], mcps: [] });
    expect(replaced).toEqual({
      success: true,
      skills: [{ id: 101, name: "browser", status: "synced" }],
      plugins: [],
      mcps: [],
      errors: [],
    });
    expect(await exists(path.join(r.CH, "skills", "image-gen"))).toBe(false);
    expect(await exists(path.join(r.XH, "skills", "image-gen"))).toBe(false);
    expect(await exists(path.join(r.store, "skills", "42-default-image-gen"))).toBe(false);
    expect(await exists(pluginStore)).toBe(false);
    expect(await exists(path.join(r.CH, "plugins", "cache", "gatehouse"))).toBe(false);
    expect(await exists(path.join(r.XH, "plugins", "context7-claude-plugins-official"))).toBe(false);
    // the user's own things survive byte for byte
    expect(await fs.readFile(r.registry, "utf8")).toBe(user.registryText);
    expect(await fs.readFile(r.settings, "utf8")).toBe(user.settingsText);
    expect(await snapshotTree(path.join(r.CH, "skills", "my-notes"))).toEqual(userSkillBefore);
    expect(await exists(path.join(r.XH, "skills", "codex-own", "SKILL.md"))).toBe(true);
    const after = await readJson<{ revision: number; skills: object; plugins: object; mcps: object }>(
      r.manifest,
    );
    expect(after.revision).toBe(2);
    expect(Object.keys(after.skills)).toEqual(["browser"]);
    expect(after.plugins).toEqual({});
    expect(after.mcps).toEqual({});
  });

  it("reports managed and local skills and the plugins from the registry in the heartbeat report", async () => {
    await seedUserContent(h);
    const browser = publishSkill(h.server, { id: 101, name: "browser", bytes: await skillZip("browser") });
    const ctx7 = publishPlugin(h.server, { id: 9, name: "context7", bytes: await pluginZip("context7") });
    await h.sync.applySync({
      mode: "replace",
      skills: [browser],
      plugins: [ctx7],
      mcps: [{ installed_mcp_id: 7, name: "docs", server: { url: "u", source: "x" } }],
    });
    const report = await h.sync.report();
    expect(report.revision).toBe(1);
    expect(report.skills).toEqual([
      { name: "browser", skill_id: 101, namespace: "default", source: "wegent" },
      { name: "my-notes", source: "local_user" },
    ]);
    expect(report.plugins).toEqual([
      {
        name: "context7",
        marketplace: "claude-plugins-official",
        scope: "user",
        version: "1.0.0",
        source: "wegent",
        installed_at: expect.any(String),
        last_updated: expect.any(String),
        skills: [
          { name: "context7-helper", description: "Helps with context7", path: "skills/context7-helper" },
        ],
        installed_plugin_id: 9,
      },
      {
        name: "linter",
        marketplace: "user-mp",
        scope: "user",
        version: "0.9",
        source: "local_user",
        installed_at: "2025-01-01T00:00:00.000Z",
        last_updated: "2025-01-01T00:00:00.000Z",
        skills: [],
      },
    ]);
    expect(report.mcps).toEqual([
      { installed_mcp_id: 7, server: { url: "u", source: "x" }, name: "docs", source: "wegent" },
    ]);
  });

  it("a warm sync downloads nothing, keeps timestamps and does not rewrite the Claude files", async () => {
    const r = runtime(h);
    const payload = {
      mode: "replace",
      skills: [publishSkill(h.server, { id: 1, name: "a", bytes: await skillZip("a") })],
      plugins: [publishPlugin(h.server, { id: 2, name: "p", bytes: await pluginZip("p") })],
    };
    expect(items(await h.sync.applySync(payload)).success).toBe(true);
    const before = {
      registry: await fs.stat(r.registry),
      settings: await fs.stat(r.settings),
      manifest: await readJson(r.manifest),
    };
    h.server.resetLog();
    expect(items(await h.sync.applySync(payload)).success).toBe(true);
    expect(h.server.downloads()).toBe(0);
    expect(h.server.requests).toEqual([]);
    expect((await fs.stat(r.registry)).ino).toBe(before.registry.ino);
    expect((await fs.stat(r.settings)).ino).toBe(before.settings.ino);
    const after = await readJson<Record<string, unknown>>(r.manifest);
    expect({ ...after, revision: 0, last_sync_at: "" }).toEqual({
      ...before.manifest,
      revision: 0,
      last_sync_at: "",
    });
    expect(after.revision).toBe(2);
  });

  it("re-downloads when the content hash changes and swaps the new package in", async () => {
    const r = runtime(h);
    const v1 = publishSkill(h.server, {
      id: 1,
      name: "a",
      bytes: await skillZip("a", { extra: [{ name: "v1.txt", data: "1" }] }),
    });
    await h.sync.applySync({ mode: "merge", skills: [v1] });
    const v2 = publishSkill(h.server, {
      id: 1,
      name: "a",
      bytes: await skillZip("a", { extra: [{ name: "v2.txt", data: "2" }] }),
    });
    expect(items(await h.sync.applySync({ mode: "merge", skills: [v2] })).success).toBe(true);
    expect((await fs.readdir(path.join(r.CH, "skills", "a"))).sort()).toEqual(["SKILL.md", "v2.txt"]);
    expect(await fs.readdir(path.join(r.store, ".trash"))).toEqual([]);
    expect(await fs.readdir(path.join(r.store, ".staging"))).toEqual([]);
  });

  it("moves the cache link when a plugin's version changes and keeps installedAt", async () => {
    const r = runtime(h);
    const v1 = publishPlugin(h.server, {
      id: 5,
      name: "p",
      marketplace: "mp",
      version: "1.0",
      bytes: await pluginZip("p"),
    });
    await h.sync.applySync({ mode: "merge", plugins: [v1] });
    const first = (await readJson<{ plugins: Record<string, Record<string, string>[]> }>(r.registry)).plugins[
      "p@gatehouse"
    ]?.[0];
    const v2 = publishPlugin(h.server, {
      id: 5,
      name: "p",
      marketplace: "mp",
      version: "2.0",
      bytes: await pluginZip("p", { version: "2.0" }),
    });
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [v2] })).success).toBe(true);
    expect(await exists(path.join(r.CH, "plugins", "cache", "gatehouse", "p", "1.0"))).toBe(false);
    expect(await fs.readlink(path.join(r.CH, "plugins", "cache", "gatehouse", "p", "2.0"))).toBe(
      path.join(r.store, "plugins", "5-mp-p-2.0"),
    );
    expect(await exists(path.join(r.store, "plugins", "5-mp-p-1.0"))).toBe(false);
    const second = (await readJson<{ plugins: Record<string, Record<string, string>[]> }>(r.registry))
      .plugins["p@gatehouse"]?.[0];
    expect(second).toMatchObject({ version: "2.0", installedAt: first?.installedAt });
  });

  it("gives Codex a fresh copy when a plugin's package changes without a new version", async () => {
    const r = runtime(h);
    const publish = async (rev: string) =>
      publishPlugin(h.server, {
        id: 5,
        name: "p",
        marketplace: "mp",
        version: "1.0",
        bytes: await pluginZip("p", { extra: [{ name: "rev.txt", data: rev }] }),
      });
    await h.sync.applySync({ mode: "merge", plugins: [await publish("one")] });
    const copy = path.join(r.XH, "plugins", "cache", "mp", "p", "1.0");
    expect(await fs.readFile(path.join(copy, "rev.txt"), "utf8")).toBe("one");
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [await publish("two")] })).success).toBe(
      true,
    );
    expect(await fs.readFile(path.join(r.store, "plugins", "5-mp-p-1.0", "rev.txt"), "utf8")).toBe("two");
    expect(await fs.readFile(path.join(copy, "rev.txt"), "utf8")).toBe("two");
  });

  it("keeps a disabled plugin installed and linked with enabledPlugins false", async () => {
    const r = runtime(h);
    const p = publishPlugin(h.server, {
      id: 3,
      name: "quiet",
      marketplace: "mp",
      bytes: await pluginZip("quiet"),
      enabled: false,
    });
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [p] })).success).toBe(true);
    expect(await readJson(r.settings)).toEqual({ enabledPlugins: { "quiet@gatehouse": false } });
    expect(
      await exists(
        path.join(r.CH, "plugins", "cache", "gatehouse", "quiet", "1.0.0", ".claude-plugin", "plugin.json"),
      ),
    ).toBe(true);
  });

  it("records a plugin without installed_plugin_id in the manifest only", async () => {
    const r = runtime(h);
    const ack = await h.sync.applySync({
      mode: "merge",
      plugins: [{ name: "upload", version: "3", enabled: true }],
    });
    expect(ack).toEqual({
      success: true,
      skills: [],
      plugins: [{ name: "upload", status: "synced" }],
      mcps: [],
      errors: [],
    });
    const manifest = await readJson<{ plugins: Record<string, unknown> }>(r.manifest);
    expect(manifest.plugins["upload@wegent"]).toEqual({
      managed: true,
      name: "upload",
      marketplace: "wegent",
      version: "3",
      enabled: true,
      updated_at: expect.any(String),
    });
    expect(await exists(r.registry)).toBe(false);
  });

  it("fails a plugin that is not in the store and has no download path", async () => {
    const ack = await h.sync.applySync({
      mode: "merge",
      plugins: [{ installed_plugin_id: 4, name: "p", marketplace: "mp" }],
    });
    expect(items(ack).plugins).toEqual([
      { id: 4, name: "p", status: "failed", error: "Plugin package p@mp is not available" },
    ]);
    expect(items(ack).errors).toEqual([
      { kind: "plugin", id: 4, name: "p", error: "Plugin package p@mp is not available" },
    ]);
  });

  it("fails only the later of two items with the same name", async () => {
    const a = publishSkill(h.server, { id: 1, name: "a", bytes: await skillZip("a") });
    const ack = items(
      await h.sync.applySync({
        mode: "merge",
        skills: [a, { ...a, skill_id: 2 }],
        mcps: [{ name: "m" }, { name: "m" }],
      }),
    );
    expect(ack.success).toBe(false);
    expect(ack.skills).toEqual([
      { id: 1, name: "a", status: "synced" },
      { id: 2, name: "a", status: "failed", error: "Duplicate skill name in payload: a" },
    ]);
    expect(ack.mcps[1]).toEqual({ name: "m", status: "failed", error: "Duplicate MCP name in payload: m" });
  });

  it("downloads from the default skill URL with the namespace encoded, under the backend's path prefix", async () => {
    await h.cleanup();
    h = await makeSyncHarness({ prefix: "/wegent" });
    const item = publishSkill(h.server, {
      id: 7,
      name: "s",
      namespace: "team a&x=y#z",
      bytes: await skillZip("s"),
    });
    expect(items(await h.sync.applySync({ mode: "merge", skills: [item] })).success).toBe(true);
    expect(h.server.requests).toEqual([
      {
        origin: "backend",
        method: "GET",
        path: "/wegent/api/v1/kinds/skills/7/download?namespace=team+a%26x%3Dy%23z",
        authorization: `Bearer ${h.server.token}`,
      },
    ]);
    expect(await exists(path.join(runtime(h).store, "skills", "7-team a&x=y#z-s", "SKILL.md"))).toBe(true);
  });

  it("fetches presigned URLs without the device token, also after a redirect from the backend", async () => {
    const bytes = await pluginZip("p");
    h.server.serve("/bucket/p.zip?X-Sig=1", bytes, { origin: "presigned" });
    h.server.serve("/api/plugins/9/download", Buffer.alloc(0), {
      redirectTo: `${h.server.presignedOrigin}/bucket/p.zip?X-Sig=1`,
    });
    const skillBytes = await skillZip("s");
    h.server.serve("/bucket/s.zip", skillBytes, { origin: "presigned" });
    const ack = await h.sync.applySync({
      mode: "merge",
      skills: [{ skill_id: 1, name: "s", download_path: `${h.server.presignedOrigin}/bucket/s.zip` }],
      plugins: [
        {
          installed_plugin_id: 9,
          name: "p",
          marketplace: "mp",
          download_path: "/api/plugins/9/download",
          checksum: sha256(bytes),
        },
      ],
    });
    expect(items(ack).success).toBe(true);
    for (const request of h.server.requests.filter((q) => q.origin === "presigned"))
      expect(request.authorization).toBeNull();
    expect(h.server.requests.filter((q) => q.origin === "presigned")).toHaveLength(2);
    expect(h.logs.join("\n")).not.toContain(h.server.token);
  });
});

describe("conflicts with the user's own items (§7.6)", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  it("fails a skill whose Claude or Codex path is the user's, syncs the rest, and touches nothing of theirs", async () => {
    const r = runtime(h);
    await fs.mkdir(path.join(r.CH, "skills", "browser"), { recursive: true });
    await fs.writeFile(path.join(r.CH, "skills", "browser", "SKILL.md"), "the user's browser skill");
    await fs.mkdir(path.join(r.XH, "skills"), { recursive: true });
    await fs.symlink("/usr/share/doc", path.join(r.XH, "skills", "pdf"));
    const before = await snapshotTree(h.home.home);
    const browser = publishSkill(h.server, { id: 101, name: "browser", bytes: await skillZip("browser") });
    const pdf = publishSkill(h.server, { id: 5, name: "pdf", bytes: await skillZip("pdf") });
    const ok = publishSkill(h.server, { id: 42, name: "image-gen", bytes: await skillZip("image-gen") });
    const ack = items(await h.sync.applySync({ mode: "replace", skills: [browser, pdf, ok] }));
    const occupied = "Runtime Skill path is occupied by a local user item";
    expect(ack).toEqual({
      success: false,
      skills: [
        { id: 101, name: "browser", status: "failed", error: occupied },
        { id: 5, name: "pdf", status: "failed", error: occupied },
        { id: 42, name: "image-gen", status: "synced" },
      ],
      plugins: [],
      mcps: [],
      errors: [
        { kind: "skill", id: 101, name: "browser", error: occupied },
        { kind: "skill", id: 5, name: "pdf", error: occupied },
      ],
    });
    // conflicts are checked before any download
    expect(h.server.requests.map((q) => q.path)).toEqual([
      "/api/v1/kinds/skills/42/download?namespace=default",
    ]);
    const userPaths = before.filter(
      (e) => e.path.startsWith(".claude/skills/browser") || e.path === ".codex/skills/pdf",
    );
    const now = await snapshotTree(h.home.home);
    for (const entry of userPaths) expect(now).toContainEqual(entry);
  });

  it("fails plugins whose runtime paths or registry key belong to the user, and refuses to traverse linked cache folders", async () => {
    const r = runtime(h);
    await seedUserContent(h);
    await fs.mkdir(path.join(r.XH, "plugins", "codexish-mp"), { recursive: true });
    await fs.mkdir(path.join(h.home.home, "elsewhere"), { recursive: true });
    await fs.mkdir(path.join(r.CH, "plugins", "cache", "gatehouse"), { recursive: true });
    await fs.symlink(
      path.join(h.home.home, "elsewhere"),
      path.join(r.CH, "plugins", "cache", "gatehouse", "x"),
    );
    const registryBefore = await fs.readFile(r.registry, "utf8");
    const codexish = publishPlugin(h.server, {
      id: 1,
      name: "codexish",
      marketplace: "mp",
      bytes: await pluginZip("codexish"),
    });
    const linter = publishPlugin(h.server, {
      id: 2,
      name: "linter",
      marketplace: "user-mp",
      bytes: await pluginZip("linter"),
    });
    const linked = publishPlugin(h.server, {
      id: 3,
      name: "x",
      marketplace: "linked-mp",
      bytes: await pluginZip("x"),
    });
    const fine = publishPlugin(h.server, {
      id: 4,
      name: "fine",
      marketplace: "mp",
      bytes: await pluginZip("fine"),
    });
    const ack = items(await h.sync.applySync({ mode: "merge", plugins: [codexish, linter, linked, fine] }));
    expect(ack.success).toBe(false);
    expect(ack.plugins).toEqual([
      {
        id: 1,
        name: "codexish",
        status: "failed",
        error: "Runtime Plugin path is occupied by a local user item",
      },
      {
        id: 2,
        name: "linter",
        status: "failed",
        error: "Plugin linter@user-mp is already registered in Claude Code by the user",
      },
      {
        id: 3,
        name: "x",
        status: "failed",
        error: `Refusing to traverse managed path symlink: ${path.join(r.CH, "plugins", "cache", "gatehouse", "x")}`,
      },
      { id: 4, name: "fine", status: "synced" },
    ]);
    expect(await fs.readdir(path.join(h.home.home, "elsewhere"))).toEqual([]);
    const registry = await readJson<{ plugins: Record<string, unknown> }>(r.registry);
    expect(registry.plugins["linter@user-mp"]).toEqual(
      (JSON.parse(registryBefore) as { plugins: Record<string, unknown> }).plugins["linter@user-mp"],
    );
    expect(Object.keys(registry.plugins)).toEqual(["linter@user-mp", "fine@gatehouse"]);
  });
});

describe("synced plugins in Claude Code are <name>@gatehouse (docs/agent-clis.md)", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  it("a plugin of the same name from a second marketplace is refused: Claude Code would know both as name@gatehouse", async () => {
    const r = runtime(h);
    const first = publishPlugin(h.server, {
      id: 1,
      name: "lint",
      marketplace: "mp-a",
      bytes: await pluginZip("lint"),
    });
    const second = publishPlugin(h.server, {
      id: 2,
      name: "lint",
      marketplace: "mp-b",
      bytes: await pluginZip("lint"),
    });
    const ack = items(await h.sync.applySync({ mode: "merge", plugins: [first, second] }));
    expect(ack.plugins).toEqual([
      { id: 1, name: "lint", status: "synced" },
      {
        id: 2,
        name: "lint",
        status: "failed",
        error:
          "Capability plugin lint@mp-b would be lint@gatehouse in Claude Code, which plugin lint@mp-a already is; it was not installed",
      },
    ]);
    // a later merge of the second alone is refused too: the first keeps the key
    const later = items(await h.sync.applySync({ mode: "merge", plugins: [second] }));
    expect(later.plugins[0]).toMatchObject({ status: "failed" });
    expect(Object.keys((await readJson<{ plugins: object }>(r.registry)).plugins)).toEqual([
      "lint@gatehouse",
    ]);
    // a replace that swaps them installs the second in the first one's place
    const swapped = items(await h.sync.applySync({ mode: "replace", plugins: [second] }));
    expect(swapped.success).toBe(true);
    const manifest = await readJson<{ plugins: object }>(r.manifest);
    expect(Object.keys(manifest.plugins)).toEqual(["lint@mp-b"]);
    expect(Object.keys((await readJson<{ plugins: object }>(r.registry)).plugins)).toEqual([
      "lint@gatehouse",
    ]);
  });

  it("a marketplace of the user's own named gatehouse is left alone: plugins fail saying what to do, skills still sync", async () => {
    const r = runtime(h);
    const known = path.join(r.CH, "plugins", "known_marketplaces.json");
    const record = {
      gatehouse: {
        source: { source: "github", repo: "someone/gatehouse" },
        installLocation: path.join(r.CH, "plugins", "marketplaces", "gatehouse"),
        lastUpdated: "2025-01-01T00:00:00.000Z",
      },
    };
    await fs.mkdir(path.dirname(known), { recursive: true });
    await fs.writeFile(known, JSON.stringify(record));
    const p = publishPlugin(h.server, { id: 1, name: "p", marketplace: "mp", bytes: await pluginZip("p") });
    const s = publishSkill(h.server, { id: 7, name: "s", bytes: await skillZip("s") });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [s], plugins: [p] }));
    expect(ack.skills).toEqual([{ id: 7, name: "s", status: "synced" }]);
    expect(ack.plugins[0]!.status).toBe("failed");
    expect(ack.plugins[0]!.error).toContain('Claude Code already has a marketplace named "gatehouse"');
    expect(ack.plugins[0]!.error).toContain("claude plugin marketplace remove gatehouse");
    expect(JSON.parse(await fs.readFile(known, "utf8"))).toEqual(record);
    expect(await exists(r.registry)).toBe(false);
  });

  it("a plugin an earlier Gatehouse registered under its backend key moves to name@gatehouse at start-up; the user's keys stay", async () => {
    const r = runtime(h);
    await seedUserContent(h);
    const ctx7 = publishPlugin(h.server, {
      id: 9,
      name: "context7",
      version: "1057d02c5307",
      bytes: await pluginZip("context7"),
    });
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [ctx7] })).success).toBe(true);
    // What an earlier Gatehouse left: its link in the backend marketplace's cache folder, the backend
    // key pointing at it, and a marketplace record of that name.
    const link = path.join(r.CH, "plugins", "cache", "gatehouse", "context7", "1057d02c5307");
    const oldLink = path.join(
      r.CH,
      "plugins",
      "cache",
      "claude-plugins-official",
      "context7",
      "1057d02c5307",
    );
    await fs.mkdir(path.dirname(oldLink), { recursive: true });
    await fs.rename(link, oldLink);
    await fs.rm(path.join(r.CH, "plugins", "cache", "gatehouse"), { recursive: true });
    const manifest = await readJson<{ plugins: Record<string, { runtime: { claude_link: string } }> }>(
      r.manifest,
    );
    manifest.plugins["context7@claude-plugins-official"]!.runtime.claude_link = oldLink;
    await fs.writeFile(r.manifest, JSON.stringify(manifest));
    const registry = await readJson<{
      version: number;
      plugins: Record<string, Array<{ installPath: string }>>;
    }>(r.registry);
    const entry = registry.plugins["context7@gatehouse"]!;
    delete registry.plugins["context7@gatehouse"];
    registry.plugins["context7@claude-plugins-official"] = [{ ...entry[0]!, installPath: oldLink }];
    await fs.writeFile(r.registry, JSON.stringify(registry));
    const settings = await readJson<{ enabledPlugins: Record<string, boolean> }>(r.settings);
    delete settings.enabledPlugins["context7@gatehouse"];
    settings.enabledPlugins["context7@claude-plugins-official"] = false;
    await fs.writeFile(r.settings, JSON.stringify(settings));
    const known = path.join(r.CH, "plugins", "known_marketplaces.json");
    const legacyFolder = path.join(h.home.paths.capabilitiesDir, "marketplaces", "claude-plugins-official");
    await fs.mkdir(legacyFolder, { recursive: true });
    await fs.writeFile(
      known,
      JSON.stringify({
        "claude-plugins-official": {
          source: { source: "directory", path: legacyFolder },
          installLocation: legacyFolder,
          lastUpdated: "2025-01-01T00:00:00.000Z",
        },
      }),
    );

    await h.sync.startup();
    const after = await readJson<{ plugins: Record<string, Array<{ installPath: string }>> }>(r.registry);
    expect(Object.keys(after.plugins).sort()).toEqual(["context7@gatehouse", "linter@user-mp"]);
    expect(after.plugins["context7@gatehouse"]![0]!.installPath).toBe(oldLink);
    // the enabled state the person chose carries over
    expect((await readJson(r.settings)).enabledPlugins).toEqual({
      "linter@user-mp": true,
      "context7@gatehouse": false,
    });
    const records = await readJson<Record<string, unknown>>(known);
    expect(Object.keys(records)).toEqual(["gatehouse"]);
    expect(await exists(path.join(h.home.paths.capabilitiesDir, "marketplaces"))).toBe(false);
    // the heartbeat names it as the backend synced it
    const report = await h.sync.report();
    expect(report.plugins.filter((p) => p.source === "wegent")).toEqual([
      expect.objectContaining({
        name: "context7",
        marketplace: "claude-plugins-official",
        installed_plugin_id: 9,
      }),
    ]);
    // the next sync moves the link into Gatehouse's cache folder
    expect(items(await h.sync.applySync({ mode: "merge", plugins: [ctx7] })).success).toBe(true);
    expect(await exists(oldLink)).toBe(false);
    expect(await exists(path.join(r.CH, "plugins", "cache", "claude-plugins-official"))).toBe(false);
    const moved = await readJson<{ plugins: Record<string, Array<{ installPath: string }>> }>(r.registry);
    expect(moved.plugins["context7@gatehouse"]![0]!.installPath).toBe(link);
  });
});

describe("the Claude registry changes under a running sync", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  it("fails the plugin items and leaves the file as the user left it when it is no longer valid at write time", async () => {
    const r = runtime(h);
    const p = publishPlugin(h.server, { id: 2, name: "p", marketplace: "mp", bytes: await pluginZip("p") });
    const s = publishSkill(h.server, { id: 1, name: "s", bytes: await skillZip("s") });
    await fs.mkdir(path.dirname(r.registry), { recursive: true });
    await fs.writeFile(r.registry, '{"version": 2, "plugins": {}}');
    const stop = h.sync.onProgress((event) => {
      if (event.phase === "install" && event.item === "p@mp")
        writeFileSync(r.registry, "{ half-saved by the user");
    });
    const ack = items(await h.sync.applySync({ mode: "merge", skills: [s], plugins: [p] }));
    const error = `Invalid Claude config ${r.registry}: ${jsonError("{ half-saved by the user")}`;
    expect(ack.skills).toEqual([{ id: 1, name: "s", status: "synced" }]);
    expect(ack.plugins).toEqual([{ id: 2, name: "p", status: "failed", error }]);
    expect(await fs.readFile(r.registry, "utf8")).toBe("{ half-saved by the user");
    stop();
    const manifest = await readJson<{ skills: object; plugins: object }>(r.manifest);
    expect(Object.keys(manifest.skills)).toEqual(["s"]);
    expect(manifest.plugins).toEqual({});
    // once the user fixes the file, the next sync installs the plugin
    await fs.writeFile(r.registry, '{"version": 2, "plugins": {}}');
    expect(items(await h.sync.applySync({ mode: "merge", skills: [s], plugins: [p] })).success).toBe(true);
    expect(Object.keys((await readJson<{ plugins: object }>(r.registry)).plugins)).toEqual(["p@gatehouse"]);
  });
});

describe("hard errors change nothing (§7.10)", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  async function expectUnchanged(payload: unknown, error: string) {
    const before = await snapshotTree(h.home.home);
    const manifestBefore = await fs.readFile(h.home.paths.capabilityManifest, "utf8").catch(() => null);
    h.server.resetLog();
    expect(await h.sync.applySync(payload)).toEqual({ success: false, error });
    expect(await snapshotTree(h.home.home)).toEqual(before);
    expect(await fs.readFile(h.home.paths.capabilityManifest, "utf8").catch(() => null)).toBe(manifestBefore);
    expect(h.server.requests).toEqual([]);
  }

  it("an unknown mode is a hard error: nothing on disk changes and the revision stays", async () => {
    const a = publishSkill(h.server, { id: 1, name: "a", bytes: await skillZip("a") });
    await h.sync.applySync({ mode: "replace", skills: [a] });
    await expectUnchanged({ mode: "mirror", skills: [] }, "Invalid sync mode");
    await expectUnchanged({ skills: [] }, "Invalid sync mode");
    await expectUnchanged("replace", "Invalid capability sync payload");
    await expectUnchanged(
      { mode: "replace", skills: [{ name: "../x", skill_id: 1 }] },
      "Unsafe capability name: ../x",
    );
    await expectUnchanged({ mode: "merge", plugins: [{ version: "1" }] }, "Plugin name is required");
    expect((await h.sync.report()).revision).toBe(1);
  });

  it("an invalid manifest or Claude config is a hard error and the file is kept", async () => {
    const r = runtime(h);
    await fs.mkdir(path.dirname(r.manifest), { recursive: true });
    await fs.writeFile(r.manifest, "{ broken");
    await expectUnchanged(
      { mode: "merge" },
      `Invalid capability manifest ${r.manifest}: ${jsonError("{ broken")}`,
    );
    await fs.rm(r.manifest);
    const p = publishPlugin(h.server, { id: 1, name: "p", bytes: await pluginZip("p") });
    await fs.mkdir(path.dirname(r.registry), { recursive: true });
    await fs.writeFile(r.registry, '{"version": 1, "plugins": {}}');
    await expectUnchanged(
      { mode: "merge", plugins: [p] },
      `Unsupported Claude plugin registry ${r.registry}`,
    );
    await fs.writeFile(r.registry, '{"version": 2, "plugins": {}}');
    await fs.writeFile(r.settings, "{,}");
    await expectUnchanged(
      { mode: "merge", plugins: [p] },
      `Invalid Claude config ${r.settings}: ${jsonError("{,}")}`,
    );
    // a sync that does not touch plugins does not read the Claude files at all
    expect(items(await h.sync.applySync({ mode: "merge", mcps: [{ name: "m" }] })).success).toBe(true);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

describe("refused packages leave the previous install untouched (§7.5)", () => {
  beforeEach(async () => (h = await makeSyncHarness({ limits: { maxExpandedBytes: 64 * 1024 } })));

  it("each package of the malicious corpus fails its item with the exact error and changes nothing outside staging", async () => {
    const r = runtime(h);
    const good = await skillZip("demo", { extra: [{ name: "v1.txt", data: "version one" }] });
    const v1 = publishSkill(h.server, { id: 1, name: "demo", bytes: good });
    const p1 = publishPlugin(h.server, {
      id: 2,
      name: "plug",
      marketplace: "mp",
      bytes: await pluginZip("plug"),
    });
    await h.sync.applySync({ mode: "replace", skills: [v1], plugins: [p1] });
    const skillMdEntry = { name: "SKILL.md", data: skillMd("demo") };
    const corpus: [string, Buffer, string][] = [
      [
        "dot-dot",
        rawZip([skillMdEntry, { name: "../../../../escape.txt", data: "x" }]),
        "Unsafe path in skill ZIP: ../../../../escape.txt",
      ],
      [
        "absolute",
        rawZip([skillMdEntry, { name: "/tmp/escape.txt" }]),
        "Unsafe path in skill ZIP: /tmp/escape.txt",
      ],
      [
        "backslash",
        rawZip([skillMdEntry, { name: "..\\escape.txt" }]),
        "Unsafe path in skill ZIP: ..\\escape.txt",
      ],
      [
        "symlink",
        rawZip([skillMdEntry, { name: "l", data: "/etc/passwd", method: 0, unixMode: 0o120777 }]),
        "Symbolic links are not allowed: l",
      ],
      [
        "link outside",
        rawZip([skillMdEntry, { name: "out", data: "../../../..", method: 0, unixMode: 0o120755 }]),
        "Symbolic links are not allowed: out",
      ],
      [
        "duplicate",
        rawZip([skillMdEntry, { name: "a.txt" }, { name: "A.TXT" }]),
        "Duplicate path in skill ZIP: A.TXT",
      ],
      [
        "10001 entries",
        rawZip([
          skillMdEntry,
          ...Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, method: 0 as const })),
        ]),
        "Skill package contains too many files",
      ],
      [
        "too large",
        await makeZip([skillMdEntry, { name: "big.bin", data: Buffer.alloc(100 * 1024, 7) }]),
        "Expanded skill package is too large",
      ],
      [
        "lying header",
        rawZip([skillMdEntry, { name: "x", data: "tiny", declaredSize: 0x7fffffff }]),
        "Expanded skill package is too large",
      ],
      [
        "no SKILL.md",
        await makeZip([{ name: "README.md", data: "readme" }]),
        "Skill package is missing SKILL.md",
      ],
      ["not an archive", Buffer.from("<html>oops</html>"), "Unsupported capability package format"],
    ];
    for (const [label, bytes, error] of corpus) {
      const before = await snapshotTree(h.home.home, {
        skip: (rel) => rel.endsWith("manifest.json") || rel.endsWith("last-sync.json"),
      });
      const manifestBefore = await readJson<{ skills: object; plugins: object }>(r.manifest);
      const item = publishSkill(h.server, { id: 1, name: "demo", bytes, hash: `sha256:${label}` });
      const ack = items(await h.sync.applySync({ mode: "replace", skills: [item], plugins: [p1] }));
      expect({ label, skills: ack.skills }).toEqual({
        label,
        skills: [{ id: 1, name: "demo", status: "failed", error }],
      });
      expect(ack.plugins).toEqual([{ id: 2, name: "plug", status: "synced" }]);
      const after = await snapshotTree(h.home.home, {
        skip: (rel) => rel.endsWith("manifest.json") || rel.endsWith("last-sync.json"),
      });
      expect({ label, after }).toEqual({ label, after: before });
      const manifestAfter = await readJson<{ skills: object; plugins: object }>(r.manifest);
      expect(manifestAfter.skills).toEqual(manifestBefore.skills);
    }
    expect(await fs.readFile(path.join(r.CH, "skills", "demo", "v1.txt"), "utf8")).toBe("version one");
    expect(await exists(path.join(h.home.home, "escape.txt"))).toBe(false);
  });

  it("refuses checksum mismatches and plugins without a manifest, keeping the installed version", async () => {
    const r = runtime(h);
    const bytes = await pluginZip("plug");
    const p1 = publishPlugin(h.server, { id: 2, name: "plug", marketplace: "mp", bytes });
    await h.sync.applySync({ mode: "merge", plugins: [p1] });
    const registryBefore = await fs.readFile(r.registry, "utf8");
    const tampered = publishPlugin(h.server, {
      id: 2,
      name: "plug",
      marketplace: "mp",
      bytes: await pluginZip("plug", { extra: [{ name: "evil", data: "x" }] }),
      checksum: "sha256:deadbeef",
    });
    const served = await pluginZip("plug", { extra: [{ name: "evil", data: "x" }] });
    const ack = items(await h.sync.applySync({ mode: "merge", plugins: [tampered] }));
    expect(ack.plugins).toEqual([
      {
        id: 2,
        name: "plug",
        status: "failed",
        error: `Plugin checksum mismatch: expected sha256:deadbeef, got ${sha256(served)}`,
      },
    ]);
    const skillBytes = await skillZip("s");
    const skill = publishSkill(h.server, { id: 3, name: "s", bytes: skillBytes });
    const badSkill = items(
      await h.sync.applySync({ mode: "merge", skills: [{ ...skill, checksum: "sha256:00" }] }),
    );
    expect(badSkill.skills[0]?.error).toBe(
      `Skill checksum mismatch: expected sha256:00, got ${sha256(skillBytes)}`,
    );
    const noManifest = publishPlugin(h.server, {
      id: 2,
      name: "plug",
      marketplace: "mp",
      version: "2",
      bytes: await makeZip([{ name: "README.md", data: "x" }]),
    });
    const ack2 = items(await h.sync.applySync({ mode: "merge", plugins: [noManifest] }));
    expect(ack2.plugins[0]?.error).toBe(
      "Plugin package is missing .codex-plugin/plugin.json or .claude-plugin/plugin.json",
    );
    expect(await fs.readFile(r.registry, "utf8")).toBe(registryBefore);
    expect(await fs.readlink(path.join(r.CH, "plugins", "cache", "gatehouse", "plug", "1.0.0"))).toBe(
      path.join(r.store, "plugins", "2-mp-plug-1.0.0"),
    );
    expect(await fs.readdir(path.join(r.store, ".staging"))).toEqual([]);
  });
});

describe("queue, progress and status", () => {
  beforeEach(async () => (h = await makeSyncHarness()));

  it("serialises syncs in arrival order and reports progress for the UI", async () => {
    const a = publishSkill(h.server, { id: 1, name: "a", bytes: await skillZip("a") });
    const b = publishSkill(h.server, { id: 2, name: "b", bytes: await skillZip("b") });
    const [first, second, third] = await Promise.all([
      h.sync.applySync({ mode: "replace", skills: [a, b] }),
      h.sync.applySync({ mode: "nope" }),
      h.sync.applySync({ mode: "replace", skills: [b] }),
    ]);
    expect(items(first).success).toBe(true);
    expect(second).toEqual({ success: false, error: "Invalid sync mode" });
    expect(items(third).success).toBe(true);
    expect((await h.sync.report()).revision).toBe(2);
    expect(await exists(path.join(runtime(h).CH, "skills", "a"))).toBe(false);
    const phases = h.progress.map((p) => `${p.phase}:${p.item ?? "-"}:${p.done}/${p.total}`);
    const firstSync = phases.slice(0, phases.indexOf("done:-:2/2") + 1);
    expect(firstSync.slice(0, 2).sort()).toEqual(["download:a:0/2", "download:b:0/2"]);
    expect(
      firstSync
        .slice(2, 4)
        .map((p) => p.split(":").slice(0, 2).join(":"))
        .sort(),
    ).toEqual(["install:a", "install:b"]);
    expect(firstSync.slice(4)).toEqual(["write:-:2/2", "cleanup:-:2/2", "done:-:2/2"]);
    expect(phases).toContain("remove:a:0/1");
    expect(h.sync.lastResult()?.ack).toEqual(third);
  });

  it("records the last sync's per-item results next to the manifest", async () => {
    const a = publishSkill(h.server, { id: 1, name: "a", bytes: await skillZip("a") });
    await h.sync.applySync({ mode: "merge", skills: [a, { skill_id: 9, name: "missing" }] });
    const record = await readJson(path.join(h.home.paths.capabilitiesDir, "last-sync.json"));
    expect(record).toEqual({
      finished_at: expect.stringMatching(/\+00:00$/),
      mode: "merge",
      revision: 1,
      success: false,
      skills: [
        { id: 1, name: "a", status: "synced" },
        {
          id: 9,
          name: "missing",
          status: "failed",
          error: "Capability package download failed with HTTP 404",
        },
      ],
      plugins: [],
      mcps: [],
      errors: [
        { kind: "skill", id: 9, name: "missing", error: "Capability package download failed with HTTP 404" },
      ],
    });
    expect((await fs.stat(path.join(h.home.paths.capabilitiesDir, "last-sync.json"))).mode & 0o777).toBe(
      0o600,
    );
  });

  it("start-up empties staging and trash and removes temp files left next to the files it writes", async () => {
    const r = runtime(h);
    await fs.mkdir(path.join(r.store, ".staging", "abc", "x"), { recursive: true });
    await fs.mkdir(path.join(r.CH, "plugins"), { recursive: true });
    await fs.writeFile(
      path.join(r.CH, "plugins", ".installed_plugins.json.gatehouse-0123456789ab"),
      "partial",
    );
    await fs.writeFile(path.join(r.CH, ".settings.json.gatehouse-0123456789ab"), "partial");
    await fs.writeFile(path.join(r.CH, ".settings.json.backup"), "the user's");
    await fs.writeFile(
      path.join(r.CH, "plugins", ".known_marketplaces.json.gatehouse-0123456789ab"),
      "partial",
    );
    await fs.mkdir(r.XH, { recursive: true });
    await fs.writeFile(path.join(r.XH, ".config.toml.gatehouse-0123456789ab"), "partial");
    await fs.writeFile(path.join(r.XH, ".config.toml.gatehouse-mine"), "the user's");
    await h.sync.startup();
    expect(await fs.readdir(path.join(r.store, ".staging"))).toEqual([]);
    expect(await fs.readdir(path.join(r.CH, "plugins"))).toEqual([]);
    expect(await fs.readdir(r.CH)).toEqual([".settings.json.backup", "plugins"]);
    expect(await fs.readdir(r.XH)).toEqual([".config.toml.gatehouse-mine"]);
  });

  it("repairs links and registry entries an interrupted sync left behind instead of reporting a conflict", async () => {
    const r = runtime(h);
    const p = publishPlugin(h.server, { id: 2, name: "p", marketplace: "mp", bytes: await pluginZip("p") });
    const s = publishSkill(h.server, { id: 1, name: "s", bytes: await skillZip("s") });
    await h.sync.applySync({ mode: "merge", skills: [s], plugins: [p] });
    // simulate a crash after links and registry were written but before the manifest was
    await fs.rm(r.manifest);
    expect(items(await h.sync.applySync({ mode: "merge", skills: [s], plugins: [p] })).success).toBe(true);
    // and a leftover for an item the next replace no longer contains
    await fs.rm(r.manifest);
    await fs.symlink(
      path.join(r.store, "skills", "1-default-s"),
      path.join(r.CH, "skills", ".s.gatehouse-feedfacecafe"),
    );
    expect(items(await h.sync.applySync({ mode: "replace", skills: [] })).success).toBe(true);
    expect(await fs.readdir(path.join(r.CH, "skills"))).toEqual([]);
    expect(await fs.readdir(path.join(r.XH, "plugins"))).toEqual([]);
    expect(await readJson(r.registry)).toEqual({ version: 2, plugins: {} });
    expect(await readJson(r.settings)).toEqual({ enabledPlugins: {} });
    expect(await fs.readdir(path.join(r.store, "skills"))).toEqual([]);
  });

  it("copies instead of linking where links are impossible, and cleans the copies up on replace", async () => {
    await h.cleanup();
    h = await makeSyncHarness({
      symlink: async () => {
        throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
      },
    });
    const r = runtime(h);
    const s = publishSkill(h.server, { id: 1, name: "s", bytes: await skillZip("s") });
    expect(items(await h.sync.applySync({ mode: "replace", skills: [s] })).success).toBe(true);
    const link = path.join(r.CH, "skills", "s");
    expect((await fs.lstat(link)).isDirectory()).toBe(true);
    expect(await fs.readFile(path.join(link, "SKILL.md"), "utf8")).toBe(skillMd("s"));
    const manifest = await readJson<{ skills: Record<string, { runtime: { copies?: string[] } }> }>(
      r.manifest,
    );
    expect(manifest.skills.s?.runtime.copies).toEqual([link, path.join(r.XH, "skills", "s")]);
    expect(items(await h.sync.applySync({ mode: "replace", skills: [s] })).success).toBe(true);
    expect(items(await h.sync.applySync({ mode: "replace" })).success).toBe(true);
    expect(await exists(link)).toBe(false);
    expect(await exists(path.join(r.XH, "skills", "s"))).toBe(false);
  });
});
