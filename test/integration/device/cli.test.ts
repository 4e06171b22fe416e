import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { startHarness, type Harness } from "./harness.js";

let h: Harness | undefined;
let t: TempHome | undefined;
afterEach(async () => {
  await h?.close();
  await t?.cleanup();
  h = undefined;
  t = undefined;
});

describe("gatehouse status", () => {
  it("shows the running device's connection from E/status.json, the token's source and the approvals file", async () => {
    h = await startHarness();
    await h.setApprovals({ defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } });
    await h.device.start();
    await h.waitForState("registered");
    await h.device.flushStatus();

    const status = await runCli(["status", "--json"], {
      env: { ...h.t.env, WEGENT_AUTH_TOKEN: "test-token" },
    });
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      home: h.t.paths.executorHome,
      runner: { serving: false },
      connection: {
        state: "registered",
        running: true,
        pid: process.pid,
        deviceId: h.deviceId,
        backendUrl: h.backend.url,
      },
      device: { ok: true, deviceId: h.deviceId, backendUrl: h.backend.url },
      token: { source: "env" },
      approvals: { status: "ok", defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } },
    });
    expect(status.stdout).not.toContain("test-token");

    const text = await runCli(["status"], { env: h.t.env });
    expect(text.stdout).toContain(`Connection: registered with ${h.backend.url}`);
    // the runner got its token from its environment; this shell has none, and status says both
    expect(text.stdout).toContain(
      "Token:      from the running Gatehouse's environment (this shell has none)",
    );
  });

  it("on a fresh home it says what is missing and writes nothing", async () => {
    t = await makeTempHome();
    const status = await runCli(["status", "--json"], { env: t.env });
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      connection: null,
      device: { ok: false, error: "not set up yet (run `gatehouse login --backend URL`)" },
      token: { source: null },
      approvals: { status: "missing" },
      runner: { serving: false },
    });
    await expect(import("node:fs/promises").then((fs) => fs.access(t!.paths.executorHome))).rejects.toThrow();
  });
});

describe("gatehouse demo", () => {
  it("runs every step against the embedded test backend and exits 0", async () => {
    t = await makeTempHome();
    const demo = await runCli(["demo", "--json"], { env: t.env, timeoutMs: 90_000 });
    expect(demo.code).toBe(0);
    const result = demo.json<{ ok: boolean; steps: Array<{ name: string; ok: boolean }> }>();
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => s.name)).toEqual([
      "start the test backend",
      "prepare a temporary home",
      "connect and register",
      "take the backend's replace sync",
      'run "echo hello from gatehouse" sent by the backend',
      'stop "rm -rf ~/precious" at the gate',
      "send the capability report in a heartbeat",
    ]);
  });
});
