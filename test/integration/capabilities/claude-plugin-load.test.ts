// Synced plugins that really load in Claude Code 2.1.197 (issue 14, point 3): the sync registers the
// plugin's marketplace (a Gatehouse-owned directory marketplace, only where the user has no record of
// that name), so `claude plugin list --json` reports no error and a real session's init event lists the
// plugin and its skill. Removing the plugin removes Gatehouse's marketplace record and folder; the
// user's own marketplace record is never touched.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  gatehouseMarketplacesDir,
  knownMarketplacesFile,
} from "../../../src/core/capabilities/io/claude-marketplaces.js";
import { pluginZip } from "../../support/archives.js";
import { REPO_ROOT } from "../../support/cli.js";
import { programOutput } from "../../support/programs.js";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { makeSyncHarness, publishPlugin, type SyncHarness } from "./sync-fixture.js";

const CLAUDE = path.join(REPO_ROOT, "node_modules/.bin/claude");
const available = fs.existsSync(CLAUDE);

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

describe.skipIf(!available)("synced plugins load in Claude Code", () => {
  let h: SyncHarness;
  let api: ScriptedAnthropic | undefined;
  beforeEach(async () => (h = await makeSyncHarness()));
  afterEach(async () => {
    await api?.close();
    api = undefined;
    await h.cleanup();
  });

  it(
    "lists the synced plugin without errors, loads it in a session, and unregisters it on removal",
    { timeout: 180_000 },
    async () => {
      const CH = h.home.paths.claudeHome;
      const known = knownMarketplacesFile(CH);
      const userRecord = {
        source: { source: "directory", path: path.join(h.home.home, "my-marketplace") },
        installLocation: path.join(h.home.home, "my-marketplace"),
        lastUpdated: "2025-01-01T00:00:00.000Z",
      };
      await fsp.mkdir(path.dirname(known), { recursive: true });
      await fsp.writeFile(known, JSON.stringify({ "user-mp": userRecord }));

      const ctx7 = publishPlugin(h.server, {
        id: 9,
        name: "context7",
        version: "1057d02c5307",
        bytes: await pluginZip("context7", { version: "1057d02c5307" }),
      });
      expect(await h.sync.applySync({ mode: "replace", plugins: [ctx7] })).toMatchObject({ success: true });

      const listed = JSON.parse(await runClaude(h, ["plugin", "list", "--json"])) as Listed[];
      const entry = listed.find((p) => p.id === "context7@claude-plugins-official")!;
      expect(entry).toMatchObject({ enabled: true });
      expect(entry.errors ?? []).toEqual([]);

      api = await startScriptedAnthropic(() => ({ text: "ok" }));
      const stream = await runClaude(h, ["-p", "hi", "--output-format", "stream-json", "--verbose"], {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: "scripted-key",
      });
      const init = JSON.parse(stream.split("\n")[0]!) as {
        plugins: Array<{ name: string }>;
        skills: string[];
      };
      expect(init.plugins.map((p) => p.name)).toContain("context7");
      expect(init.skills.some((s) => s.includes("context7-helper"))).toBe(true);

      const records = JSON.parse(await fsp.readFile(known, "utf8")) as Record<string, unknown>;
      expect(records["user-mp"]).toEqual(userRecord);
      expect(Object.keys(records)).toContain("claude-plugins-official");

      await h.sync.applySync({ mode: "replace" });
      const after = JSON.parse(await fsp.readFile(known, "utf8")) as Record<string, unknown>;
      expect(after).toEqual({ "user-mp": userRecord });
      expect(
        fs.existsSync(path.join(gatehouseMarketplacesDir(h.home.paths), "claude-plugins-official")),
      ).toBe(false);
    },
  );
});
