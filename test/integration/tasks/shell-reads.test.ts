// Secrets are unreadable through the shell (issue 27 class 4): a real Claude Code turn and a real Codex
// turn, through the real app and its hook, ask the shell to `cat` Gatehouse's approvals file through a
// glob (`~/.wegent-e*/…`), which no text match of the folder's name sees. The settings would run
// anything (security=full, askFallback=full) and nobody is there to answer: the read rule still refuses
// it (docs/decisions.md "One read rule"), the socket token reaches neither the model nor the task's
// output, and the audit log says why. The agents run as this test's user in a temp home; the gate
// blocks the read, so nothing leaves it. The model provider is the only fake.
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
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
import { HAVE_CLAUDE, HAVE_CODEX, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

/** Would run anything, and runs anything when nobody answers: only the read rule stands in the way. */
const TRUSTING = { security: "full", ask: "on-miss", askFallback: "full" } as const;
const COMMAND = "cat ~/.wegent-e*/exec-approvals.json";

let app: TaskApp | undefined;
let anthropic: ScriptedAnthropic | undefined;
let openai: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await anthropic?.close();
  await openai?.close();
  app = anthropic = openai = undefined;
});

async function token(a: TaskApp): Promise<string> {
  const file = JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")) as { socket: { token: string } };
  return file.socket.token;
}

/** The audit line of the refused read: who asked, that it was not allowed, and that E was the reason. */
async function refusalAudited(a: TaskApp, agentId: string): Promise<void> {
  const lines = (await fs.readFile(a.t.paths.audit, "utf8"))
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = lines.find((l) => String(l.command).includes("exec-approvals.json"));
  expect(line, "an audit line for the read").toBeDefined();
  expect(line).toMatchObject({ agentId, event: "decision" });
  expect(line?.decision).not.toMatch(/^allow/);
  expect(String(line?.reason)).toContain("own-files");
}

describe.skipIf(!HAVE_CLAUDE)("a Claude Code turn", () => {
  it("cat through a glob of Gatehouse's folder is refused: the token is in no tool result, the refusal is audited", async () => {
    anthropic = await startScriptedAnthropic((request) => {
      const done = request.messages.some(
        (m) =>
          m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
      );
      return done ? { text: "Done." } : { toolUse: { name: "Bash", input: { command: COMMAND } } };
    });
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "scripted-key" },
    });
    await app.setPolicy({ defaults: TRUSTING });
    app.send(taskPayload(2701, 27001));
    const events = await app.untilTerminal(27001);

    expect(events.at(-1)!.event).toBe("response.completed");
    const results = anthropic.requests
      .flatMap(toolResultsOf)
      .map((r) => toolResultText(r))
      .join("\n");
    // nobody could be asked, and askFallback=full does not open Gatehouse's folder
    expect(results).toContain("no-approver (own-files)");
    const secret = await token(app);
    expect(results).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(secret);
    await refusalAudited(app, "claude-code");
  });
});

describe.skipIf(!HAVE_CODEX)("a Codex turn", () => {
  it("cat through a glob of Gatehouse's folder is refused: the token is in no tool output, the refusal is audited", async () => {
    const outputs = (request: ResponsesRequest) =>
      (request.input ?? []).filter((item) => item.type === "function_call_output");
    openai = await startScriptedOpenAi((request) =>
      outputs(request).length > 0
        ? { text: "Done." }
        : { functionCall: { name: "exec_command", arguments: { cmd: COMMAND } } },
    );
    app = await startTaskApp({
      env: { FAKE_KEY: "scripted-key" },
      settings: {
        agents: { codexArgs: codexProviderArgs(openai.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      },
    });
    await app.setPolicy({ defaults: TRUSTING });
    app.send(
      taskPayload(2702, 27002, { bot: [{ shell_type: "Codex" }], model_config: { model_id: "fake-model" } }),
    );
    const events = await app.untilTerminal(27002);

    expect(events.at(-1)!.event).toBe("response.completed");
    const sent = JSON.stringify(openai.requests.flatMap(outputs).map((o) => o.output));
    expect(sent).toContain("no-approver (own-files)");
    const secret = await token(app);
    expect(sent).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(secret);
    await refusalAudited(app, "codex");
  });
});
