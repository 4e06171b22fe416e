// A task's terminal event while the backend is unreachable (device-protocol.md §6.2): kept on disk in
// E/outbox and sent once after the next registration — after a backend restart, and after the runner
// itself (`gatehouse serve`, a child process) was killed and started again on the same home. Real Claude Code, real app, real backend; the
// scripted model is the only fake. The turn waits in a Bash loop until the test creates a file.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { readStatusFile } from "../../../src/device/status-file.js";
import { outboxDir } from "../../../src/device/terminal-outbox.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import {
  startScriptedAnthropic,
  toolThenText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startServe, type ServeProcess } from "../approval-server/serve-process.js";
import {
  completedText,
  DEVICE_ID,
  HAVE_CLAUDE,
  startTaskApp,
  taskEnv,
  taskPayload,
  TOKEN,
  writeDeviceConfig,
  type TaskApp,
} from "./harness.js";

const FINAL = "Finished while the backend was away. ✓";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The model asks Bash to wait for `go`, then answers FINAL. */
async function scriptedModel(go: string): Promise<ScriptedAnthropic> {
  const api = await startScriptedAnthropic(
    toolThenText(
      { name: "Bash", input: { command: `while [ ! -e '${go}' ]; do sleep 0.1; done; echo released` } },
      FINAL,
    ),
  );
  cleanups.push(() => api.close());
  return api;
}

async function trustThisMachine(t: TempHome): Promise<void> {
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "full", ask: "off", askFallback: "deny" });
}

function completions(backend: TestBackend, subtaskId: number) {
  return backend.events.filter(
    (e) =>
      e.event === "response.completed" && (e.payload as { subtask_id?: number }).subtask_id === subtaskId,
  );
}

async function outboxFiles(t: TempHome): Promise<string[]> {
  return fs.readdir(outboxDir(t.paths.executorHome)).catch(() => [] as string[]);
}

describe.skipIf(!HAVE_CLAUDE)("terminal events while the backend is unreachable", () => {
  it("the backend stops during a task: after it is back, the completed event with the full text arrives exactly once", async () => {
    const t = await makeTempHome("gh-outbox-");
    cleanups.push(() => t.cleanup());
    const go = path.join(t.home, "go");
    const api = await scriptedModel(go);
    const backend = await startTestBackend({ token: TOKEN });
    cleanups.push(() => backend.close());
    const a: TaskApp = await startTaskApp({
      t,
      backend,
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
    });
    cleanups.push(() => a.close());
    await trustThisMachine(t);

    a.send(taskPayload(1201, 12001));
    await waitFor(() => a.eventsOf(12001).some((e) => e.event === "response.block.created"), {
      what: "the waiting Bash call",
      timeoutMs: 60_000,
    });
    await backend.stop();
    await waitFor(() => a.services.device!.state().state !== "registered", { what: "the device to notice" });
    await fs.writeFile(go, "");
    await waitFor(async () => (await outboxFiles(t)).includes("12001.json"), {
      what: "the completed event kept on disk",
      timeoutMs: 60_000,
    });
    expect(completions(backend, 12001)).toHaveLength(0);

    await backend.start();
    await waitFor(() => completions(backend, 12001).length > 0, {
      what: "the kept event after reconnecting",
    });
    const [completed] = completions(backend, 12001);
    expect(completedText(completed!)).toBe(FINAL);
    expect(await outboxFiles(t)).toEqual([]);

    // Another registration later sends nothing again.
    const registrations = backend.device(DEVICE_ID)!.registrations;
    await backend.restart();
    await waitFor(
      () => backend.device(DEVICE_ID)!.registrations > registrations && backend.isOnline(DEVICE_ID),
      {
        what: "the next registration",
      },
    );
    await a.services.device!.idle();
    expect(completions(backend, 12001)).toHaveLength(1);
    expect(a.eventsOf(12001).filter((e) => e.event === "response.created")).toHaveLength(1);
  });

  it("gatehouse serve is killed after the task ended offline: started again on the same home, it sends the event exactly once", async () => {
    const t = await makeTempHome("gh-outbox-restart-");
    cleanups.push(() => t.cleanup());
    const go = path.join(t.home, "go");
    const api = await scriptedModel(go);
    const backend = await startTestBackend({ token: TOKEN });
    cleanups.push(() => backend.close());
    await writeDeviceConfig(t, backend.url);
    await trustThisMachine(t);
    const env = taskEnv(t, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" });

    // The runner is the real `gatehouse serve` (the whole device side, as the tray app builds it).
    const startRunner = async (): Promise<ServeProcess> => {
      const serve = await startServe(env);
      cleanups.push(() => serve.stop("SIGKILL"));
      return serve;
    };

    const first = await startRunner();
    await waitFor(() => backend.isOnline(DEVICE_ID), { what: "the runner to register", timeoutMs: 15_000 });
    backend.send(DEVICE_ID, "task:execute", taskPayload(1301, 13001));
    await waitFor(
      () =>
        backend.events.some(
          (e) =>
            e.event === "response.block.created" &&
            (e.payload as { subtask_id?: number }).subtask_id === 13001,
        ),
      { what: "the waiting Bash call", timeoutMs: 60_000 },
    );
    await backend.stop();
    await waitFor(
      async () => {
        const status = await readStatusFile(t.paths);
        return status.status === "ok" && status.value.connection.state !== "registered";
      },
      { what: "the runner to notice the backend is gone" },
    );
    await fs.writeFile(go, "");
    await waitFor(async () => (await outboxFiles(t)).includes("13001.json"), {
      what: "the completed event kept on disk",
      timeoutMs: 60_000,
    });
    await first.stop("SIGKILL");
    expect(existsSync(path.join(outboxDir(t.paths.executorHome), "13001.json"))).toBe(true);

    await backend.start();
    await startRunner();
    await waitFor(() => completions(backend, 13001).length > 0, {
      what: "the kept event from the restarted runner",
      timeoutMs: 30_000,
    });
    expect(completedText(completions(backend, 13001)[0]!)).toBe(FINAL);
    await waitFor(async () => (await outboxFiles(t)).length === 0, { what: "the outbox to be empty" });

    const registrations = backend.device(DEVICE_ID)!.registrations;
    await backend.restart();
    await waitFor(
      () => backend.device(DEVICE_ID)!.registrations > registrations && backend.isOnline(DEVICE_ID),
      {
        what: "the next registration",
      },
    );
    expect(completions(backend, 13001)).toHaveLength(1);
  });
});
