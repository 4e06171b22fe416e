import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { LEGACY_MCP_IDS_DETAIL } from "../../../src/demo-backend/rest.js";
import { codexPluginLinks } from "../../support/codex-plugin-links.js";
import { waitFor } from "../../support/wait-for.js";
import { startHarness, type Harness } from "./harness.js";

const run = promisify(execFile);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The verification commands, exactly as written in src/demo-backend/README.md. */
const CURL_LEGACY = `curl -s -X POST "$BACKEND/api/local-executor/devices/$DEVICE_ID/capabilities/sync" -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '{"mcp_ids":[1],"mode":"merge"}'`;
const CURL_INSTALLED = `curl -s -X POST "$BACKEND/api/local-executor/devices/$DEVICE_ID/capabilities/sync" -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '{"installed_skill_ids":[1336],"installed_plugin_ids":[],"installed_mcp_ids":[],"mode":"merge"}'`;

const curlInstalled = await run("sh", ["-c", "command -v curl"]).then(
  () => true,
  () => false,
);

/** Runs a curl command line through the shell; without curl, the identical request through fetch. */
async function curl(
  commandLine: string,
  env: { BACKEND: string; DEVICE_ID: string; TOKEN: string },
  body: string,
): Promise<{ status: number; body: string }> {
  if (curlInstalled) {
    const shellEnv = { ...process.env, ...env };
    const { stdout } = await run("sh", ["-c", commandLine], { env: shellEnv });
    const { stdout: code } = await run("sh", ["-c", `${commandLine} -o /dev/null -w '%{http_code}'`], {
      env: shellEnv,
    });
    return { status: Number(code), body: stdout };
  }
  const response = await fetch(
    `${env.BACKEND}/api/local-executor/devices/${env.DEVICE_ID}/capabilities/sync`,
    {
      method: "POST",
      headers: { Authorization: `Bearer ${env.TOKEN}`, "Content-Type": "application/json" },
      body,
    },
  );
  return { status: response.status, body: await response.text() };
}

async function linkTarget(p: string): Promise<string> {
  const target = await fs.readlink(p);
  return path.resolve(path.dirname(p), target);
}

describe("capability sync through the test backend", () => {
  it("curl with legacy mcp_ids gets 422 and the detail, and nothing changes on disk", async () => {
    if (!curlInstalled) console.info("curl is not installed: sending the identical request with fetch");
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    await waitFor(() => h!.backend.device(h!.deviceId)?.syncAcks.length, { what: "the replace sync" });
    const manifestBefore = await fs.readFile(h.t.paths.capabilityManifest, "utf8");

    const env = { BACKEND: h.backend.url, DEVICE_ID: h.deviceId, TOKEN: h.backend.token };
    const result = await curl(CURL_LEGACY, env, '{"mcp_ids":[1],"mode":"merge"}');
    expect(result.status).toBe(422);
    expect(JSON.parse(result.body)).toEqual({ detail: LEGACY_MCP_IDS_DETAIL });
    expect(LEGACY_MCP_IDS_DETAIL).toBe(
      "MCP capability sync is temporarily disabled for server-key IDs; use InstalledMCP IDs",
    );
    expect(await fs.readFile(h.t.paths.capabilityManifest, "utf8")).toBe(manifestBefore);
  });

  it("curl with installed ids gets 200 with per-item status, and the skill is in the store and linked for Claude and Codex", async () => {
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    const env = { BACKEND: h.backend.url, DEVICE_ID: h.deviceId, TOKEN: h.backend.token };
    const result = await curl(
      CURL_INSTALLED,
      env,
      '{"installed_skill_ids":[1336],"installed_plugin_ids":[],"installed_mcp_ids":[],"mode":"merge"}',
    );
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      success: true,
      skills: [{ id: 1336, name: "browser", status: "synced" }],
      plugins: [],
      mcps: [],
      errors: [],
    });

    const store = path.join(h.t.paths.capabilityStore, "skills", "1336-default-browser");
    expect(await fs.readFile(path.join(store, "SKILL.md"), "utf8")).toContain("name: browser");
    expect((await fs.stat(path.join(store, "scripts", "open.sh"))).mode & 0o111).not.toBe(0);
    for (const link of [
      path.join(h.t.home, ".claude/skills/browser"),
      path.join(h.t.home, ".codex/skills/browser"),
    ]) {
      expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
      expect(await linkTarget(link)).toBe(store);
    }
    // The next heartbeat carries the new report.
    await waitFor(
      () =>
        (h!.backend.device(h!.deviceId)?.lastReport?.skills as Array<{ name: string }> | undefined)?.some(
          (s) => s.name === "browser",
        ),
      { what: "a report with the browser skill" },
    );
  });

  it("the REST endpoint answers unknown ids 404, bad mode 422, a wrong token 401 and an offline device 409", async () => {
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    const post = (deviceId: string, body: unknown, token = h!.backend.token) =>
      fetch(`${h!.backend.url}/api/local-executor/devices/${deviceId}/capabilities/sync`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { detail: unknown } }));

    expect(await post(h.deviceId, { installed_skill_ids: [999], mode: "merge" })).toEqual({
      status: 404,
      body: { detail: "Installed skill 999 not found" },
    });
    const badMode = await post(h.deviceId, { installed_skill_ids: [1336], mode: "upsert" });
    expect(badMode.status).toBe(422);
    expect(badMode.body.detail).toEqual([
      { type: "literal_error", loc: ["body", "mode"], msg: "Input should be 'merge' or 'replace'" },
    ]);
    expect((await post(h.deviceId, { mode: "merge" }, "wrong")).status).toBe(401);
    expect(await post("device-nobody", { installed_skill_ids: [1336], mode: "merge" })).toEqual({
      status: 409,
      body: { detail: "Device device-nobody is offline" },
    });
  });

  it("a sync with an unknown mode gets an error ack and changes nothing", async () => {
    h = await startHarness({ installed: { skills: [1336], plugins: [9], mcps: [7] } });
    await h.device.start();
    await h.waitForState("registered");
    await waitFor(() => h!.backend.device(h!.deviceId)?.syncAcks.length, { what: "the replace sync" });
    const manifestBefore = await fs.readFile(h.t.paths.capabilityManifest, "utf8");
    const payload = { ...h.backend.syncPayload(h.deviceId, { skills: [], plugins: [], mcps: [] }, "upsert") };
    expect(await h.backend.syncCapabilities(h.deviceId, payload)).toEqual({
      success: false,
      error: "Invalid sync mode",
    });
    expect(await fs.readFile(h.t.paths.capabilityManifest, "utf8")).toBe(manifestBefore);
    expect(await fs.readdir(path.join(h.t.home, ".claude/skills"))).toEqual(["browser"]);
  });

  it("after a backend restart the device re-registers, takes the replace sync again, and no duplicate links appear", async () => {
    h = await startHarness({ installed: { skills: [1336, 1401], plugins: [9], mcps: [7] } });
    await h.device.start();
    await h.waitForState("registered");
    await waitFor(() => h!.backend.device(h!.deviceId)?.syncAcks.length === 1, {
      what: "the first replace sync",
    });
    expect(h.backend.device(h.deviceId)!.syncAcks[0]).toMatchObject({
      success: true,
      skills: [
        { id: 1336, name: "browser", status: "synced" },
        { id: 42, name: "image-gen", status: "synced" },
      ],
      plugins: [{ id: 9, name: "context7", status: "synced" }],
      mcps: [{ id: 7, name: "docs", status: "synced" }],
    });

    await h.backend.restart();
    await waitFor(() => h!.backend.eventsNamed("device:register").length === 2, {
      what: "a second registration",
    });
    await waitFor(() => h!.backend.device(h!.deviceId)?.syncAcks.length === 2, {
      what: "the second replace sync",
    });
    expect(h.backend.device(h.deviceId)!.syncAcks[1]).toMatchObject({ success: true });
    await h.waitForState("registered");

    const claudeSkills = (await fs.readdir(path.join(h.t.home, ".claude/skills"))).sort();
    const codexSkills = (await fs.readdir(path.join(h.t.home, ".codex/skills"))).sort();
    expect(claudeSkills).toEqual(["browser", "image-gen"]);
    expect(codexSkills).toEqual(["browser", "image-gen"]);
    expect((await fs.readdir(path.join(h.t.paths.capabilityStore, "skills"))).sort()).toEqual([
      "1336-default-browser",
      "42-default-image-gen",
    ]);
    expect(await codexPluginLinks(path.join(h.t.home, ".codex"))).toEqual([
      "context7-claude-plugins-official",
    ]);
    const registry = JSON.parse(
      await fs.readFile(path.join(h.t.home, ".claude/plugins/installed_plugins.json"), "utf8"),
    ) as { plugins: Record<string, unknown[]> };
    // Claude Code knows it as context7@gatehouse (docs/agent-clis.md); Codex by its backend key.
    expect(Object.keys(registry.plugins)).toEqual(["context7@gatehouse"]);
    expect(registry.plugins["context7@gatehouse"]).toHaveLength(1);
    // After each sync ack the device sends an extra heartbeat with the new report.
    await waitFor(() => (h!.backend.device(h!.deviceId)?.lastReport?.revision as number) >= 2, {
      what: "a report at revision 2",
    });
  });
});
