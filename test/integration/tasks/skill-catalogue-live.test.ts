// The live catalogue in the runner (skills.md §11, issue 14): with the app running as `gatehouse serve`
// builds it (the real composition root, the test backend sending tasks), an edited SKILL.md reaches
// the next task's index within 1 s of the last write, and `gatehouse skills rescan` reports what the
// running Gatehouse did. Real Claude Code CLI against the scripted model.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = api = undefined;
});

function lastSystem(api: ScriptedAnthropic): string {
  const turn = api.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0).at(-1)!;
  return JSON.stringify(turn.system);
}

describe.skipIf(!HAVE_CLAUDE)("the live skill catalogue in the runner", () => {
  it("an edited SKILL.md changes the next task's index within 1 s, and skills rescan says the runner rescanned", async () => {
    api = await startScriptedAnthropic(() => ({ text: "ok" }));
    app = await startTaskApp({
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
    });
    const folder = path.join(app.t.paths.home, ".clawseed", "skills", "demo");
    await fs.mkdir(folder, { recursive: true });
    const write = (description: string) =>
      fs.writeFile(
        path.join(folder, "SKILL.md"),
        `---\nname: demo\ndescription: ${description}\n---\nBody.\n`,
      );
    await write("Version one");
    const bumps: number[] = [];
    const stop = app.services.skills!.watch(() => bumps.push(Date.now()));

    app.send(taskPayload(1601, 16001, { project_id: 7 }));
    await app.untilTerminal(16001, 120_000);
    expect(lastSystem(api)).toContain("Version one");

    // three writes in a row, then a new task: it sees the last one
    const before = bumps.length;
    await write("Version two-a");
    await write("Version two-b");
    await write("Version two");
    const lastWrite = Date.now();
    await waitFor(() => bumps.length > before, { what: "the catalogue to move", timeoutMs: 1_000 });
    expect(bumps.at(-1)! - lastWrite).toBeLessThan(1_000);
    app.send(taskPayload(1602, 16002, { project_id: 7 }));
    await app.untilTerminal(16002, 120_000);
    expect(lastSystem(api)).toContain("Version two");
    expect(lastSystem(api)).not.toContain("Version one");
    stop();

    const rescan = await runCli(["skills", "rescan"], { env: app.env });
    expect(rescan.code).toBe(0);
    expect(rescan.stdout).toContain("The running Gatehouse rescanned");
  });

  it("skills rescan says so when no Gatehouse runs", async () => {
    const t = await makeTempHome("gh-rescan-");
    try {
      const rescan = await runCli(["skills", "rescan"], { env: t.env });
      expect(rescan.code).toBe(0);
      expect(rescan.stdout).toContain("No running Gatehouse answered within 3 s");
    } finally {
      await t.cleanup();
    }
  });
});
