// What an agent's own commands see of the environment (issue 11 "No secret reaches an agent"): the real
// app runs a real Claude Code / Codex task whose scripted model asks for `printenv`; the output the
// backend receives must hold none of Gatehouse's secrets, while the model's own variables still work
// (the task completes against the scripted endpoint).
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  toolThenText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import {
  callThenText,
  codexProviderArgs,
  startScriptedOpenAi,
  type ScriptedOpenAi,
} from "../../support/scripted-openai.js";
import {
  dataOf,
  HAVE_CLAUDE,
  HAVE_CODEX,
  startTaskApp,
  taskPayload,
  TOKEN,
  type TaskApp,
} from "./harness.js";
import { realProgram } from "../../support/programs.js";

const FULL = { security: "full", ask: "off", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let anthropic: ScriptedAnthropic | undefined;
let openai: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await anthropic?.close();
  await openai?.close();
  app = anthropic = openai = undefined;
});

async function socketToken(a: TaskApp): Promise<string> {
  return (JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")) as { socket: { token: string } }).socket
    .token;
}

/** The output of the task's one tool block. */
function toolOutput(events: Awaited<ReturnType<TaskApp["untilTerminal"]>>): string {
  const updated = events.filter((e) => e.event === "response.block.updated").map(dataOf);
  const block = updated
    .map((d) => d.block as { kind?: string; output?: unknown })
    .find((b) => b.kind === "tool");
  return String(block?.output ?? "");
}

describe.skipIf(!HAVE_CLAUDE)("a Claude Code task's environment", () => {
  it("printenv run by the agent shows no device token and no socket token", async () => {
    anthropic = await startScriptedAnthropic(
      toolThenText(
        { name: "Bash", input: { command: "printenv", description: "Show the environment" } },
        "Done.",
      ),
    );
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "scripted-key", TOKEN_COPY: TOKEN },
      settings: { environment: { inherit: ["TOKEN_COPY"] } },
    });
    await app.setPolicy({
      defaults: { ...FULL, security: "allowlist" },
      allow: [realProgram("printenv")],
    });
    app.send(taskPayload(701, 7001, { prompt: "Show me the environment." }));
    const events = await app.untilTerminal(7001);
    expect(events.at(-1)!.event).toBe("response.completed");
    const output = toolOutput(events);
    expect(output).toContain(`HOME=${app.t.home}`);
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(await socketToken(app));
    expect(output).not.toMatch(/WEGENT_AUTH_TOKEN|TOKEN_COPY/);
  });
});

describe.skipIf(!HAVE_CODEX)("a Codex task's environment", () => {
  it("printenv run by the agent shows no device token and no socket token", async () => {
    openai = await startScriptedOpenAi(
      callThenText({ name: "exec_command", arguments: { cmd: "printenv" } }, "Done."),
    );
    app = await startTaskApp({
      env: { FAKE_KEY: "scripted-key" },
      settings: {
        agents: { codexArgs: codexProviderArgs(openai.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      },
    });
    await app.setPolicy({ defaults: FULL });
    app.send(
      taskPayload(702, 7002, { bot: [{ shell_type: "Codex" }], model_config: { model_id: "fake-model" } }),
    );
    const events = await app.untilTerminal(7002);
    expect(events.at(-1)!.event).toBe("response.completed");
    const output = toolOutput(events);
    expect(output).toContain(`HOME=${app.t.home}`);
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(await socketToken(app));
    expect(output).not.toContain("WEGENT_AUTH_TOKEN");
  });
});
