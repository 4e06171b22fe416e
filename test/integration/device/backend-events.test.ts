// The small backend events of issue 31 against a whole app (the composition root `gatehouse serve`
// builds) and the test backend sending them as Wegent's backend does: `chat:message` (the legacy name of
// task:execute), `task:error` (a dispatch error ends the queued or running task), `device:upgrade`
// answered through `device:upgrade_status` (busy while tasks run, as Wegent's executor; the headless
// runner says it cannot upgrade itself), `runtime_features` in registration and heartbeats, and
// `device:run_extension` refused.
//
// The "agent" is a stand-in that answers the version check, then drops to uid 65534 and sleeps, so a task
// stays running without a model.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OTHER_UID, otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { dataOf, DEVICE_ID, startTaskApp, taskPayload, type TaskApp } from "../tasks/harness.js";

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

let t: TempHome;
let app: TaskApp;
let started: string;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runningAgentPid(): Promise<number> {
  const text = await waitFor(
    async () => (existsSync(started) ? (await fs.readFile(started, "utf8")).trim() : null),
    {
      what: "the stand-in agent to start",
    },
  );
  const pid = Number(text.split("\n").at(-1));
  await fs.rm(started);
  return pid;
}

describe.skipIf(otherUserUnavailable !== null)("the small backend events", () => {
  beforeAll(async () => {
    t = await makeTempHome("gh-events-");
    started = path.join(t.home, "agent-started");
    const agent = path.join(t.home, "sleeping-agent");
    await fs.writeFile(
      agent,
      // it answers the version check of task start as a supported Claude Code would
      `#!/bin/sh\ncase "$1" in --version) echo '2.1.332 (Claude Code)'; exit 0;; --help) exit 0;; esac\n` +
        `echo $$ >> '${started}'\nexec ${SETPRIV} --reuid=${OTHER_UID} --regid=${OTHER_UID} --clear-groups -- sleep 600\n`,
      { mode: 0o755 },
    );
    app = await startTaskApp({ t, maxConcurrentTasks: 1, settings: { agents: { claudePath: agent } } });
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await t?.cleanup();
  });

  it("registers and heartbeats with runtime_features naming no feature Gatehouse lacks", async () => {
    const record = app.backend.device(DEVICE_ID)!;
    expect(record.registration.runtime_features).toEqual({ schemaVersion: 1 });
    await waitFor(() => record.heartbeats.length > 0, { what: "a heartbeat" });
    expect(record.heartbeats.at(-1)!.runtime_features).toEqual({ schemaVersion: 1 });
  });

  it("handles chat:message as task:execute", async () => {
    app.backend.send(DEVICE_ID, "chat:message", taskPayload(500, 5000, { bot: [{ shell_type: "Nope" }] }));
    const events = await app.untilTerminal(5000);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(dataOf(events[1]!)).toMatchObject({
      code: "runtime_error",
      message: "Unsupported shell type: Nope",
    });
  });

  it("is busy while a task runs, and task:error ends the queued and the running task with the backend's message", async () => {
    app.send(taskPayload(501, 5001));
    const pid = await runningAgentPid();
    app.send(taskPayload(502, 5002));
    await waitFor(() => app.services.tasks!.snapshot().queued === 1, { what: "the second task to queue" });

    app.backend.upgradeDevice(DEVICE_ID);
    await waitFor(() => app.backend.upgradeStatuses.length === 1, { what: "device:upgrade_status" });
    expect(app.backend.upgradeStatuses[0]).toEqual({
      device_id: DEVICE_ID,
      status: "busy",
      message: "Cannot upgrade: tasks are running",
    });
    expect(await app.backend.call(DEVICE_ID, "device:upgrade", { auto_confirm: true })).toEqual({
      success: false,
      status: "busy",
      error: "Cannot upgrade: tasks are running",
      running_task_ids: ["501"],
    });

    app.backend.dispatchError(DEVICE_ID, 502, 5002, "No executor available for this team");
    const queued = await app.untilTerminal(5002);
    expect(queued.at(-1)!.event).toBe("error");
    expect(dataOf(queued.at(-1)!)).toMatchObject({ message: "No executor available for this team" });

    app.backend.dispatchError(DEVICE_ID, 501, 5001, "Dispatch failed: model quota exceeded");
    const running = await app.untilTerminal(5001);
    expect(running.at(-1)!.event).toBe("error");
    expect(dataOf(running.at(-1)!)).toMatchObject({ message: "Dispatch failed: model quota exceeded" });
    await waitFor(() => !alive(pid), { what: "the stopped task's agent to exit" });
    expect(app.services.tasks!.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
  });

  it("force_stop_tasks cancels the running task first; the headless runner then says it cannot upgrade itself", async () => {
    app.backend.upgradeStatuses.length = 0;
    app.send(taskPayload(503, 5003));
    await runningAgentPid();
    const ack = await app.backend.call(DEVICE_ID, "device:upgrade", { force_stop_tasks: true });
    expect(ack).toMatchObject({ success: false, already_latest: false, new_version: null });
    expect(String((ack as { error: string }).error)).toMatch(
      /headless runner \(gatehouse serve\) cannot upgrade itself/,
    );
    const cancelled = await app.untilTerminal(5003);
    expect(cancelled.at(-1)!.event).toBe("response.incomplete");
    expect(app.backend.upgradeStatuses.map((s) => s.status)).toEqual(["checking", "error"]);
    expect(app.backend.upgradeStatuses[1]!.message).toMatch(/^Upgrade failed: the headless runner/);
  });

  it("refuses device:run_extension with a clear error", async () => {
    const ack = (await app.backend.call(DEVICE_ID, "device:run_extension", {
      extension_name: "x",
      action: "run",
      task_id: 1,
      script_path: "scripts/x.sh",
    })) as Record<string, unknown>;
    expect(ack.success).toBe(false);
    expect(ack.message).toBe(ack.error);
    expect(String(ack.error)).toMatch(/^Gatehouse does not run device extensions/);
  });
});
