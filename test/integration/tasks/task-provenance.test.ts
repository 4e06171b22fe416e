// Task provenance with the real agent CLIs (issue 16 point 5): the real app launches Claude Code
// (2.1.197) and Codex (0.169.0) for backend tasks; each turn's agent process gets its own key, its hook
// proves every request with it, and the prompt the person sees is marked verified with the task's id.
// The key is forgotten when the turn's process has exited. Codex's own commands never see the key
// (`shell_environment_policy.exclude`). The scripted model endpoints are the only fakes; a test
// presenter (the broker's UI slot) stands for the person.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PromptRequest } from "../../../src/core/policy/types.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import {
  codexProviderArgs,
  startScriptedOpenAi,
  type ResponsesRequest,
  type ScriptedOpenAi,
} from "../../support/scripted-openai.js";
import { waitFor } from "../../support/wait-for.js";
import { HAVE_CLAUDE, HAVE_CODEX, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let claudeApi: ScriptedAnthropic | undefined;
let openAi: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await claudeApi?.close();
  await openAi?.close();
  app = claudeApi = openAi = undefined;
});

function nextPrompt(a: TaskApp): Promise<PromptRequest> {
  return waitFor(() => a.services.broker.list()[0], { what: "a prompt", timeoutMs: 60_000 });
}

describe.skipIf(!HAVE_CLAUDE)("a Claude Code task's requests are verified (claude 2.1.197)", () => {
  it("the prompt of its Bash call names the task as verified; denied, nothing runs; the key is gone once the task ended", async () => {
    claudeApi = await startScriptedAnthropic((request) =>
      request.messages.some(
        (m) =>
          m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
      )
        ? { text: "Done." }
        : { toolUse: { name: "Bash", input: { command: "touch marker-file" } } },
    );
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: claudeApi.url, ANTHROPIC_API_KEY: "scripted-key" },
    });
    await app.setPolicy({ defaults: ASK_ME });
    app.services.broker.attachUi();
    app.send(taskPayload(1601, 16001));

    const prompt = await nextPrompt(app);
    expect(prompt.verified).toEqual({ taskId: "1601", runtime: "claude-code", agent: "claude-code" });
    expect(prompt).toMatchObject({ sessionKey: "task:1601", source: "claude-hook" });
    expect(app.services.taskKeys.lookup("1601")).not.toBeNull();
    app.services.broker.decide(prompt.id, { decision: "deny" });

    const events = await app.untilTerminal(16001);
    expect(events.at(-1)!.event).toBe("response.completed");
    const folder = path.join(app.t.paths.defaultWorkspaceRoot, "1601");
    expect(existsSync(path.join(folder, "marker-file"))).toBe(false);
    const results = claudeApi.requests.flatMap(toolResultsOf).map((r) => toolResultText(r));
    expect(results.join("\n")).toContain("Gatehouse denied this command");
    await waitFor(() => app!.services.taskKeys.size === 0, { what: "the ended task's key to be forgotten" });
    const audit = (await fs.readFile(app.t.paths.audit, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit).toContainEqual(
      expect.objectContaining({
        command: "touch marker-file",
        decidedBy: "user",
        verified: { taskId: "1601", runtime: "claude-code", agent: "claude-code" },
      }),
    );
  });
});

function outputsOf(request: ResponsesRequest): Array<{ output?: unknown }> {
  return (request.input ?? []).filter((item) => item.type === "function_call_output");
}

describe.skipIf(!HAVE_CODEX)("a Codex task's requests are verified (codex-cli 0.169)", () => {
  it("the prompt of its command names the task as verified, and the command it runs never sees the key", async () => {
    openAi = await startScriptedOpenAi((request) =>
      outputsOf(request).length > 0
        ? { text: "Done." }
        : { functionCall: { name: "exec_command", arguments: { cmd: "env" } } },
    );
    app = await startTaskApp({
      env: { FAKE_KEY: "scripted-key" },
      settings: {
        agents: { codexArgs: codexProviderArgs(openAi.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      },
    });
    await app.setPolicy({ defaults: ASK_ME });
    app.services.broker.attachUi();
    app.send(
      taskPayload(1602, 16002, { bot: [{ shell_type: "Codex" }], model_config: { model_id: "fake-model" } }),
    );

    const prompt = await nextPrompt(app);
    expect(prompt.verified).toEqual({ taskId: "1602", runtime: "codex", agent: "codex" });
    const key = app.services.taskKeys.lookup("1602")!.key;
    expect(app.logger.redactor.text(`key ${key}`)).toBe("key [redacted]");
    app.services.broker.decide(prompt.id, { decision: "allow-once" });

    const events = await app.untilTerminal(16002);
    expect(events.at(-1)!.event).toBe("response.completed");
    const output = JSON.stringify(openAi.requests.flatMap(outputsOf).map((o) => o.output));
    expect(output).toContain("GATEHOUSE_TASK_ID=1602"); // `env` ran and printed the task's variables
    expect(output).not.toContain("GATEHOUSE_TASK_KEY");
    expect(output).not.toContain(key);
    await waitFor(() => app!.services.taskKeys.size === 0, { what: "the ended task's key to be forgotten" });
    // Nothing of the turn is left to send: the redactor drops the dead key instead of checking every
    // text against every key a long-running Gatehouse ever issued.
    await waitFor(() => app!.logger.redactor.text(key) === key, { what: "the redactor to drop the key" });
    expect(events.map((e) => JSON.stringify(e)).join("\n")).not.toContain(key);
  });
});
