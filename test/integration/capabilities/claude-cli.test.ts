// The real Claude Code CLI reads what a sync wrote (agent-cli-notes.md "Plugins"): a synced plugin is
// listed as installed and enabled under Gatehouse's marketplace (`<name>@gatehouse`, docs/agent-clis.md),
// and a plugin the user had before is still listed. Run against every supported Claude Code (the
// pinned one, the oldest in CI); skipped, with the reason, where the CLI is not installed.
import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pluginZip } from "../../support/archives.js";
import { CLAUDE, HAVE_CLAUDE, missing, registeredPlugins } from "../../support/agent-clis.js";
import { makeSyncHarness, publishPlugin, type SyncHarness } from "./sync-fixture.js";

interface ListedPlugin {
  id: string;
  version?: string;
  scope?: string;
  enabled?: boolean;
  installPath?: string;
}

async function claudePluginList(h: SyncHarness): Promise<ListedPlugin[]> {
  const { stdout } = await promisify(execFile)(CLAUDE, ["plugin", "list", "--json"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: h.home.home,
      CLAUDE_CONFIG_DIR: h.home.paths.claudeHome,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    timeout: 60_000,
  });
  return registeredPlugins(JSON.parse(stdout) as ListedPlugin[]);
}

describe.skipIf(!HAVE_CLAUDE)(`Claude Code CLI reads the synced registry${missing(CLAUDE)}`, () => {
  let h: SyncHarness;
  beforeEach(async () => (h = await makeSyncHarness()));
  afterEach(async () => h.cleanup());

  it(
    "lists a synced plugin as installed and enabled next to the user's own plugin",
    { timeout: 120_000 },
    async () => {
      const CH = h.home.paths.claudeHome;
      const userPath = path.join(CH, "plugins", "cache", "user-mp", "linter", "0.9");
      await fsp.mkdir(path.join(userPath, ".claude-plugin"), { recursive: true });
      await fsp.writeFile(
        path.join(userPath, ".claude-plugin", "plugin.json"),
        JSON.stringify({ name: "linter", version: "0.9" }),
      );
      await fsp.writeFile(
        path.join(CH, "plugins", "installed_plugins.json"),
        JSON.stringify({
          version: 2,
          plugins: {
            "linter@user-mp": [
              {
                scope: "user",
                installPath: userPath,
                version: "0.9",
                installedAt: "2025-01-01T00:00:00.000Z",
                lastUpdated: "2025-01-01T00:00:00.000Z",
              },
            ],
          },
        }),
      );
      await fsp.writeFile(
        path.join(CH, "settings.json"),
        JSON.stringify({ enabledPlugins: { "linter@user-mp": true } }),
      );

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
      const ack = await h.sync.applySync({ mode: "replace", plugins: [ctx7, quiet] });
      expect(ack).toMatchObject({ success: true });

      const listed = await claudePluginList(h);
      const byId = new Map(listed.map((p) => [p.id, p]));
      expect(byId.get("context7@gatehouse")).toMatchObject({
        version: "1057d02c5307",
        scope: "user",
        enabled: true,
        installPath: path.join(CH, "plugins", "cache", "gatehouse", "context7", "1057d02c5307"),
      });
      expect(byId.get("quiet@gatehouse")).toMatchObject({ enabled: false });
      expect(byId.get("linter@user-mp")).toMatchObject({
        version: "0.9",
        enabled: true,
        installPath: userPath,
      });

      // after a replace that drops the synced plugins, Claude Code lists only the user's plugin
      await h.sync.applySync({ mode: "replace" });
      expect((await claudePluginList(h)).map((p) => p.id)).toEqual(["linter@user-mp"]);
    },
  );
});
