// Issue 15 "Per-request tightening" at task launch: `task:execute` `security`/`ask` (a Gatehouse extension,
// docs/device-protocol-task-policy.md) tighten the policy the task's hook applies, and a looser ask is
// refused before anything starts. The real app, the real test backend and the real Claude Code CLI
// (scripted model).
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type Script,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import { dataOf, HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

/** `touch marker-file` first, then a final text. */
const touchMarker: Script = (request) => {
  const answered = request.messages.some(
    (m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
  );
  return answered
    ? { text: "Done." }
    : { toolUse: { name: "Bash", input: { command: "touch marker-file" } } };
};

async function startWith(script: Script): Promise<TaskApp> {
  api = await startScriptedAnthropic(script);
  app = await startTaskApp({ env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" } });
  return app;
}

async function managedFolder(a: TaskApp, taskId: number): Promise<string> {
  const folder = path.join(a.t.paths.defaultWorkspaceRoot, String(taskId));
  await fs.mkdir(folder, { recursive: true });
  return fs.realpath(folder);
}

describe.skipIf(!HAVE_CLAUDE)("task launch may tighten the policy, never loosen it", () => {
  it("security=allowlist in task:execute makes the hook refuse what security=full would run", async () => {
    const a = await startWith(touchMarker);
    await a.setPolicy({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const folder = await managedFolder(a, 1301);
    a.send(taskPayload(1301, 13001, { security: "allowlist" }));
    const events = await a.untilTerminal(13001);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(existsSync(path.join(folder, "marker-file"))).toBe(false);
    const results = api!.requests
      .flatMap(toolResultsOf)
      .map((r) => toolResultText(r))
      .join("\n");
    expect(results).toContain("Gatehouse denied this command");
    const audit = (await fs.readFile(a.t.paths.audit, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit.find((l) => l.command === "touch marker-file")).toMatchObject({
      decision: "deny",
      reason: "allowlist-miss (security=allowlist from the request)",
      requested: { security: "allowlist" },
    });
  });

  it("the same task without the field runs the command (the policy is full)", async () => {
    const a = await startWith(touchMarker);
    await a.setPolicy({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const folder = await managedFolder(a, 1302);
    a.send(taskPayload(1302, 13002));
    await a.untilTerminal(13002);
    expect(existsSync(path.join(folder, "marker-file"))).toBe(true);
  });

  it("a launch asking for security=full under an allowlist policy is refused with a clear error and starts nothing", async () => {
    const a = await startWith(touchMarker);
    await a.setPolicy({ defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
    const folder = await managedFolder(a, 1303);
    a.send(taskPayload(1303, 13003, { security: "full", ask: "off" }));
    const events = await a.untilTerminal(13003);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(dataOf(events[1]!).message).toBe(
      "Task refused, nothing was run: request-loosens: the request asked for security=full (the policy gives allowlist); a request may only tighten (agent claude-code). Send the task without the looser security/ask, or change the policy on this device.",
    );
    expect(api!.requests).toHaveLength(0);
    expect(existsSync(path.join(folder, "marker-file"))).toBe(false);
  });

  it("an unknown security value is an invalid payload and starts nothing", async () => {
    const a = await startWith(touchMarker);
    a.send(taskPayload(1304, 13004, { security: "root" }));
    const events = await a.untilTerminal(13004);
    expect(events.at(-1)!.event).toBe("error");
    expect(dataOf(events.at(-1)!).message).toMatch(/^Invalid task payload: .*security/);
    expect(api!.requests).toHaveLength(0);
  });
});
