// `task:execute` with the real Codex CLI (node_modules/.bin/codex, 0.169.0) run by the real app against
// the real test backend. The scripted Responses API is the only fake; Codex is pointed at it with
// `-c model_providers.fake.*` overrides from the settings (`agents.codexArgs`), never a default.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  callThenText,
  codexProviderArgs,
  startScriptedOpenAi,
  type ResponsesScript,
  type ScriptedOpenAi,
} from "../../support/scripted-openai.js";
import { completedText, dataOf, HAVE_CODEX, startTaskApp, taskPayload, type TaskApp } from "./harness.js";
import { realProgram } from "../../support/programs.js";

let app: TaskApp | undefined;
let api: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

async function startWith(script: ResponsesScript): Promise<TaskApp> {
  api = await startScriptedOpenAi(script);
  app = await startTaskApp({
    env: { FAKE_KEY: "scripted-key" },
    // The provider's key reaches Codex because the settings name it (agents get an allowlist of variables).
    settings: {
      agents: { codexArgs: codexProviderArgs(api.baseUrl) },
      environment: { inherit: ["FAKE_KEY"] },
    },
  });
  return app;
}

function codexTask(taskId: number, subtaskId: number, extra: Record<string, unknown> = {}) {
  return taskPayload(taskId, subtaskId, {
    bot: [{ shell_type: "Codex" }],
    model_config: { model_id: "fake-model" },
    ...extra,
  });
}

describe.skipIf(!HAVE_CODEX)("a Codex task from the backend", () => {
  it("runs codex exec --json against the scripted endpoint and its final message arrives as response.completed", async () => {
    const a = await startWith(() => ({ text: "Hello from Codex — ✓" }));
    a.send(codexTask(901, 9001, { prompt: "Say hello." }));
    const events = await a.untilTerminal(9001);
    expect(events[0]!.event).toBe("response.created");
    expect(dataOf(events[0]!)).toMatchObject({ shell_type: "Codex", response: { model: "fake-model" } });
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(completedText(events.at(-1)!)).toBe("Hello from Codex — ✓");
    const deltas = events.filter((e) => e.event === "response.output_text.delta").map(dataOf);
    expect(deltas).toEqual([expect.objectContaining({ delta: "Hello from Codex — ✓", offset: 0 })]);
    // CODEX_HOME did not exist yet: it was created (0700) as Codex itself would for ~/.codex.
    expect((await fs.stat(a.t.paths.codexHome)).mode & 0o777).toBe(0o700);
    // The prompt reached the model, and the thread is kept for the task's next turn.
    expect(JSON.stringify(api!.requests[0]!.input)).toContain("Say hello.");
    expect(a.services.tasks!.agentSession("901")).toMatchObject({ runtime: "codex" });
  });

  it("a command Codex runs is a tool block with its output, in the task's workdir", async () => {
    const a = await startWith(callThenText({ name: "exec_command", arguments: { cmd: "pwd" } }, "Ran pwd."));
    await a.setPolicy({
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: [realProgram("pwd")],
    });
    a.send(codexTask(902, 9002));
    const events = await a.untilTerminal(9002);
    expect(events.at(-1)!.event).toBe("response.completed");
    const block = dataOf(events.find((e) => e.event === "response.block.updated")!).block as Record<
      string,
      unknown
    >;
    const workdir = path.join(await fs.realpath(a.t.paths.defaultWorkspaceRoot), "902");
    expect(block).toMatchObject({ kind: "tool", name: "shell", status: "completed" });
    expect(String((block.input as { command: string }).command)).toContain("pwd");
    expect(String(block.output).trim()).toBe(workdir);
    expect(completedText(events.at(-1)!)).toBe("Ran pwd.");
  });

  it("a later turn resumes the Codex thread", async () => {
    const a = await startWith((request) => ({
      text: `seen ${JSON.stringify(request.input).includes("first") ? "first" : "nothing"}`,
    }));
    a.send(codexTask(903, 9003, { prompt: "first" }));
    await a.untilTerminal(9003);
    const thread = a.services.tasks!.agentSession("903")!.resumeId;
    a.send(codexTask(903, 9004, { prompt: "second" }));
    const second = await a.untilTerminal(9004);
    expect(completedText(second.at(-1)!)).toBe("seen first");
    expect(a.services.tasks!.agentSession("903")!.resumeId).toBe(thread);
  });
});
