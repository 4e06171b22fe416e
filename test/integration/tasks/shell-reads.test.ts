// Secrets are unreadable through the shell (issue 27 class 4): a real Claude Code turn and a real Codex
// turn, through the whole runner and its hook, ask the shell to `cat` Gatehouse's approvals file through
// a glob (`~/.wegent-e*/…`), which no text match of the folder's name sees. The settings would run
// anything (security=full, askFallback=full) and nobody is there to answer: the read rule still refuses
// it (docs/decisions.md "One read rule"), the socket token reaches neither the model nor the task's
// output, and the audit log says why. The runner runs as uid 65534 (other-user-runner.ts) in a temp home
// that user owns, so were the gate ever to let the command through, it would run with that user's
// rights only. That the command does print the token when no gate is in the way is shown, as the same
// user, by running it under bash in the same home. The model provider is the only fake.
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { otherUserUnavailable, runProgramAsOtherUser } from "../../support/other-user.js";
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
import { HAVE_CLAUDE, HAVE_CODEX, taskPayload } from "./harness.js";
import { startOtherUserRunner, type OtherUserRunner } from "./other-user-runner.js";

/** Would run anything, and runs anything when nobody answers: only the read rule stands in the way. */
const TRUSTING = { security: "full", ask: "on-miss", askFallback: "full" } as const;
const COMMAND = "cat ~/.wegent-e*/exec-approvals.json";

let runner: OtherUserRunner | undefined;
let anthropic: ScriptedAnthropic | undefined;
let openai: ScriptedOpenAi | undefined;
afterEach(async () => {
  await runner?.close();
  await anthropic?.close();
  await openai?.close();
  runner = anthropic = openai = undefined;
});

async function token(r: OtherUserRunner): Promise<string> {
  const file = JSON.parse(await fs.readFile(r.t.paths.approvals, "utf8")) as { socket: { token: string } };
  return file.socket.token;
}

/** The attack is real: the same command, as the same user in the same home with no gate, prints the token. */
async function commandPrintsTheToken(r: OtherUserRunner): Promise<void> {
  const ran = await runProgramAsOtherUser("/bin/bash", ["-c", COMMAND], {
    cwd: r.t.home,
    env: { HOME: r.t.home, PATH: "/usr/bin:/bin" },
    timeoutMs: 30_000,
  });
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain(await token(r));
}

/** The audit line of the refused read: who asked, that it was not allowed, and that E was the reason. */
async function refusalAudited(r: OtherUserRunner, agentId: string): Promise<void> {
  const line = (await r.audit()).find((l) => String(l.command).includes("exec-approvals.json"));
  expect(line, "an audit line for the read").toBeDefined();
  expect(line).toMatchObject({ agentId, event: "decision" });
  expect(line?.decision).not.toMatch(/^allow/);
  expect(String(line?.reason)).toContain("own-files");
}

describe.skipIf(otherUserUnavailable !== null || !HAVE_CLAUDE)(
  "a Claude Code turn (runner as uid 65534)",
  () => {
    it("cat through a glob of Gatehouse's folder is refused: the token is in no tool result, the refusal is audited", async () => {
      anthropic = await startScriptedAnthropic((request) =>
        toolResultsOf(request).length > 0
          ? { text: "Done." }
          : { toolUse: { name: "Bash", input: { command: COMMAND } } },
      );
      runner = await startOtherUserRunner({
        env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "scripted-key" },
        defaults: TRUSTING,
      });
      const events = await runner.run(taskPayload(2701, 27001), 27001);

      expect(events.at(-1)!.event).toBe("response.completed");
      const results = anthropic.requests
        .flatMap(toolResultsOf)
        .map((r) => toolResultText(r))
        .join("\n");
      // nobody could be asked, and askFallback=full does not open Gatehouse's folder
      expect(results).toContain("no-approver (own-files)");
      const secret = await token(runner);
      expect(results).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain(secret);
      await refusalAudited(runner, "claude-code");
      await commandPrintsTheToken(runner);
    }, 240_000);
  },
);

describe.skipIf(otherUserUnavailable !== null || !HAVE_CODEX)("a Codex turn (runner as uid 65534)", () => {
  it("cat through a glob of Gatehouse's folder is refused: the token is in no tool output, the refusal is audited", async () => {
    const outputs = (request: ResponsesRequest) =>
      (request.input ?? []).filter((item) => item.type === "function_call_output");
    openai = await startScriptedOpenAi((request) =>
      outputs(request).length > 0
        ? { text: "Done." }
        : { functionCall: { name: "exec_command", arguments: { cmd: COMMAND } } },
    );
    runner = await startOtherUserRunner({
      env: { FAKE_KEY: "scripted-key" },
      defaults: TRUSTING,
      settings: {
        agents: { codexArgs: codexProviderArgs(openai.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      },
    });
    const events = await runner.run(
      taskPayload(2702, 27002, { bot: [{ shell_type: "Codex" }], model_config: { model_id: "fake-model" } }),
      27002,
    );

    expect(events.at(-1)!.event).toBe("response.completed");
    const sent = JSON.stringify(openai.requests.flatMap(outputs).map((o) => o.output));
    expect(sent).toContain("no-approver (own-files)");
    const secret = await token(runner);
    expect(sent).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(secret);
    await refusalAudited(runner, "codex");
    await commandPrintsTheToken(runner);
  }, 240_000);
});
