// The agent output parsers, fed lines recorded from the real CLIs (claude 2.1.197 stream-json,
// codex-cli 0.169.0 exec --json).
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentStreamParser } from "../../../src/executor/tasks/agent-events.js";
import { createClaudeStreamParser } from "../../../src/executor/tasks/claude-stream.js";
import { createCodexStreamParser } from "../../../src/executor/tasks/codex-stream.js";

function feed(parser: AgentStreamParser, lines: unknown[]): AgentEvent[] {
  return lines.flatMap((line) => parser.line(typeof line === "string" ? line : JSON.stringify(line)));
}

describe("Claude Code stream-json", () => {
  const session = "1fe111f1-b5ca-4ed1-a332-01e074df4811";

  it("a Bash turn gives the session id, the tool call, its output and the final text", () => {
    const events = feed(createClaudeStreamParser(), [
      { type: "system", subtype: "init", cwd: "/w", session_id: session, tools: ["Bash"] },
      {
        type: "assistant",
        message: {
          content: [
            {
              type: "tool_use",
              id: "toolu_1",
              name: "Bash",
              input: { command: "pwd", description: "Print dir" },
            },
          ],
        },
        parent_tool_use_id: null,
        session_id: session,
      },
      {
        type: "user",
        message: {
          role: "user",
          content: [{ tool_use_id: "toolu_1", type: "tool_result", content: "/w", is_error: false }],
        },
        parent_tool_use_id: null,
      },
      {
        type: "assistant",
        message: { content: [{ type: "text", text: "Done: ünïcode 😀" }] },
        parent_tool_use_id: null,
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        result: "Done: ünïcode 😀",
        session_id: session,
      },
    ]);
    expect(events).toEqual([
      { kind: "session", id: session },
      // the init event's tool list: the Skill tool checks permissions against it
      { kind: "tools", names: ["Bash"] },
      {
        kind: "tool-started",
        id: "toolu_1",
        name: "Bash",
        input: { command: "pwd", description: "Print dir" },
      },
      {
        kind: "tool-finished",
        id: "toolu_1",
        name: "Bash",
        input: { command: "pwd", description: "Print dir" },
        output: "/w",
        isError: false,
      },
      { kind: "text", text: "Done: ünïcode 😀" },
      { kind: "session", id: session },
      { kind: "completed", text: "Done: ünïcode 😀" },
    ]);
  });

  it("a refused command's tool_result is an error with the hook's reason, given as text blocks", () => {
    const parser = createClaudeStreamParser();
    feed(parser, [
      { type: "assistant", message: { content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] } },
    ]);
    expect(
      feed(parser, [
        {
          type: "user",
          message: {
            content: [
              {
                type: "tool_result",
                tool_use_id: "t",
                is_error: true,
                content: [{ type: "text", text: "Gatehouse denied this command" }, { type: "image" }],
              },
            ],
          },
        },
      ]),
    ).toEqual([
      {
        kind: "tool-finished",
        id: "t",
        name: "Bash",
        input: {},
        output: "Gatehouse denied this command[image]",
        isError: true,
      },
    ]);
  });

  it("an error result fails the turn with the runtime's message", () => {
    expect(
      feed(createClaudeStreamParser(), [
        { type: "result", subtype: "success", is_error: true, result: "API Error: 500 boom" },
        { type: "result", subtype: "error_max_turns", is_error: true, errors: [] },
        { type: "result", subtype: "error_during_execution", errors: ["No conversation found"] },
      ]),
    ).toEqual([
      { kind: "failed", message: "API Error: 500 boom" },
      { kind: "failed", message: "Claude Code ended the turn with error_max_turns" },
      { kind: "failed", message: "No conversation found" },
    ]);
  });

  it("a sub-agent's own text is not part of the answer, and non-JSON lines are ignored", () => {
    expect(
      feed(createClaudeStreamParser(), [
        "not json",
        "",
        "[1,2]",
        {
          type: "assistant",
          parent_tool_use_id: "toolu_task",
          message: { content: [{ type: "text", text: "inner" }] },
        },
        {
          type: "assistant",
          message: {
            content: [
              { type: "thinking", thinking: "hmm" },
              { type: "text", text: "outer" },
            ],
          },
        },
      ]),
    ).toEqual([{ kind: "text", text: "outer" }]);
  });
});

describe("Codex exec --json", () => {
  it("a command turn gives the thread id, the command block, the message and the end of the turn", () => {
    const events = feed(createCodexStreamParser(), [
      { type: "thread.started", thread_id: "01a1fe11-8dfc-7130-86ae-08c17f6967f6" },
      {
        type: "item.completed",
        item: { id: "item_0", type: "error", message: "Model metadata for `fake-model` not found." },
      },
      { type: "turn.started" },
      {
        type: "item.started",
        item: {
          id: "item_1",
          type: "command_execution",
          command: "/bin/bash -lc pwd",
          aggregated_output: "",
          exit_code: null,
          status: "in_progress",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "item_1",
          type: "command_execution",
          command: "/bin/bash -lc pwd",
          aggregated_output: "/w\n",
          exit_code: 0,
          status: "completed",
        },
      },
      { type: "item.completed", item: { id: "item_2", type: "agent_message", text: "Ran it." } },
      { type: "turn.completed", usage: { input_tokens: 20 } },
    ]);
    expect(events).toEqual([
      { kind: "session", id: "01a1fe11-8dfc-7130-86ae-08c17f6967f6" },
      { kind: "warning", message: "Model metadata for `fake-model` not found." },
      { kind: "tool-started", id: "item_1", name: "shell", input: { command: "/bin/bash -lc pwd" } },
      {
        kind: "tool-finished",
        id: "item_1",
        name: "shell",
        input: { command: "/bin/bash -lc pwd" },
        output: "/w\n",
        isError: false,
      },
      { kind: "text", text: "Ran it." },
      { kind: "completed", text: null },
    ]);
  });

  it("a failing command, an MCP call and a file change are blocks; a failed turn fails", () => {
    const events = feed(createCodexStreamParser(), [
      {
        type: "item.completed",
        item: {
          id: "a",
          type: "command_execution",
          command: "false",
          aggregated_output: "",
          exit_code: 1,
          status: "failed",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "b",
          type: "mcp_tool_call",
          server: "docs",
          tool: "search",
          arguments: { q: "x" },
          result: { content: [{ type: "text", text: "hit" }] },
          status: "completed",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "c",
          type: "file_change",
          changes: [{ path: "/w/a.txt", kind: "add" }],
          status: "completed",
        },
      },
      { type: "error", message: "Reconnecting... 1/5" },
      { type: "turn.failed", error: { message: "stream disconnected" } },
    ]);
    expect(events.filter((e) => e.kind === "tool-finished")).toEqual([
      {
        kind: "tool-finished",
        id: "a",
        name: "shell",
        input: { command: "false" },
        output: "",
        isError: true,
      },
      {
        kind: "tool-finished",
        id: "b",
        name: "docs.search",
        input: { q: "x" },
        output: "hit",
        isError: false,
      },
      {
        kind: "tool-finished",
        id: "c",
        name: "file_change",
        input: { changes: [{ path: "/w/a.txt", kind: "add" }] },
        output: "add /w/a.txt",
        isError: false,
      },
    ]);
    expect(events.slice(-2)).toEqual([
      { kind: "warning", message: "Reconnecting... 1/5" },
      { kind: "failed", message: "stream disconnected" },
    ]);
  });
});
