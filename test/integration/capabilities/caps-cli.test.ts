// `gatehouse caps report|status` through the real built CLI, against a home a real sync wrote.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildCapabilityReport } from "../../../src/core/capabilities/index.js";
import { pluginZip, skillZip } from "../../support/archives.js";
import { runCli } from "../../support/cli.js";
import { makeSyncHarness, publishPlugin, publishSkill, type SyncHarness } from "./sync-fixture.js";

let h: SyncHarness;
beforeEach(async () => (h = await makeSyncHarness()));
afterEach(async () => h.cleanup());

describe("gatehouse caps", () => {
  it("prints the empty report (D1) on a fresh device", async () => {
    const result = await runCli(["caps", "report", "--json"], { env: h.home.env });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({
      revision: 0,
      digest: "sha256:cfb9cc611aec1065653dcdc7afdab315ff3742b4c0747ba175a6490db104cbab",
      full: true,
      skills: [],
      plugins: [],
      mcps: [],
      last_sync_at: null,
    });
  });

  it("prints the heartbeat capability block and the last sync's per-item results", async () => {
    const s = publishSkill(h.server, { id: 101, name: "browser", bytes: await skillZip("browser") });
    const p = publishPlugin(h.server, { id: 9, name: "context7", bytes: await pluginZip("context7") });
    await h.sync.applySync({
      mode: "replace",
      skills: [s, { skill_id: 5, name: "gone" }],
      plugins: [p],
      mcps: [{ installed_mcp_id: 7, name: "docs" }],
    });

    const report = await runCli(["caps", "report", "--json"], { env: h.home.env });
    expect(report.code).toBe(0);
    expect(report.json()).toEqual(await buildCapabilityReport(h.home.paths));
    expect(report.json<{ revision: number }>().revision).toBe(1);

    const status = await runCli(["caps", "status", "--json"], { env: h.home.env });
    expect(status.code).toBe(0);
    const body = status.json<{
      manifest: { revision: number; skills: object };
      last_sync: { success: boolean; skills: unknown[] };
    }>();
    expect(body.manifest.revision).toBe(1);
    expect(Object.keys(body.manifest.skills)).toEqual(["browser"]);
    expect(body.last_sync.success).toBe(false);
    expect(body.last_sync.skills).toEqual([
      { id: 101, name: "browser", status: "synced" },
      { id: 5, name: "gone", status: "failed", error: "Capability package download failed with HTTP 404" },
    ]);

    const human = await runCli(["caps", "status"], { env: h.home.env });
    expect(human.stdout).toContain("skill gone: failed — Capability package download failed with HTTP 404");
    const humanReport = await runCli(["caps", "report"], { env: h.home.env });
    expect(humanReport.stdout).toContain("browser  [wegent]");
  });

  it("exits 2 with usage for an unknown subcommand or option", async () => {
    const unknown = await runCli(["caps", "sync"], { env: h.home.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown subcommand "sync"');
    const option = await runCli(["caps", "report", "--jsn"], { env: h.home.env });
    expect(option.code).toBe(2);
  });
});
