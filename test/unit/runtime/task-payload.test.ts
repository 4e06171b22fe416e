import { describe, expect, it } from "vitest";
import {
  parseTaskPayload,
  projectInfo,
  promptText,
  runtimeForShellType,
  type TaskPayload,
} from "../../../src/core/runtime/task-payload.js";

function payload(extra: Record<string, unknown> = {}): TaskPayload {
  const parsed = parseTaskPayload({ task_id: 1, subtask_id: 2, ...extra });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.payload;
}

describe("project tasks (device-protocol.md §8.1)", () => {
  it('{"project_id":0} is not a project task', () => {
    expect(projectInfo({ project_id: 0 })).toEqual({
      projectId: "0",
      standaloneChat: false,
      isProjectTask: false,
    });
  });

  it('{"project_id":0,"standalone_chat_workspace":true} is project task "0"', () => {
    expect(projectInfo({ project_id: 0, standalone_chat_workspace: true })).toMatchObject({
      projectId: "0",
      isProjectTask: true,
    });
  });

  it('{"workspace":{"project":{"project_id":42}}} is project task "42"', () => {
    expect(projectInfo({ workspace: { project: { project_id: 42 } } })).toMatchObject({
      projectId: "42",
      isProjectTask: true,
    });
  });

  it("takes the first present of project_id, projectId, workspace.project.project_id and .projectId, trimmed", () => {
    expect(projectInfo({ projectId: " 7 ", workspace: { project: { project_id: 8 } } }).projectId).toBe("7");
    expect(projectInfo({ project_id: null, projectId: 9 }).projectId).toBe("9");
    expect(projectInfo({ workspace: { project: { projectId: "11" } } }).projectId).toBe("11");
  });

  it("standaloneChatWorkspace (camel case) also marks a standalone chat", () => {
    expect(projectInfo({ project_id: "0", standaloneChatWorkspace: true }).isProjectTask).toBe(true);
  });

  it("a task without any project id, or with a blank one, is not a project task", () => {
    expect(projectInfo({}).isProjectTask).toBe(false);
    expect(projectInfo({ project_id: "  ", projectId: 5 }).isProjectTask).toBe(false);
  });
});

describe("the task:execute payload", () => {
  it("accepts task and subtask ids as positive integers or digit strings and keeps unknown fields", () => {
    const parsed = parseTaskPayload({ task_id: "12", subtask_id: 3, extra: { kept: true } });
    expect(parsed).toMatchObject({
      ok: true,
      payload: { task_id: 12, subtask_id: 3, extra: { kept: true } },
    });
  });

  it.each([[0], [-1], [1.5], ["12a"], [""], [null]])("refuses task_id %j with a clear error", (taskId) => {
    const parsed = parseTaskPayload({ task_id: taskId, subtask_id: 1 });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^Invalid task payload: task_id: /);
  });

  it("refuses a prompt that is neither text nor a content list", () => {
    expect(parseTaskPayload({ task_id: 1, subtask_id: 1, prompt: 5 }).ok).toBe(false);
  });
});

describe("shell types", () => {
  it("ClaudeCode runs Claude Code and Codex runs Codex", () => {
    expect(runtimeForShellType(payload({ bot: [{ shell_type: "ClaudeCode" }] }))).toEqual({
      ok: true,
      runtime: "claude-code",
    });
    expect(
      runtimeForShellType(payload({ bot: [{ shell_type: "Codex" }, { shell_type: "ClaudeCode" }] })),
    ).toEqual({
      ok: true,
      runtime: "codex",
    });
  });

  it("another shell type is an error value that names it", () => {
    expect(runtimeForShellType(payload({ bot: [{ shell_type: "Agno" }] }))).toEqual({
      ok: false,
      error: "Unsupported shell type: Agno",
    });
    expect(runtimeForShellType(payload({}))).toEqual({ ok: false, error: "Unsupported shell type: (none)" });
  });
});

describe("the prompt", () => {
  it("is passed as text; a content list gives its text parts joined by blank lines", () => {
    expect(promptText("hi")).toEqual({ text: "hi", skippedParts: 0 });
    expect(
      promptText([
        { type: "text", text: "first" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        "second",
      ]),
    ).toEqual({ text: "first\n\nsecond", skippedParts: 1 });
  });
});
