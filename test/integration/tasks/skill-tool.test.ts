// The Gatehouse Skill tool in real tasks (skills.md §9, docs/decisions.md "Skills for agents"): the real
// Claude Code and Codex CLIs start the task's `gatehouse skills mcp` server, the scripted model calls
// the tool, and the running app's engine answers: activate returns the body as <active_skill>,
// max_active refuses the next one, a permission the runtime has no tool for refuses, deactivate works,
// and the next turn carries the active block. The model providers are the only fakes.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CODEX_SKILL_NAMESPACE,
  SKILL_TOOL,
  SKILL_TOOL_NAME,
  skillToolPhrase,
} from "../../../src/core/skills/index.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type ScriptedAnthropic,
  type ScriptedReply,
} from "../../support/scripted-anthropic.js";
import {
  codexProviderArgs,
  functionOutputsOf,
  startScriptedOpenAi,
  type ScriptedOpenAi,
  type ScriptedResponse,
} from "../../support/scripted-openai.js";
import { HAVE_CLAUDE, HAVE_CODEX, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

let app: TaskApp | undefined;
let anthropic: ScriptedAnthropic | undefined;
let openai: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await anthropic?.close();
  await openai?.close();
  app = anthropic = openai = undefined;
});

async function writeSkill(root: string, name: string, extra: string, body: string): Promise<string> {
  const folder = path.join(root, name);
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(
    path.join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} workflow.\n${extra}---\n${body}\n`,
  );
  return folder;
}

/** Three skills in ~/.clawseed/skills, a root neither runtime reads itself. */
async function seedSkills(app: TaskApp): Promise<string> {
  const root = path.join(app.t.paths.home, ".clawseed", "skills");
  await writeSkill(root, "alpha", "permissions: [shell_exec]\n", "# Alpha\nRun {baseDir}/go.sh first.");
  await writeSkill(root, "beta", "", "# Beta\nSecond workflow.");
  await writeSkill(root, "gamma", "permissions: [memory]\n", "# Gamma\nNeeds memory.");
  return root;
}

/** The calls the model makes, one per turn, in order. */
const CALLS: Array<Record<string, unknown>> = [
  { action: "list" },
  { skill: "alpha" },
  { skill: "beta" },
  { skill: "alpha", action: "deactivate" },
  { skill: "gamma" },
  { skill: "alpha" },
];

function expectSkillResults(results: string[], root: string): void {
  expect(results).toHaveLength(CALLS.length);
  expect(results[0]).toContain("- alpha: The alpha workflow.");
  expect(results[1]).toBe(
    `Skill 'alpha' activated.\n\n<active_skill name="alpha" location="${root}/alpha/SKILL.md">\n# Alpha\nRun ${root}/alpha/go.sh first.\n</active_skill>`,
  );
  expect(results[2]).toBe(
    "Cannot activate 'beta': 1 skills are already active (limit 1). Deactivate one first.",
  );
  expect(results[3]).toBe("Skill 'alpha' deactivated.");
  expect(results[4]).toBe(
    "Cannot activate 'gamma': no tool for memory (needs one of memory_store, memory_recall, memory_export, memory_forget, memory_purge).",
  );
  expect(results[5]).toContain("Skill 'alpha' activated.");
}

describe.skipIf(!HAVE_CLAUDE)("the Skill tool in a Claude Code task", () => {
  it("activates, refuses beyond max_active and without a tool, deactivates, and the next turn keeps the block", async () => {
    const script = (request: { messages: unknown[] }, turn: number): ScriptedReply => {
      void request;
      return turn < CALLS.length
        ? { toolUse: { name: SKILL_TOOL_NAME, input: CALLS[turn]! } }
        : { text: "done" };
    };
    anthropic = await startScriptedAnthropic((r, turn) => script(r, turn));
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "scripted-key" },
      settings: { skills: { max_active: 1 } },
    });
    const root = await seedSkills(app);

    app.send(taskPayload(1501, 15001, { project_id: 7 }));
    const events = await app.untilTerminal(15001, 180_000);
    expect(events.at(-1)!.event).toBe("response.completed");

    const withTools = anthropic.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0);
    // the model was offered the tool under the name the index gives
    const toolNames = (withTools[0]!.tools as Array<{ name: string }>).map((t) => t.name);
    expect(toolNames).toContain(SKILL_TOOL_NAME);
    const system = JSON.stringify(withTools[0]!.system);
    expect(system).toContain(`call the ${SKILL_TOOL_NAME} tool with its name`);
    expect(system).toContain("<name>alpha</name>");

    const results = withTools.flatMap((r) => toolResultsOf(r)).map((b) => toolResultText(b));
    expectSkillResults(results, root);

    // the next turn of the same task: the active block is part of the instructions
    app.send(taskPayload(1501, 15002, { project_id: 7, prompt: "Next." }));
    await app.untilTerminal(15002, 120_000);
    const next = anthropic.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0).at(-1)!;
    expect(JSON.stringify(next.system)).toContain('<active_skill name=\\"alpha\\"');
  });
});

// Codex 0.169 offers MCP tools to the model in a Responses tool namespace: `{type: "namespace", name:
// "mcp__gatehouse_skills", tools: [{name: "Skill", …}]}` (the server name sanitized), and the model calls
// it as a function call with that `namespace`. The scripted model does exactly that.
describe.skipIf(!HAVE_CODEX)("the Skill tool in a Codex task", () => {
  it("the same calls through Codex's MCP client give the same answers", async () => {
    let offered: { namespace: string; tools: string[] } | null = null;
    const script = (request: { tools?: Array<Record<string, unknown>> }, turn: number): ScriptedResponse => {
      const namespace = (request.tools ?? []).find(
        (t) => t.type === "namespace" && t.name === CODEX_SKILL_NAMESPACE,
      ) as { name: string; tools?: Array<{ name?: string }> } | undefined;
      if (namespace && !offered) {
        offered = { namespace: namespace.name, tools: (namespace.tools ?? []).map((t) => String(t.name)) };
      }
      return turn < CALLS.length && offered
        ? { functionCall: { name: SKILL_TOOL, namespace: CODEX_SKILL_NAMESPACE, arguments: CALLS[turn]! } }
        : { text: "done" };
    };
    openai = await startScriptedOpenAi((r, turn) => script(r, turn));
    app = await startTaskApp({
      env: { FAKE_KEY: "scripted-key" },
      settings: {
        skills: { max_active: 1 },
        agents: { codexArgs: codexProviderArgs(openai.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      },
    });
    const root = await seedSkills(app);
    app.send(
      taskPayload(1502, 15011, {
        project_id: 7,
        bot: [{ shell_type: "Codex" }],
        model_config: { model_id: "fake-model" },
      }),
    );
    const events = await app.untilTerminal(15011, 180_000);
    expect(events.at(-1)!.event).toBe("response.completed");
    // the first request already offers the tool, alone in its namespace
    expect(offered).toEqual({ namespace: CODEX_SKILL_NAMESPACE, tools: [SKILL_TOOL] });
    const withTools = openai.requests.filter((r) => (r.tools ?? []).length > 0);
    expect(JSON.stringify(withTools[0]!.tools)).toContain(CODEX_SKILL_NAMESPACE);
    expect(JSON.stringify(withTools[0]!.instructions ?? withTools[0]!.input)).toContain(
      `call ${skillToolPhrase("codex")} with its name`,
    );
    const outputs = withTools.flatMap((r) => functionOutputsOf(r).slice(-1));
    const texts = outputs.map((o) => outputText(o.output));
    expectSkillResults(texts, root);
  });
});

/** The text a tool result carries; Codex 0.169 puts its own "Wall time: … Output:" part before an MCP result. */
function outputText(output: unknown): string {
  let parts: unknown = output;
  if (typeof output === "string") {
    try {
      parts = JSON.parse(output) as unknown;
    } catch {
      return output;
    }
    if (!Array.isArray(parts)) return output;
  }
  if (!Array.isArray(parts)) return JSON.stringify(output);
  return (parts as Array<{ text?: string }>)
    .map((p) => p.text ?? "")
    .filter((text) => !/^Wall time: [\d.]+ seconds\nOutput:$/.test(text))
    .join("");
}
