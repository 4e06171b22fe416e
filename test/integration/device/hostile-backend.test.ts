// Issue 18, "Backend input can crash or stall the runner": a hostile backend sends frames its own
// encoder could never produce (written raw to the wire by the test backend). The runner is this test
// process: an exception escaping into Socket.IO would fail the run as an unhandled error.
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { TaskEventSink } from "../../../src/core/tasks/task-registry.js";
import { waitFor } from "../../support/wait-for.js";
import { DEVICE_ID, startTaskApp, taskPayload, type TaskApp } from "../tasks/harness.js";
import { startHarness, type Harness } from "./harness.js";

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const DEEP_ERROR_ACK = `{"error":${deep(50_000)}}`;
const TOO_DEEP = "the backend sent a message nested deeper than 64 levels";

let h: Harness | undefined;
let app: TaskApp | undefined;
afterEach(async () => {
  await h?.close();
  await app?.close();
  h = undefined;
  app = undefined;
});

describe("a hostile backend's acks", () => {
  it("a 50 000-deep `error` in the first heartbeat's ack fails that attempt and the loop keeps reconnecting", async () => {
    h = await startHarness();
    h.backend.behaviour.heartbeatRawReply = DEEP_ERROR_ACK;
    await h.device.start();
    const offline = await waitFor(
      () => h!.states.find((s) => s.state === "offline" && s.lastError?.includes(TOO_DEEP)) ?? null,
      { what: "an offline state naming the deep ack" },
    );
    expect(offline.nextRetryAt).not.toBeNull();
    // Still dialling: a second attempt reaches the backend.
    const attempts = h.backend.connectionAttempts;
    await waitFor(() => h!.backend.connectionAttempts > attempts, { what: "another connection attempt" });
    h.backend.behaviour.heartbeatRawReply = null;
    await h.waitForState("registered");
    await waitFor(() => (h!.backend.device(h!.deviceId)?.heartbeats.length ?? 0) > 0, {
      what: "a heartbeat the backend accepted",
    });
  });

  it("deep acks on later heartbeats count as failures: two in a row reconnect, then all is well again", async () => {
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    // "later" heartbeats: the one right after registering is part of registering (one failure there
    // ends the session at once), so the bad replies start only once it has been answered
    await waitFor(() => h!.states.some((s) => s.state === "registered" && s.lastHeartbeatAt), {
      what: "the first heartbeat after registering",
    });
    const registrations = h.backend.device(h.deviceId)!.registrations;
    h.backend.behaviour.heartbeatRawReply = DEEP_ERROR_ACK;
    await waitFor(
      () =>
        h!.states.find(
          (s) => s.state === "offline" && (s.lastError ?? "").includes("two heartbeats failed in a row"),
        ) ?? null,
      { what: "the connection to end after two failed heartbeats" },
    );
    h.backend.behaviour.heartbeatRawReply = null;
    await waitFor(() => h!.backend.device(h!.deviceId)!.registrations > registrations, {
      what: "a new registration",
    });
    await h.waitForState("registered");
  });
});

describe("a hostile backend's events", () => {
  it("every event with an ack is answered at once with an error when it breaks the budget, and nothing changes", async () => {
    h = await startHarness();
    h.backend.behaviour.syncOnRegister = false;
    await h.device.start();
    await h.waitForState("registered");
    const send = (event: string, payload: string) =>
      h!.backend.sendRaw(h!.deviceId, event, payload, { ack: true, timeoutMs: 10_000 });

    const deepSync = `{"mode":"replace","skills":[],"mcps":[{"name":"x","server":${deep(50_000)}}]}`;
    expect(await send("device:sync_capabilities", deepSync)).toEqual({
      success: false,
      error: `Refused device:sync_capabilities: ${TOO_DEEP}`,
    });
    expect(await send("device:execute_command", `{"command":"echo hi","cwd":${deep(50_000)}}`)).toMatchObject(
      {
        success: false,
        exit_code: null,
        error: `Refused device:execute_command: ${TOO_DEEP}`,
      },
    );
    expect(await send("task:close-session", `{"task_id":${deep(50_000)}}`)).toEqual({
      success: false,
      error: `Refused task:close-session: ${TOO_DEEP}`,
    });
    const wide = `[${Array.from({ length: 250_000 }, () => "0").join(",")}]`;
    expect(await send("device:sync_capabilities", `{"mode":"merge","skills":${wide}}`)).toEqual({
      success: false,
      error: "Refused device:sync_capabilities: the backend sent a message more than 200000 values",
    });
    expect(await send("device:start_code_server_session", deep(50_000))).toEqual({
      success: false,
      error: "Unsupported event: device:start_code_server_session",
    });
    // Nothing was applied: no manifest was ever written.
    await expect(fs.access(h.t.paths.capabilityManifest)).rejects.toThrow();
    expect(h.device.state().state).toBe("registered");
  });
});

describe("a hostile backend's oversized frames (issue 30)", () => {
  it("a sync with one 30 MB field is refused with an answer, and the device stays registered", async () => {
    h = await startHarness();
    h.backend.behaviour.syncOnRegister = false;
    await h.device.start();
    await h.waitForState("registered");
    const registrations = h.backend.device(h.deviceId)!.registrations;
    const field = "x".repeat(30 * 1024 * 1024);
    const reply = await h.backend.sendRaw(
      h.deviceId,
      "device:sync_capabilities",
      `{"mode":"merge","skills":[{"name":"${field}"}]}`,
      { ack: true, timeoutMs: 10_000 },
    );
    expect(reply).toEqual({
      success: false,
      error: "Refused device:sync_capabilities: the backend sent a message larger than 16777216 characters",
    });
    expect(h.device.state().state).toBe("registered");
    expect(h.backend.device(h.deviceId)!.registrations).toBe(registrations);
    await expect(fs.access(h.t.paths.capabilityManifest)).rejects.toThrow();
  });

  it("a frame past the socket's own limit ends the connection, and the device registers again", async () => {
    h = await startHarness();
    h.backend.behaviour.syncOnRegister = false;
    await h.device.start();
    await h.waitForState("registered");
    const registrations = h.backend.device(h.deviceId)!.registrations;
    const field = "x".repeat(60 * 1024 * 1024);
    void h.backend
      .sendRaw(h.deviceId, "device:sync_capabilities", `{"mode":"merge","skills":[{"name":"${field}"}]}`, {
        ack: true,
        timeoutMs: 30_000,
      })
      .catch(() => undefined);
    await waitFor(() => h!.backend.device(h!.deviceId)!.registrations > registrations, {
      what: "a new registration after the dropped frame",
    });
    await h.waitForState("registered");
    // The new connection answers an oversized frame again.
    const reply = await h.backend.sendRaw(
      h.deviceId,
      "device:sync_capabilities",
      `{"skills":${deep(50_000)}}`,
      {
        ack: true,
        timeoutMs: 10_000,
      },
    );
    expect(reply).toEqual({ success: false, error: `Refused device:sync_capabilities: ${TOO_DEEP}` });
  });
});

describe("a hostile backend's command", () => {
  it("a cwd of 30 000 `y/` segments is refused as a path and the command runs in the workspace instead", async () => {
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    await h.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    // Refused before any realpath (test/unit/workdir/real-form.test.ts counts the calls).
    const ack = (await h.backend.executeCommand(h.deviceId, {
      command: "pwd",
      cwd: "y/".repeat(30_000),
    })) as {
      success: boolean;
      stdout: string;
      stderr: string;
    };
    expect(ack).toMatchObject({
      success: true,
      stdout: `${await fs.realpath(h.t.paths.defaultWorkspaceRoot)}\n`,
    });
    expect(ack.stderr).toContain("can't be used");
  });
});

describe("task slots under hostile requests", () => {
  it("five task:execute with a 50 000-deep message_id take no slot: the heartbeat shows the device idle", async () => {
    app = await startTaskApp();
    for (let i = 0; i < 5; i++) {
      const payload = JSON.stringify(taskPayload(100 + i, 1000 + i)).replace(
        /"message_id":\d+/,
        `"message_id":${deep(50_000)}`,
      );
      await app.backend.sendRaw(DEVICE_ID, "task:execute", payload);
    }
    const seen = app.backend.device(DEVICE_ID)!.heartbeats.length;
    const later = await waitFor(
      () => {
        const beats = app!.backend.device(DEVICE_ID)!.heartbeats;
        return beats.length >= seen + 2 ? beats.at(-1)! : null;
      },
      { what: "two more heartbeats" },
    );
    expect(later.runtime_capacity).toEqual({ limit: 5, active: 0, active_task_ids: [], queued: 0 });
    expect(app.logs.some((line) => line.includes(`Refused a task:execute event: ${TOO_DEEP}`))).toBe(true);
  });

  it("tasks whose events cannot be sent still give every slot back", async () => {
    app = await startTaskApp();
    const tasks = app.services.tasks!;
    // What socket.io did with a deep message_id: every emit throws.
    const throwingSink: TaskEventSink = {
      emit: () => {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    for (let i = 0; i < 6; i++) {
      tasks.execute(taskPayload(200 + i, 2000 + i, { bot: [{ shell_type: "NotAnAgent" }] }), throwingSink);
    }
    await tasks.idle();
    expect(tasks.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
    // And the slots are usable: a normal request still starts and ends.
    app.send(taskPayload(300, 3000, { bot: [{ shell_type: "NotAnAgent" }] }));
    const events = await app.untilTerminal(3000);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
  });
});
