// Synced plugins that really load in Codex 0.169 (issue 14, point 3): the sync registers the plugin in
// a Gatehouse-owned marketplace (config.toml `[marketplaces.<m>]` + `[plugins."<key>"]`, a copy in
// Codex's plugin cache), so the real `codex plugin list --json` shows it installed and enabled and a
// real `codex exec` session offers its skill to the model. Removing it unregisters it: the CLI no
// longer shows it and config.toml is again byte for byte what the user wrote, the user's own
// marketplace and plugin (installed with the real CLI) untouched throughout.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  codexConfigFile,
  codexPluginCacheDir,
  gatehouseCodexMarketplacesDir,
} from "../../../src/core/capabilities/io/codex-marketplaces.js";
import { pluginZip } from "../../support/archives.js";
import { CODEX, HAVE_CODEX, missing } from "../../support/agent-clis.js";
import { programOutput } from "../../support/programs.js";
import {
  codexProviderArgs,
  startScriptedOpenAi,
  type ScriptedOpenAi,
} from "../../support/scripted-openai.js";
import { makeSyncHarness, publishPlugin, type SyncHarness } from "./sync-fixture.js";

function runCodex(h: SyncHarness, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  return programOutput(CODEX, args, {
    cwd: h.home.home,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: h.home.home,
      CODEX_HOME: h.home.paths.codexHome,
      ...extraEnv,
    },
  });
}

interface Listed {
  pluginId: string;
  installed: boolean;
  enabled: boolean;
}

async function installedPlugins(h: SyncHarness): Promise<Map<string, Listed>> {
  const listed = JSON.parse(await runCodex(h, ["plugin", "list", "--json"])) as { installed: Listed[] };
  return new Map(listed.installed.map((p) => [p.pluginId, p]));
}

async function marketplaceNames(h: SyncHarness): Promise<string[]> {
  const listed = JSON.parse(await runCodex(h, ["plugin", "marketplace", "list", "--json"])) as {
    marketplaces: Array<{ name: string }>;
  };
  return listed.marketplaces.map((m) => m.name).sort();
}

/** The user's own marketplace and plugin, added with the real CLI, then commented and extended by hand. */
async function userCodexSetup(h: SyncHarness): Promise<string> {
  const mp = path.join(h.home.home, "my-marketplace");
  const plugin = path.join(mp, "plugins", "linter");
  await fsp.mkdir(path.join(plugin, ".claude-plugin"), { recursive: true });
  await fsp.writeFile(
    path.join(plugin, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: "linter", version: "0.9.0" }),
  );
  await fsp.mkdir(path.join(mp, ".claude-plugin"), { recursive: true });
  await fsp.writeFile(
    path.join(mp, ".claude-plugin", "marketplace.json"),
    JSON.stringify({
      name: "user-mp",
      owner: { name: "me" },
      plugins: [{ name: "linter", source: "./plugins/linter", version: "0.9.0" }],
    }),
  );
  await fsp.mkdir(h.home.paths.codexHome, { recursive: true });
  await runCodex(h, ["plugin", "marketplace", "add", mp]);
  await runCodex(h, ["plugin", "add", "linter@user-mp"]);
  const file = codexConfigFile(h.home.paths.codexHome);
  const text = `# my Codex settings\nmodel = "o3" # the one I like\n\n${await fsp.readFile(file, "utf8")}\n[profiles.work]\n# work profile\nmodel = "gpt-5"\n`;
  await fsp.writeFile(file, text);
  return text;
}

describe.skipIf(!HAVE_CODEX)(`synced plugins load in Codex${missing(CODEX)}`, () => {
  let h: SyncHarness;
  let api: ScriptedOpenAi | undefined;
  beforeEach(async () => (h = await makeSyncHarness()));
  afterEach(async () => {
    await api?.close();
    api = undefined;
    await h.cleanup();
  });

  it(
    "lists the synced plugins as installed, offers the skill in a session, and unregisters them on removal",
    { timeout: 180_000 },
    async () => {
      const XH = h.home.paths.codexHome;
      const userConfig = await userCodexSetup(h);

      const ctx7 = publishPlugin(h.server, {
        id: 9,
        name: "context7",
        version: "1057d02c5307",
        bytes: await pluginZip("context7", { version: "1057d02c5307" }),
      });
      const quiet = publishPlugin(h.server, {
        id: 10,
        name: "quiet",
        bytes: await pluginZip("quiet"),
        enabled: false,
      });
      expect(await h.sync.applySync({ mode: "replace", plugins: [ctx7, quiet] })).toMatchObject({
        success: true,
      });

      const listed = await installedPlugins(h);
      expect(listed.get("context7@claude-plugins-official")).toMatchObject({
        installed: true,
        enabled: true,
      });
      expect(listed.get("quiet@claude-plugins-official")).toMatchObject({ installed: true, enabled: false });
      expect(listed.get("linter@user-mp")).toMatchObject({ installed: true, enabled: true });
      expect(await marketplaceNames(h)).toEqual(["claude-plugins-official", "user-mp"]);
      expect(await fsp.readFile(codexConfigFile(XH), "utf8")).toMatch(
        new RegExp(`^${userConfig.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );

      api = await startScriptedOpenAi(() => ({ text: "ok" }));
      await runCodex(h, ["exec", "--skip-git-repo-check", ...codexProviderArgs(api.baseUrl), "hi"], {
        FAKE_KEY: "scripted-key",
      });
      const firstRequest = JSON.stringify(api.requests[0]);
      expect(firstRequest).toContain("context7:context7-helper: Helps with context7");
      expect(firstRequest).not.toContain("quiet:quiet-helper");

      await h.sync.applySync({ mode: "replace" });
      const after = await installedPlugins(h);
      expect([...after.keys()]).toEqual(["linter@user-mp"]);
      expect(await marketplaceNames(h)).toEqual(["user-mp"]);
      expect(await fsp.readFile(codexConfigFile(XH), "utf8")).toBe(userConfig);
      expect(fs.existsSync(path.join(codexPluginCacheDir(XH), "claude-plugins-official"))).toBe(false);
      expect(fs.existsSync(path.join(codexPluginCacheDir(XH), "user-mp", "linter", "0.9.0"))).toBe(true);
      expect(await fsp.readdir(gatehouseCodexMarketplacesDir(h.home.paths)).catch(() => [])).toEqual([]);
    },
  );

  it("replaces the registered copy when a plugin's version changes, leaving no stale version or table", async () => {
    const XH = h.home.paths.codexHome;
    const publish = async (version: string) =>
      publishPlugin(h.server, {
        id: 9,
        name: "context7",
        version,
        bytes: await pluginZip("context7", { version }),
      });
    await h.sync.applySync({ mode: "replace", plugins: [await publish("1.0.0")] });
    expect(await h.sync.applySync({ mode: "replace", plugins: [await publish("2.0.0")] })).toMatchObject({
      success: true,
    });
    const listed = JSON.parse(await runCodex(h, ["plugin", "list", "--json"])) as {
      installed: Array<{ pluginId: string; version: string; enabled: boolean }>;
    };
    expect(listed.installed).toEqual([
      expect.objectContaining({
        pluginId: "context7@claude-plugins-official",
        version: "2.0.0",
        enabled: true,
      }),
    ]);
    expect(
      await fsp.readdir(path.join(codexPluginCacheDir(XH), "claude-plugins-official", "context7")),
    ).toEqual(["2.0.0"]);
    const config = await fsp.readFile(codexConfigFile(XH), "utf8");
    expect(config.match(/\[plugins\./g)).toHaveLength(1);
    expect(config.match(/\[marketplaces\./g)).toHaveLength(1);
  });

  it("leaves a marketplace name the user configured in Codex alone and says why the plugin is not registered", async () => {
    const XH = h.home.paths.codexHome;
    await fsp.mkdir(XH, { recursive: true });
    const userConfig = `[marketplaces.claude-plugins-official]\nsource_type = "git"\nsource = "https://example.invalid/mp.git"\n`;
    await fsp.writeFile(codexConfigFile(XH), userConfig);
    const ctx7 = publishPlugin(h.server, {
      id: 9,
      name: "context7",
      bytes: await pluginZip("context7"),
    });
    expect(await h.sync.applySync({ mode: "replace", plugins: [ctx7] })).toMatchObject({ success: true });
    expect(await fsp.readFile(codexConfigFile(XH), "utf8")).toBe(userConfig);
    expect(fs.existsSync(path.join(codexPluginCacheDir(XH), "claude-plugins-official"))).toBe(false);
    expect(h.logs.join("\n")).toContain("the marketplace claude-plugins-official in");
    expect(h.logs.join("\n")).toContain("is the user's");
  });
});
