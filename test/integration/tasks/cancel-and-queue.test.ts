// task:cancel, task:close-session, the FIFO queue and the §6.1 rules, with the real Claude Code CLI run
// by the real app against the real test backend (the scripted Messages API is the only fake). A
// long-running turn is a Bash call of a script the policy allows, which sleeps: Claude Code 2.1.332's
// Bash tool refuses a command that starts with `sleep N` itself ("Blocked: standalone sleep …"), before
// any hook, so a plain `sleep` would never run.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  toolThenText,
  type ScriptedAnthropic,
  type Script,
} from "../../support/scripted-anthropic.js";
import { waitFor } from "../../support/wait-for.js";
import {
  DEVICE_ID,
  HAVE_CLAUDE,
  dataOf,
  startTaskApp,
  taskPayload,
  type TaskApp,
  type TaskAppOptions,
} from "./harness.js";
import { alive, commandLine, HAVE_PROC, taskProcesses } from "./process-tree.js";
import { realProgram } from "../../support/programs.js";

const ALLOWLIST_ONLY = { security: "allowlist", ask: "off", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

/** A script that sleeps for its argument's seconds (as `sleep <n>`, its process's command line). */
let waitScript = "";

/** Each task's turn runs the wait script as long as its prompt says (`sleep <n>`), then says "slept". */
const sleepFromPrompt: Script = (request) => {
  const prompt = JSON.stringify(request.messages[0]?.content ?? "");
  const seconds = /sleep (\d+(?:\.\d+)?)/.exec(prompt)?.[1] ?? "0";
  return toolThenText({ name: "Bash", input: { command: `${waitScript} ${seconds}` } }, "slept")(request, 0);
};

async function start(options: TaskAppOptions = {}, script: Script = sleepFromPrompt): Promise<TaskApp> {
  api = await startScriptedAnthropic(script);
  app = await startTaskApp({
    ...options,
    env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key", ...options.env },
  });
  waitScript = path.join(app.t.home, "bin", "wait-a-while");
  await fs.mkdir(path.dirname(waitScript), { recursive: true });
  await fs.writeFile(waitScript, `#!/bin/sh\nexec ${realProgram("sleep")} "$1"\n`, { mode: 0o755 });
  await app.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [waitScript] });
  return app;
}

function cancel(a: TaskApp, payload: Record<string, unknown>): void {
  a.backend.send(DEVICE_ID, "task:cancel", payload);
}

describe.skipIf(!HAVE_CLAUDE)("cancelling and queueing Claude Code tasks", () => {
  it.skipIf(!HAVE_PROC)(
    "cancel during a run ends the agent's whole process tree within 5 s and emits response.incomplete",
    async () => {
      const a = await start();
      a.send(taskPayload(401, 4001, { prompt: "Please sleep 47.5 seconds." }));
      await waitFor(() => a.eventsOf(4001).some((e) => e.event === "response.block.created"), {
        what: "the Bash block",
        timeoutMs: 60_000,
      });
      const pids = await waitFor(
        () => {
          const found = taskProcesses(401);
          return found.some((pid) => commandLine(pid).includes("sleep 47.5")) ? found : null;
        },
        { what: "the agent and its sleep to run" },
      );
      expect(pids.length).toBeGreaterThanOrEqual(2);
      expect(a.services.tasks!.list()).toEqual([
        expect.objectContaining({ taskId: "401", subtaskId: "4001", agent: "claude-code" }),
      ]);

      const sent = Date.now();
      cancel(a, { task_id: 401, subtask_id: 4001 });
      let still: number[] = [];
      await waitFor(
        () => {
          still = [...new Set([...alive(pids), ...taskProcesses(401)])];
          return still.length === 0;
        },
        { timeoutMs: 5_000, what: "the process tree to end" },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; still running: ${still.map(commandLine).join("; ")}`);
      });
      expect(Date.now() - sent).toBeLessThan(5_000);
      const events = await a.untilTerminal(4001, 5_000);
      const last = events.at(-1)!;
      expect(last.event).toBe("response.incomplete");
      expect(dataOf(last)).toMatchObject({
        response: { status: "cancelled", error: { code: "cancelled", message: "Task cancelled" } },
      });
      expect(a.services.tasks!.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
      await a.services.tasks!.idle();
      expect(a.eventsOf(4001).at(-1)!.event).toBe("response.incomplete"); // nothing after it
    },
  );

  it("a cancel that arrives before its task prevents the run", async () => {
    const a = await start();
    cancel(a, { task_id: 402, subtask_id: 4002 });
    await waitFor(() => a.logs.some((l) => l.includes("remembered a cancel for task 402")), {
      what: "the cancel",
    });
    a.send(taskPayload(402, 4002, { prompt: "Please sleep 30 seconds." }));
    const events = await a.untilTerminal(4002);
    expect(events.map((e) => e.event)).toEqual(["response.created", "response.incomplete"]);
    expect(api!.requests).toHaveLength(0);
    expect(existsSync(path.join(a.t.paths.runtimeDir, "402"))).toBe(false);
  });

  it("with max_concurrent_tasks 1 the second task waits in the queue and starts when the first ends", async () => {
    const a = await start({ maxConcurrentTasks: 1 });
    a.send(taskPayload(501, 5001, { prompt: "Please sleep 1 seconds." }));
    a.send(taskPayload(502, 5002, { prompt: "Please sleep 0 seconds." }));
    await waitFor(() => a.eventsOf(5001).length > 0, { what: "the first task to start" });
    await waitFor(() => a.services.tasks!.snapshot().queued === 1, { what: "the second task to wait" });
    expect(a.services.tasks!.snapshot()).toEqual({
      runningTaskIds: ["501"],
      activeTaskIds: ["501"],
      queued: 1,
    });
    expect(a.eventsOf(5002)).toEqual([]); // not started: no response.created yet
    // The heartbeat the backend got while both were known.
    await waitFor(
      () =>
        a.backend
          .device(DEVICE_ID)!
          .heartbeats.some(
            (h) =>
              JSON.stringify(h.runtime_capacity) ===
              JSON.stringify({ limit: 1, active: 1, active_task_ids: ["501"], queued: 1 }),
          ),
      { what: "a heartbeat with one active and one queued task" },
    );
    const first = await a.untilTerminal(5001);
    const second = await a.untilTerminal(5002);
    expect(first.at(-1)!.event).toBe("response.completed");
    expect(second.at(-1)!.event).toBe("response.completed");
    expect(second[0]!.at).toBeGreaterThanOrEqual(first.at(-1)!.at);
  });

  it("a queued task that is cancelled never starts; another run of the same task is cancelled first", async () => {
    const a = await start({ maxConcurrentTasks: 1 });
    a.send(taskPayload(601, 6001, { prompt: "Please sleep 30 seconds." }));
    a.send(taskPayload(602, 6002, { prompt: "Please sleep 0 seconds." }));
    await waitFor(() => a.services.tasks!.snapshot().queued === 1, { what: "the queue" });
    cancel(a, { task_id: 602 });
    const queued = await a.untilTerminal(6002);
    expect(queued.map((e) => e.event)).toEqual(["response.created", "response.incomplete"]);

    // A new turn of task 601 replaces the running one: that run ends with "Task cancelled" first.
    a.send(taskPayload(601, 6003, { prompt: "Please sleep 0 seconds." }));
    const replaced = await a.untilTerminal(6001);
    expect(replaced.at(-1)!.event).toBe("response.incomplete");
    const next = await a.untilTerminal(6003);
    expect(next.at(-1)!.event).toBe("response.completed");
    expect(next[0]!.at).toBeGreaterThanOrEqual(replaced.at(-1)!.at);
  });

  it("close-session stops the run with 'Task session closed', acks, and the next turn starts a new session", async () => {
    const a = await start();
    a.send(taskPayload(701, 7001, { prompt: "Please sleep 0 seconds." }));
    await a.untilTerminal(7001);
    const before = a.services.tasks!.agentSession("701");
    expect(before).not.toBeNull();

    a.send(taskPayload(701, 7002, { prompt: "Please sleep 30 seconds." }));
    await waitFor(() => a.eventsOf(7002).some((e) => e.event === "response.block.created"), {
      what: "the second turn to run",
      timeoutMs: 60_000,
    });
    const ack = await a.backend.call(DEVICE_ID, "task:close-session", { task_id: 701 });
    expect(ack).toEqual({ success: true });
    const closed = a.eventsOf(7002).at(-1)!;
    expect(closed.event).toBe("response.incomplete");
    expect(dataOf(closed)).toMatchObject({ response: { error: { message: "Task session closed" } } });
    expect(a.services.tasks!.agentSession("701")).toBeNull();
    if (HAVE_PROC) expect(taskProcesses(701)).toEqual([]);

    a.send(taskPayload(701, 7003, { prompt: "Please sleep 0 seconds." }));
    await a.untilTerminal(7003);
    expect(a.services.tasks!.agentSession("701")!.resumeId).not.toBe(before!.resumeId);
    expect(await a.backend.call(DEVICE_ID, "task:close-session", { task_id: "abc" })).toEqual({
      success: false,
      error: "task_id is required",
    });
  });

  it("the user can stop a running task from the UI; the list and its listener follow", async () => {
    const a = await start();
    const changes: number[] = [];
    const tasks = a.services.tasks!;
    const off = tasks.onChange(() => changes.push(tasks.list().length));
    a.send(taskPayload(801, 8001, { prompt: "Please sleep 30 seconds." }));
    await waitFor(() => tasks.list().some((t) => t.workdir !== null), { what: "the running task" });
    const [running] = tasks.list();
    expect(running).toMatchObject({
      taskId: "801",
      subtaskId: "8001",
      agent: "claude-code",
      workdir: path.join(await fs.realpath(a.t.paths.defaultWorkspaceRoot), "801"),
    });
    expect(running!.startedAt).toBeGreaterThan(0);
    expect(await tasks.stop("801")).toBe(true);
    expect(tasks.list()).toEqual([]);
    const events = await a.untilTerminal(8001);
    expect(events.at(-1)!.event).toBe("response.incomplete");
    expect(changes).toContain(1);
    expect(changes.at(-1)).toBe(0);
    expect(await tasks.stop("801")).toBe(false);
    off();
  });
});
