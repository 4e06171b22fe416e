// Synced plugins that really load in Claude Code (issue 14 point 3, issue 28): whatever marketplace the
// backend names — `claude-plugins-official`, a name Claude Code 2.1.332 reserves for Anthropic — the sync
// registers the plugin as `<name>@gatehouse` in Gatehouse's own directory marketplace (E/capabilities),
// so `claude plugin list --json` reports no error, a real session loads it and its skill reaches the
// scripted model. The user's own marketplaces (an official one included) are never touched; removing
// the plugin removes Gatehouse's record and listing. Run against every supported Claude Code.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  gatehouseMarketplaceRoot,
  knownMarketplacesFile,
} from "../../../src/core/capabilities/io/claude-marketplaces.js";
import { CLAUDE, HAVE_CLAUDE, missing, registeredPlugins } from "../../support/agent-clis.js";
import { pluginZip } from "../../support/archives.js";
import { programOutput } from "../../support/programs.js";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { makeSyncHarness, publishPlugin, type SyncHarness } from "./sync-fixture.js";

function runClaude(h: SyncHarness, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  return programOutput(CLAUDE, args, {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: h.home.home,
      CLAUDE_CONFIG_DIR: h.home.paths.claudeHome,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ...extraEnv,
    },
  });
}

interface Listed {
  id: string;
  enabled?: boolean;
  errors?: string[];
}

describe.skipIf(!HAVE_CLAUDE)(`synced plugins load in Claude Code${missing(CLAUDE)}`, () => {
  let h: SyncHarness;
  let api: ScriptedAnthropic | undefined;
  beforeEach(async () => (h = await makeSyncHarness()));
  afterEach(async () => {
    await api?.close();
    api = undefined;
    await h.cleanup();
  });

  it(
    "a plugin from a reserved marketplace name is listed without errors as name@gatehouse, its skill reaches the model, and removal unregisters it",
    { timeout: 180_000 },
    async () => {
      const CH = h.home.paths.claudeHome;
      const known = knownMarketplacesFile(CH);
      const userRecords = {
        "user-mp": {
          source: { source: "directory", path: path.join(h.home.home, "my-marketplace") },
          installLocation: path.join(h.home.home, "my-marketplace"),
          lastUpdated: "2025-01-01T00:00:00.000Z",
        },
        // The user's own official marketplace, as Claude Code registers it: never changed.
        "claude-plugins-official": {
          source: { source: "github", repo: "anthropics/claude-plugins-official" },
          installLocation: path.join(CH, "plugins", "marketplaces", "claude-plugins-official"),
          lastUpdated: "2025-01-01T00:00:00.000Z",
        },
      };
      await fsp.mkdir(path.dirname(known), { recursive: true });
      await fsp.writeFile(known, JSON.stringify(userRecords));

      const ctx7 = publishPlugin(h.server, {
        id: 9,
        name: "context7",
        version: "1057d02c5307",
        bytes: await pluginZip("context7", { version: "1057d02c5307" }),
      });
      expect(ctx7.marketplace).toBe("claude-plugins-official");
      expect(await h.sync.applySync({ mode: "replace", plugins: [ctx7] })).toMatchObject({ success: true });

      const listed = registeredPlugins(
        JSON.parse(await runClaude(h, ["plugin", "list", "--json"])) as Listed[],
      );
      expect(listed.map((p) => p.id)).toEqual(["context7@gatehouse"]);
      expect(listed[0]).toMatchObject({ enabled: true });
      expect(listed[0]!.errors ?? []).toEqual([]);

      api = await startScriptedAnthropic(() => ({ text: "ok" }));
      const stream = await runClaude(h, ["-p", "hi", "--output-format", "stream-json", "--verbose"], {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: "scripted-key",
      });
      const init = JSON.parse(stream.split("\n")[0]!) as {
        plugins: Array<{ name: string; source?: string }>;
        skills: string[];
      };
      expect(init.plugins.map((p) => p.name)).toContain("context7");
      expect(init.skills).toContain("context7:context7-helper");
      // The skill reaches the model: its name and description are in what Claude Code sent.
      const sent = JSON.stringify(api.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0));
      expect(sent).toContain("context7:context7-helper");
      expect(sent).toContain("Helps with context7");

      const records = JSON.parse(await fsp.readFile(known, "utf8")) as Record<string, unknown>;
      expect(records).toEqual({
        ...userRecords,
        gatehouse: expect.objectContaining({
          source: { source: "directory", path: gatehouseMarketplaceRoot(h.home.paths) },
        }),
      });

      await h.sync.applySync({ mode: "replace" });
      expect(JSON.parse(await fsp.readFile(known, "utf8"))).toEqual(userRecords);
      expect(fs.existsSync(path.join(gatehouseMarketplaceRoot(h.home.paths), ".claude-plugin"))).toBe(false);
      const after = registeredPlugins(
        JSON.parse(await runClaude(h, ["plugin", "list", "--json"])) as Listed[],
      );
      expect(after).toEqual([]);
    },
  );
});
