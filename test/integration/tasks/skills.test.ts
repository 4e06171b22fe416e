// skills.md §10 in a real task: the turn's snapshot gives Claude Code the index of the skills it does not
// read itself (a Codex skill here), and the environment overlay from the skill settings reaches the
// agent's processes without changing the app's own environment. Real app, real Claude Code CLI.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  toolThenText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import { dataOf, HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";
import { realProgram } from "../../support/programs.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

describe.skipIf(!HAVE_CLAUDE)("skills in a Claude Code task", () => {
  it("a project task gets the Gatehouse index of a Codex skill and the skill's env overlay", async () => {
    api = await startScriptedAnthropic(
      toolThenText({ name: "Bash", input: { command: "printenv DEMO_REGION" } }, "ok"),
    );
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
      settings: {
        skills: {
          entries: { "weather-demo": { env: { DEMO_REGION: "skills/weather-demo/env/DEMO_REGION" } } },
        },
      },
    });
    await app.setPolicy({
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: [realProgram("printenv")],
    });
    await app.services.secrets!.set("skills/weather-demo/env/DEMO_REGION", "eu-west");
    const skill = path.join(app.t.paths.codexHome, "skills", "weather-demo");
    await fs.mkdir(skill, { recursive: true });
    await fs.writeFile(
      path.join(skill, "SKILL.md"),
      "---\nname: weather-demo\ndescription: Looks up the weather for a region.\n---\nCall the weather API.\n",
    );

    app.send(taskPayload(1401, 14001, { project_id: 7 }));
    const events = await app.untilTerminal(14001);
    expect(events.at(-1)!.event).toBe("response.completed");
    const block = dataOf(events.find((e) => e.event === "response.block.updated")!).block as {
      output: string;
    };
    // the agent got the secret-store value (printenv printed it), and it left for the backend redacted
    expect(block.output.trim()).toBe("[redacted]");
    expect(process.env.DEMO_REGION).toBeUndefined();

    const turn = api.requests.find((r) => Array.isArray(r.tools) && r.tools.length > 0)!;
    const system = JSON.stringify(turn.system);
    expect(system).toContain("weather-demo");
    expect(system).toContain("Looks up the weather for a region.");
    expect(app.logs.join("\n")).not.toContain("eu-west");
  });
});
