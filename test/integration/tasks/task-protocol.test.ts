// The §6.1 rules and the workdir notes around a run (device-protocol.md §6.1–§6.2, workdir.md §7–§9),
// with the real app, the real test backend and the real Claude Code CLI (scripted model).
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { waitFor } from "../../support/wait-for.js";
import {
  completedText,
  dataOf,
  DEVICE_ID,
  HAVE_CLAUDE,
  startTaskApp,
  taskPayload,
  TOKEN,
  type TaskApp,
  type TaskAppOptions,
} from "./harness.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

async function start(options: TaskAppOptions = {}): Promise<TaskApp> {
  api = await startScriptedAnthropic(() => ({ text: "ok" }));
  app = await startTaskApp({
    ...options,
    env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key", ...options.env },
  });
  return app;
}

const notes = (events: Awaited<ReturnType<TaskApp["untilTerminal"]>>) =>
  events.filter((e) => e.event === "response.reasoning_summary_text.delta").map((e) => dataOf(e).delta);

describe.skipIf(!HAVE_CLAUDE)("task:execute rules", () => {
  it("an unsupported shell type ends the task with an error event and starts nothing", async () => {
    const a = await start();
    a.send(taskPayload(1101, 11001, { bot: [{ shell_type: "Dify" }] }));
    const events = await a.untilTerminal(11001);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(dataOf(events[1]!)).toEqual({
      type: "error",
      code: "runtime_error",
      message: "Unsupported shell type: Dify",
    });
    expect(api!.requests).toHaveLength(0);
  });

  it("a missing agent binary is a clear error event, never a crash", async () => {
    const a = await start({
      settings: { agents: { claudePath: "/nowhere/claude", codexPath: "codex-not-installed" } },
    });
    a.send(taskPayload(1102, 11002));
    a.send(taskPayload(1103, 11003, { bot: [{ shell_type: "Codex" }] }));
    const claude = await a.untilTerminal(11002);
    const codex = await a.untilTerminal(11003);
    expect(dataOf(claude.at(-1)!).message).toBe(
      `Claude Code was not found at /nowhere/claude (agents.claudePath in ${a.t.paths.settings}). Install it there or correct the setting.`,
    );
    expect(dataOf(codex.at(-1)!).message).toBe(
      `Codex is not installed on this device: "codex-not-installed" was not found on PATH. Install it, or set its path as agents.codexPath in ${a.t.paths.settings}.`,
    );
    // The runner keeps working.
    await a.services.tasks!.idle();
    expect(a.services.tasks!.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
  });

  it("a request without valid ids is dropped without events", async () => {
    const a = await start();
    a.send(taskPayload(1104, 11004, { task_id: "abc" }));
    a.send(taskPayload(1105, 11005, { subtask_id: 0 }));
    await waitFor(
      () => a.logs.filter((l) => l.includes("without a valid task_id and subtask_id")).length === 2,
      {
        what: "both requests to be dropped",
      },
    );
    expect(a.backend.events.filter((e) => e.event.startsWith("response.") || e.event === "error")).toEqual(
      [],
    );
  });

  it("blank backend_url, auth_token and device_id are filled from the device; the token never reaches the log", async () => {
    const a = await start();
    a.send(
      taskPayload(1106, 11006, {
        bot: [
          {
            shell_type: "ClaudeCode",
            mcp_servers: {
              wegent: {
                type: "streamable-http",
                url: "${{backend_url}}/mcp",
                headers: { Authorization: "Bearer ${{task_token}}" },
              },
            },
          },
        ],
      }),
    );
    await a.untilTerminal(11006);
    const mcp = JSON.parse(
      await fs.readFile(path.join(a.t.paths.runtimeDir, "1106", "mcp.json"), "utf8"),
    ) as {
      mcpServers: { wegent: { url: string; headers: Record<string, string> } };
    };
    expect(mcp.mcpServers.wegent).toMatchObject({
      url: `${a.backend.url}/mcp`,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    const bindings = await a.services.workdir!.bindings();
    expect(bindings).toEqual([expect.objectContaining({ task_id: "1106", device_id: DEVICE_ID })]);
    expect(a.logs.join("\n")).not.toContain(TOKEN);
  });

  it("a workdir fallback is announced before the agent starts, and the agent runs in the managed folder", async () => {
    const a = await start({ env: { LOCAL_WORKDIR_ALLOWED_ROOTS: "~/Projects" } });
    await fs.mkdir(path.join(a.t.home, "Projects"), { recursive: true });
    await fs.mkdir(path.join(a.t.home, "Outside"), { recursive: true });
    a.send(taskPayload(1107, 11007, { workdir: "~/Outside" }));
    const events = await a.untilTerminal(11007);
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.reasoning_summary_text.delta",
      "response.output_text.delta",
      "response.completed",
    ]);
    expect(notes(events)).toEqual([
      'Working folder "~/Outside" can\'t be used: it is not inside an allowed folder. Using the managed folder "~/.wegent-executor/workspace/1107" instead. Add it under Workdirs in Gatehouse to allow it.',
    ]);
    const W = await fs.realpath(a.t.paths.defaultWorkspaceRoot);
    await a.services.tasks!.idle();
    expect(a.services.tasks!.agentSession("1107")!.cwd).toBe(path.join(W, "1107"));
  });

  it("a managed folder that is a link is fatal: 'Working folder error: managed-unavailable.' and nothing runs", async () => {
    const a = await start();
    const W = a.t.paths.defaultWorkspaceRoot;
    await fs.mkdir(path.join(a.t.home, "Outside"), { recursive: true });
    await fs.symlink(path.join(a.t.home, "Outside"), path.join(W, "1108"));
    a.send(taskPayload(1108, 11008));
    const events = await a.untilTerminal(11008);
    expect(events.map((e) => e.event)).toEqual(["response.created", "error"]);
    expect(dataOf(events[1]!).message).toBe("Working folder error: managed-unavailable.");
    expect(api!.requests).toHaveLength(0);
    expect(existsSync(path.join(a.t.paths.runtimeDir, "1108"))).toBe(false);
  });

  it("a turn in another folder announces the change and starts a new agent session there", async () => {
    const a = await start({ env: { LOCAL_WORKDIR_ALLOWED_ROOTS: "~/Projects" } });
    for (const name of ["foo", "bar"])
      await fs.mkdir(path.join(a.t.home, "Projects", name), { recursive: true });
    a.send(taskPayload(1109, 11009, { workdir: "~/Projects/foo" }));
    await a.untilTerminal(11009);
    await a.services.tasks!.idle();
    const first = a.services.tasks!.agentSession("1109")!;
    expect(first.cwd).toBe(path.join(a.t.home, "Projects", "foo"));

    a.send(taskPayload(1109, 11010)); // no workdir: the binding is reused, same session
    await a.untilTerminal(11010);
    await a.services.tasks!.idle();
    expect(a.services.tasks!.agentSession("1109")!.resumeId).toBe(first.resumeId);
    expect(notes(a.eventsOf(11010))).toEqual([]);

    a.send(taskPayload(1109, 11011, { workdir: "~/Projects/bar" }));
    const third = await a.untilTerminal(11011);
    expect(notes(third)).toEqual([
      'Working folder changed from "~/Projects/foo" to "~/Projects/bar"; starting a new agent session.',
    ]);
    expect(completedText(third.at(-1)!)).toBe("ok");
    await a.services.tasks!.idle();
    const moved = a.services.tasks!.agentSession("1109")!;
    expect(moved.cwd).toBe(path.join(a.t.home, "Projects", "bar"));
    expect(moved.resumeId).not.toBe(first.resumeId);
  });
});
