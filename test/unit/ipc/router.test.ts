// The router's contract checks: an invalid request on any channel is refused with a clear error and
// changes nothing; only trusted senders are served; answers outside the contract are caught; events
// reach subscribers until they unsubscribe.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHANNELS, CONTRACT, EVENTS, EVENT_CONTRACT, type Channel } from "../../../src/ipc/contract.js";
import { waitFor } from "../../support/wait-for.js";
import { snapshotHome, startRouterFixture, type RouterFixture } from "./router-fixture.js";

let f: RouterFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** One invalid request per channel, chosen to look plausible (a wrong type, a missing or extra field). */
const INVALID: Record<Channel, unknown> = {
  "prompts.list": { all: true },
  "prompts.decide": { id: "run_1", decision: "allow-forever" },
  "allowlist.get": { agentId: "x" },
  "allowlist.setSettings": { agentId: "*", security: "maybe" },
  "allowlist.addEntry": { agentId: "*", entry: { pattern: 42 } },
  "allowlist.updateEntry": { agentId: "*", entry: { pattern: "/usr/bin/git" } },
  "allowlist.deleteEntry": { agentId: "", id: "x" },
  "allowlist.duplicateEntry": { agentId: "*" },
  "allowlist.checkEntry": { entry: { pattern: "/usr/bin/git", usesLeft: -1 } },
  "allowlist.explain": { agentId: "*", command: ["git", "status"] },
  "allowlist.preview": { agentId: "*", entry: { pattern: "/usr/bin/git" }, limit: 0 },
  "capabilities.get": { workspace: 7 },
  "capabilities.requestSync": { items: ["browser"] },
  "capabilities.cancelSync": { force: true },
  "capabilities.openFolder": { path: ["/tmp"] },
  "workdir.get": { refresh: true },
  "workdir.addRoot": { root: "/tmp" },
  "workdir.removeRoot": {},
  "workdir.removeBinding": { taskId: "1" },
  "workdir.addRepo": { repo: "git@github.com:a/b.git" },
  "workdir.removeRepo": { repo: "", branch: "main" },
  "workdir.check": { path: null },
  "status.get": { verbose: 1 },
  "activity.list": { limit: 100_000 },
  "settings.get": { token: true },
  "settings.setBackendUrl": { url: 5 },
  "settings.setToken": {},
  "settings.clearToken": { now: true },
  "settings.setLaunchAtLogin": { enabled: "yes" },
  "settings.setExecEvents": { enabled: "yes" },
  "settings.applyPreset": { preset: "yolo" },
  "settings.rotateSocketToken": { token: "mine" },
  "settings.openLogs": { path: "/" },
  "device.setPaused": { paused: "true" },
  "elevation.start": { agentId: "*", forMs: 9 * 60 * 60_000 },
  "elevation.end": { agentId: "" },
  "tasks.stop": { taskId: 42 },
  "terminals.close": { sessionId: 7 },
  "app.revealPath": { path: ["/"] },
  "app.copyText": {},
  "app.openExternal": { href: "https://example.com" },
  "app.pickFolder": { title: 3 },
  "app.openMainWindow": { screen: "secret-screen" },
  "app.platform": { platform: "linux" },
};

describe("the IPC contract", () => {
  it("declares every channel once, each with a request and a response schema", () => {
    expect(new Set(CHANNELS).size).toBe(CHANNELS.length);
    expect(Object.keys(CONTRACT).sort()).toEqual([...CHANNELS].sort());
    for (const channel of CHANNELS) {
      expect(CONTRACT[channel].request).toBeDefined();
      expect(CONTRACT[channel].response).toBeDefined();
    }
    expect(Object.keys(EVENT_CONTRACT).sort()).toEqual([...EVENTS].sort());
  });

  it("every invalid example really is invalid for its channel's schema", () => {
    for (const channel of CHANNELS) {
      expect(CONTRACT[channel].request.safeParse(INVALID[channel]).success, channel).toBe(false);
    }
  });
});

describe("the router", () => {
  it.each(CHANNELS)("refuses an invalid %s request with bad_request and changes nothing", async (channel) => {
    f = await startRouterFixture();
    const before = await snapshotHome(f.t.home);
    const result = await f.call(channel, INVALID[channel]);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("bad_request");
    expect(result.error?.message).toMatch(new RegExp(`^Invalid ${channel.replace(".", "\\.")} request: .+`));
    // Not a request of another shape either: a bare string is refused the same way.
    expect((await f.call(channel, "not an object")).error?.code).toBe("bad_request");
    expect(await snapshotHome(f.t.home)).toEqual(before);
    expect(f.host).toMatchObject({
      revealed: [],
      opened: [],
      copied: [],
      external: [],
      loginItem: [],
      mainWindow: [],
    });
  });

  it("names the field that is wrong", async () => {
    f = await startRouterFixture();
    const result = await f.call("allowlist.setSettings", { agentId: "*", security: "maybe" });
    expect(result.error?.message).toContain("security");
  });

  it("refuses calls from a sender that is not one of the app's windows, before looking at them", async () => {
    f = await startRouterFixture();
    const before = await snapshotHome(f.t.home);
    const result = await f.router.handle("settings.applyPreset", { preset: "trust" }, { stranger: true });
    expect(result).toEqual({
      ok: false,
      error: { code: "forbidden", message: "This window may not talk to Gatehouse." },
    });
    expect(await snapshotHome(f.t.home)).toEqual(before);
  });

  it("refuses an unknown channel", async () => {
    f = await startRouterFixture();
    const result = await f.call("approvals.deleteEverything", {});
    expect(result).toMatchObject({ ok: false, error: { code: "unknown_channel" } });
    expect((await f.call("__proto__", {})).error?.code).toBe("unknown_channel");
  });

  it("answers a valid request with a value that matches the contract", async () => {
    f = await startRouterFixture();
    const result = await f.call("status.get", {});
    expect(result.ok).toBe(true);
    expect(CONTRACT["status.get"].response.safeParse(result.value).success).toBe(true);
  });

  it("catches a service answer outside the contract instead of passing it to the renderer", async () => {
    f = await startRouterFixture({
      ui: (ui) => ({
        ...ui,
        device: {
          state: () =>
            ({ state: "dancing" }) as unknown as ReturnType<NonNullable<typeof ui.device>["state"]>,
          onState: () => () => undefined,
          pause: async () => undefined,
          resume: async () => undefined,
          tokenChanged: async () => undefined,
        },
      }),
    });
    const result = await f.call("status.get", {});
    expect(result).toEqual({
      ok: false,
      error: { code: "bad_response", message: "status.get gave an answer Gatehouse did not expect." },
    });
  });

  it("reports a failing service as an error with the channel's name", async () => {
    f = await startRouterFixture({
      ui: (ui) => ({
        ...ui,
        audit: {
          path: ui.audit.path,
          append: ui.audit.append,
          read: async () => {
            throw new Error("disk on fire");
          },
        },
      }),
    });
    expect(await f.call("activity.list", {})).toEqual({
      ok: false,
      error: { code: "failed", message: "activity.list failed: disk on fire" },
    });
  });
});

describe("router events", () => {
  it("an approvals file edited elsewhere reaches allowlist.changed subscribers until they unsubscribe", async () => {
    f = await startRouterFixture();
    const fx = f;
    let count = 0;
    const stop = fx.router.subscribe("allowlist.changed", () => void count++);
    await fx.services.approvals.addEntry("*", { pattern: "/usr/bin/git" });
    await waitFor(() => count >= 1, { what: "allowlist.changed" });
    stop();
    const seen = count;
    await fx.services.approvals.addEntry("*", { pattern: "/usr/bin/grep" });
    // The change event of the second write would have arrived by the time a third one is seen elsewhere.
    let other = 0;
    const probe = fx.router.subscribe("allowlist.changed", () => void other++);
    await fx.services.approvals.addEntry("*", { pattern: "/usr/bin/sed" });
    await waitFor(() => other >= 1, { what: "the probe's event" });
    probe();
    expect(count).toBe(seen);
  });

  it("a new prompt reaches prompts.changed subscribers with the pending list", async () => {
    f = await startRouterFixture();
    const fx = f;
    const got: unknown[] = [];
    fx.router.subscribe("prompts.changed", (payload) => got.push(payload));
    const asked = fx.services.broker.request({
      id: "run_test",
      sessionKey: "s",
      agentId: "local",
      source: "cli",
      cwd: fx.t.home,
      command: { argv: ["ls"] },
      explanation: await fx.ui.explain({ command: "ls" }, { agentId: "local", cwd: fx.t.home }),
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    await waitFor(() => got.length === 1, { what: "prompts.changed" });
    expect(got[0]).toMatchObject({ prompts: [{ id: "run_test", commandText: "ls", agentId: "local" }] });
    fx.services.broker.decide("run_test", { decision: "deny" });
    await asked;
    await waitFor(() => got.length === 2, { what: "the removal" });
    expect(got[1]).toEqual({ prompts: [] });
  });

  it("workdir changes and connection changes reach their subscribers", async () => {
    f = await startRouterFixture();
    const fx = f;
    const changes: unknown[] = [];
    const states: string[] = [];
    fx.router.subscribe("workdir.changed", (payload) => changes.push(payload));
    fx.router.subscribe("status.connection", (payload) => states.push(payload.state));
    await fs.mkdir(path.join(fx.t.home, "Projects"));
    const added = await fx.call("workdir.addRoot", { path: path.join(fx.t.home, "Projects") });
    expect(added).toMatchObject({ ok: true, value: { ok: true } });
    // other changes (the bindings file's watcher) may arrive too; the roots change must be among them
    await waitFor(() => changes.some((c) => JSON.stringify(c) === JSON.stringify({ change: "roots" })), {
      what: "workdir.changed with the roots change",
    });
    await fx.call("device.setPaused", { paused: true });
    await waitFor(() => states.includes("paused"), { what: "the paused state" });
  });

  it("after close(), subscribers hear nothing more", async () => {
    f = await startRouterFixture();
    const fx = f;
    let count = 0;
    fx.router.subscribe("allowlist.changed", () => void count++);
    await fx.router.close();
    await fx.services.approvals.addEntry("*", { pattern: "/usr/bin/git" });
    // Give a watcher a chance to fire if it were still there: poll a moment on the observable count.
    await expect(waitFor(() => count > 0, { timeoutMs: 300 })).rejects.toThrow();
  });
});
