import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import type { TaskEventSink } from "../../../src/device/deps.js";
import { MAX_REMEMBERED_CANCELS } from "../../../src/core/tasks/remembered-cancels.js";
import { createIdleTaskRegistry, RememberedCancels } from "../../../src/device/idle-task-registry.js";

describe("remembered cancels", () => {
  it("a cancel of an unknown subtask is applied when that subtask arrives within 10 minutes", () => {
    let now = 1_000;
    const cancels = new RememberedCancels(() => now);
    cancels.remember({ taskId: "5", subtaskId: "50" });
    now += 9 * 60 * 1000;
    expect(cancels.consume("5", "51")).toBe(false);
    expect(cancels.consume("5", "50")).toBe(true);
    expect(cancels.consume("5", "50")).toBe(false);
  });

  it("a flood of cancels for tasks that never come keeps at most 10 000, the oldest dropped first", () => {
    let now = 0;
    const cancels = new RememberedCancels(() => now);
    for (let i = 0; i < 30_000; i++) {
      now += 1;
      cancels.remember({ taskId: String(i), subtaskId: null });
    }
    expect(cancels.size()).toBe(MAX_REMEMBERED_CANCELS);
    expect(cancels.consume("19999", "1")).toBe(false);
    expect(cancels.consume("20000", "1")).toBe(true);
    expect(cancels.consume("29999", "1")).toBe(true);
    // A renewed cancel counts from its renewal: it outlives older ones.
    cancels.remember({ taskId: "20001", subtaskId: null });
    now += 10 * 60 * 1000 - 5_000;
    expect(cancels.consume("20002", "1")).toBe(false);
    expect(cancels.consume("20001", "1")).toBe(true);
  });

  it("a remembered cancel expires after 10 minutes", () => {
    let now = 0;
    const cancels = new RememberedCancels(() => now);
    cancels.remember({ taskId: "5", subtaskId: null });
    now += 10 * 60 * 1000;
    expect(cancels.consume("5", "1")).toBe(false);
  });

  it("close-session forgets the task's cancels, by task or by subtask", () => {
    const cancels = new RememberedCancels();
    cancels.remember({ taskId: "5", subtaskId: "50" });
    cancels.remember({ taskId: "5", subtaskId: null });
    cancels.remember({ taskId: "6", subtaskId: null });
    cancels.forgetTask("5");
    expect(cancels.size()).toBe(1);
  });

  it("with no task runner, a cancelled task:execute ends with response.incomplete, others with an error", () => {
    const events: Array<{ type: string; body: Record<string, unknown>; terminal: boolean }> = [];
    const sink: TaskEventSink = {
      emit: (type, body, o) => events.push({ type, body, terminal: !!o?.terminal }),
    };
    const tasks = createIdleTaskRegistry({ logger: createLogger({ sink: () => undefined }) });
    tasks.cancel({ taskId: "7", subtaskId: "70" }, sink);
    tasks.execute({ task_id: 7, subtask_id: 70, message_id: 3 }, sink);
    tasks.execute({ task_id: "8", subtask_id: "80" }, sink);
    tasks.execute({ task_id: 0, subtask_id: 1 }, sink);
    expect(events.map((e) => [e.type, e.terminal])).toEqual([
      ["response.created", false],
      ["response.incomplete", true],
      ["response.created", false],
      ["error", true],
    ]);
    expect(events[1]?.body).toMatchObject({
      event_type: "response.incomplete",
      task_id: 7,
      subtask_id: 70,
      message_id: 3,
      data: {
        type: "response.incomplete",
        response: { status: "cancelled", error: { code: "cancelled", message: "Task cancelled" } },
      },
    });
    expect(events[3]?.body).toMatchObject({
      task_id: 8,
      subtask_id: 80,
      data: { type: "error", code: "runtime_error" },
    });
    expect(tasks.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
  });
});
