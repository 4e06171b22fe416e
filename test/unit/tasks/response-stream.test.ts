// One run's event stream (device-protocol.md §6.2): order, offsets in code points, the full text,
// tool blocks, and exactly one terminal event.
import { describe, expect, it } from "vitest";
import type { TaskEventSink } from "../../../src/device/deps.js";
import { newTaskRun } from "../../../src/core/tasks/task-events.js";
import { BLOCK_TEXT_LIMIT, ResponseStream } from "../../../src/executor/tasks/response-stream.js";

interface Sent {
  type: string;
  body: Record<string, unknown>;
  terminal: boolean;
}

function recorder(): { sink: TaskEventSink; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    sink: {
      emit: (type, body, options) => void sent.push({ type, body, terminal: options?.terminal === true }),
    },
  };
}

const run = newTaskRun(
  { taskId: 123, subtaskId: 456, messageId: 789, model: "m", shellType: "ClaudeCode" },
  () => 1_767_225_600_000,
);

function data(s: Sent): Record<string, unknown> {
  return s.body.data as Record<string, unknown>;
}

describe("ResponseStream", () => {
  it("deltas carry offsets in code points and the completed text is every delta joined", () => {
    const { sink, sent } = recorder();
    const stream = new ResponseStream(run, sink);
    stream.created();
    stream.message("hello 😀");
    stream.message("wörld");
    stream.completed("ignored when deltas were sent");
    expect(sent.map((s) => s.type)).toEqual([
      "response.created",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.completed",
    ]);
    expect(sent.slice(1, 3).map((s) => [data(s).delta, data(s).offset])).toEqual([
      ["hello 😀", 0],
      ["\n\nwörld", 7],
    ]);
    const response = data(sent[3]!).response as { output: Array<{ content: Array<{ text: string }> }> };
    expect(response.output[0]!.content[0]!.text).toBe("hello 😀\n\nwörld");
    expect(sent[3]).toMatchObject({
      terminal: true,
      body: { event_type: "response.completed", task_id: 123, subtask_id: 456, message_id: 789 },
    });
  });

  it("with no deltas the completed text is the runtime's own final text", () => {
    const { sink, sent } = recorder();
    const stream = new ResponseStream(run, sink);
    stream.completed("from result");
    expect(sent.map((s) => s.type)).toEqual(["response.created", "response.completed"]);
    expect(JSON.stringify(sent[1]!.body)).toContain('"text":"from result"');
  });

  it("nothing follows the terminal event, and a second terminal is refused", () => {
    const { sink, sent } = recorder();
    const stream = new ResponseStream(run, sink);
    expect(stream.incomplete("Task cancelled")).toBe(true);
    expect(stream.completed("late")).toBe(false);
    expect(stream.failed("late")).toBe(false);
    stream.message("late text");
    stream.note("late note");
    stream.toolStarted("t", "Bash", {});
    expect(sent.map((s) => s.type)).toEqual(["response.created", "response.incomplete"]);
    expect(stream.ended).toBe("incomplete");
  });

  it("tool blocks are created running and updated with the output and status", () => {
    const { sink, sent } = recorder();
    const stream = new ResponseStream(run, sink);
    stream.note("Working folder changed");
    stream.toolStarted("toolu_1", "Bash", { command: "pwd" });
    stream.toolFinished("toolu_1", "Bash", { command: "pwd" }, "/w", false);
    stream.toolFinished("toolu_2", "Bash", { command: "rm -rf /" }, "denied", true);
    expect(sent.map((s) => [s.type, data(s).block ?? data(s).delta])).toEqual([
      ["response.created", undefined],
      ["response.reasoning_summary_text.delta", "Working folder changed"],
      [
        "response.block.created",
        { id: "toolu_1", kind: "tool", name: "Bash", input: { command: "pwd" }, status: "running" },
      ],
      [
        "response.block.updated",
        {
          id: "toolu_1",
          kind: "tool",
          name: "Bash",
          input: { command: "pwd" },
          output: "/w",
          status: "completed",
        },
      ],
      [
        "response.block.created",
        { id: "toolu_2", kind: "tool", name: "Bash", input: { command: "rm -rf /" }, status: "running" },
      ],
      [
        "response.block.updated",
        {
          id: "toolu_2",
          kind: "tool",
          name: "Bash",
          input: { command: "rm -rf /" },
          output: "denied",
          status: "failed",
        },
      ],
    ]);
  });

  it("a huge tool output is cut so the event stays far below the backend's message limit", () => {
    const { sink, sent } = recorder();
    const stream = new ResponseStream(run, sink);
    stream.toolFinished("t", "Bash", { command: "cat big" }, "x".repeat(2_000_000), false);
    const block = data(sent.at(-1)!).block as { output: string };
    expect(block.output.length).toBeLessThanOrEqual(BLOCK_TEXT_LIMIT + 20);
    expect(block.output.endsWith("\n... (truncated)")).toBe(true);
  });

  it("an error event carries the runtime_error code and the message", () => {
    const { sink, sent } = recorder();
    new ResponseStream(run, sink).failed("Unsupported shell type: Dify");
    expect(data(sent[1]!)).toEqual({
      type: "error",
      code: "runtime_error",
      message: "Unsupported shell type: Dify",
    });
    expect(sent[1]!.terminal).toBe(true);
  });
});
