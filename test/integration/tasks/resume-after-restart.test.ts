// Resume ids on disk (issue 31 item 5): a follow-up turn after Gatehouse restarted resumes the task's
// Claude Code session when its folder is unchanged, as Wegent's executor does. The real Claude Code CLI
// against the scripted Messages API; two app instances on one home and one backend.
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { agentSessionsFile } from "../../../src/executor/tasks/session-store.js";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { HAVE_CLAUDE, startTaskApp, taskPayload, TOKEN, type TaskApp } from "./harness.js";

let t: TempHome | undefined;
let backend: TestBackend | undefined;
let api: ScriptedAnthropic | undefined;
let app: TaskApp | undefined;
afterEach(async () => {
  await app?.close();
  await backend?.close();
  await api?.close();
  await t?.cleanup();
  app = t = backend = api = undefined;
});

describe.skipIf(!HAVE_CLAUDE)("agent sessions after a restart", () => {
  it("a turn after a restart resumes the task's Claude session, kept in E with mode 0600", async () => {
    t = await makeTempHome("gh-resume-");
    backend = await startTestBackend({ token: TOKEN });
    api = await startScriptedAnthropic((request) => ({
      text: `turn with ${request.messages.filter((m) => m.role === "user").length} user message(s)`,
    }));
    const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" };
    app = await startTaskApp({ t, backend, env });
    app.send(taskPayload(401, 4001, { prompt: "first question" }));
    expect((await app.untilTerminal(4001)).at(-1)!.event).toBe("response.completed");
    const session = app.services.tasks!.agentSession("401");
    expect(session).toMatchObject({ runtime: "claude-code" });
    await app.close();
    app = undefined;

    const file = agentSessionsFile(t.paths.executorHome);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await fs.readFile(file, "utf8")) as {
      sessions: Record<string, { resumeId: string }>;
    };
    expect(kept.sessions["401"]!.resumeId).toBe(session!.resumeId);

    app = await startTaskApp({ t, backend, env });
    app.send(taskPayload(401, 4002, { prompt: "second question" }));
    expect((await app.untilTerminal(4002)).at(-1)!.event).toBe("response.completed");
    expect(app.services.tasks!.agentSession("401")!.resumeId).toBe(session!.resumeId);
    const lastTurn = api.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0).at(-1)!;
    expect(JSON.stringify(lastTurn.messages)).toContain("first question");
    expect(JSON.stringify(lastTurn.messages)).toContain("second question");
  });

  it("an unreadable sessions file only means a new session", async () => {
    t = await makeTempHome("gh-resume-bad-");
    backend = await startTestBackend({ token: TOKEN });
    api = await startScriptedAnthropic(() => ({ text: "fresh" }));
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    await fs.writeFile(agentSessionsFile(t.paths.executorHome), "{ not json", { mode: 0o600 });
    app = await startTaskApp({
      t,
      backend,
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
    });
    app.send(taskPayload(402, 4011, { prompt: "hello" }));
    expect((await app.untilTerminal(4011)).at(-1)!.event).toBe("response.completed");
    expect(app.services.tasks!.agentSession("402")).toMatchObject({ runtime: "claude-code" });
  });
});
