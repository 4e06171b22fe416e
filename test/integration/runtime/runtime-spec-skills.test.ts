// `gatehouse runtime spec` shows what the launch adds for skills (issue 14, point 4): the index of the
// skills the runtime does not read itself, naming the Skill tool as the agent sees it, the Skill tool's
// MCP server, and the skill environment overlay with its value masked. The spec and a task's turn are
// built by the same code (executor/tasks/skill-launch.ts + buildLaunchSpec).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SKILL_TOOL_NAME } from "../../../src/core/skills/index.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let home: TempHome | undefined;
afterEach(async () => {
  await home?.cleanup();
  home = undefined;
});

interface SpecOutput {
  spec: { args: string[]; env: Record<string, string>; files: { path: string; content: string }[] };
}

async function seed(h: TempHome): Promise<string> {
  const folder = path.join(h.home, ".clawseed", "skills", "weather");
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(
    path.join(folder, "SKILL.md"),
    '---\nname: weather\ndescription: Looks up the weather.\nmetadata: {"openclaw":{"primaryEnv":"WEATHER_KEY"}}\n---\nCall it.\n',
  );
  await fs.mkdir(h.paths.executorHome, { recursive: true, mode: 0o700 });
  await fs.writeFile(
    h.paths.settings,
    JSON.stringify({
      version: 1,
      skills: { entries: { weather: { env: { WEATHER_REGION: "region-secret-9" } } } },
    }),
    { mode: 0o600 },
  );
  const task = path.join(h.home, "task.json");
  await fs.writeFile(
    task,
    JSON.stringify({
      task_id: 77,
      subtask_id: 1,
      project_id: 5,
      bot: [{ shell_type: "ClaudeCode" }],
      prompt: "hi",
    }),
  );
  return task;
}

describe("gatehouse runtime spec and skills", () => {
  it("shows the skill index, the Skill tool server and the skill environment of the launch", async () => {
    home = await makeTempHome();
    const task = await seed(home);
    const result = await runCli(["runtime", "spec", "--task-json", task, "--json"], { env: home.env });
    expect(result.code, result.stderr).toBe(0);
    const { spec } = result.json<SpecOutput>();
    const prompt = spec.args.find((a) => a.startsWith("--append-system-prompt="))!;
    expect(prompt).toContain("<name>weather</name>");
    expect(prompt).toContain(`call the ${SKILL_TOOL_NAME} tool with its name`);
    const mcp = spec.files.find((f) => f.path.endsWith("mcp.json"))!;
    const servers = (JSON.parse(mcp.content) as { mcpServers: Record<string, { args: string[] }> })
      .mcpServers;
    expect(servers["gatehouse-skills"]!.args.slice(-6)).toEqual([
      "skills",
      "mcp",
      "--task",
      "77",
      "--executor-home",
      home.paths.executorHome,
    ]);
    // the settings name a secret reference that holds nothing: no variable, and the name never leaks as a value
    expect(Object.keys(spec.env)).not.toContain("WEATHER_REGION");
  });
});
