// `task:execute` with the real Claude Code CLI (node_modules/.bin/claude, 2.1.197) run by the real app
// (createServices with its device side) against the real Socket.IO test backend. The scripted Messages
// API is the only fake. Bash calls go through `gatehouse hook claude` to the app's approval socket.
//
// `pwd` is a shell builtin, but the hook sees only the command string, and the policy resolves the
// word `pwd` on PATH to /usr/bin/pwd: the allowlist entry is the real path of the `pwd` executable
// (what `realProgram("pwd")` finds), and Claude Code's bash then runs its builtin.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  toolResultText,
  toolThenText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import {
  completedText,
  dataOf,
  HAVE_CLAUDE,
  payloadOf,
  startTaskApp,
  taskPayload,
  type TaskApp,
} from "./harness.js";
import { realProgram } from "../../support/programs.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;
const ALLOWLIST_ONLY = { security: "allowlist", ask: "off", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

async function startWith(
  script: Parameters<typeof startScriptedAnthropic>[0],
  env: Record<string, string> = {},
) {
  api = await startScriptedAnthropic(script);
  app = await startTaskApp({
    env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key", ...env },
  });
  return app;
}

function auditLines(a: TaskApp): Promise<Array<Record<string, unknown>>> {
  return fs.readFile(a.t.paths.audit, "utf8").then(
    (text) =>
      text
        .trim()
        .split("\n")
        .filter((l) => l)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    () => [],
  );
}

describe.skipIf(!HAVE_CLAUDE)("a Claude Code task from the backend", () => {
  it("runs in the resolved workdir: created, the Bash block with pwd's output, deltas whose offsets add up, completed", async () => {
    const a = await startWith(
      toolThenText(
        { name: "Bash", input: { command: "pwd", description: "Show the folder" } },
        "The folder is ready. ✅",
      ),
      { LOCAL_WORKDIR_ALLOWED_ROOTS: "~/Projects" },
    );
    const project = path.join(a.t.home, "Projects", "app");
    await fs.mkdir(project, { recursive: true });
    await a.setPolicy({ defaults: ASK_ME, allow: [realProgram("pwd")] });

    a.send(taskPayload(101, 1001, { workdir: "~/Projects/app", prompt: "Where are you?" }));
    const events = await a.untilTerminal(1001);

    const names = events.map((e) => e.event);
    expect(names[0]).toBe("response.created");
    expect(names.at(-1)).toBe("response.completed");
    expect(
      names.filter((n) => n === "response.completed" || n === "error" || n === "response.incomplete"),
    ).toHaveLength(1);
    const created = names.indexOf("response.block.created");
    const updated = names.indexOf("response.block.updated");
    const firstDelta = names.indexOf("response.output_text.delta");
    expect(created).toBeGreaterThan(0);
    expect(updated).toBeGreaterThan(created);
    expect(firstDelta).toBeGreaterThan(updated);

    const block = dataOf(events[updated]!).block as Record<string, unknown>;
    expect(block).toMatchObject({
      kind: "tool",
      name: "Bash",
      input: { command: "pwd" },
      status: "completed",
    });
    expect(String(block.output).trim()).toBe(await fs.realpath(project));

    const deltas = events.filter((e) => e.event === "response.output_text.delta").map(dataOf);
    let offset = 0;
    for (const delta of deltas) {
      expect(delta.offset).toBe(offset);
      offset += [...String(delta.delta)].length;
    }
    const full = deltas.map((d) => d.delta).join("");
    expect(full).toBe("The folder is ready. ✅");
    expect(completedText(events.at(-1)!)).toBe(full);
    expect(payloadOf(events[0]!)).toMatchObject({ task_id: 101, subtask_id: 1001, message_id: 10010 });
    expect(dataOf(events[0]!)).toMatchObject({
      shell_type: "ClaudeCode",
      response: { model: "claude-scripted" },
    });

    // The hook asked the app with the task's session and the runtime's agent id.
    const audit = await auditLines(a);
    expect(audit).toContainEqual(
      expect.objectContaining({
        agentId: "claude-code",
        sessionKey: "task:101",
        command: "pwd",
        decision: "allow-once",
      }),
    );
    // Once the agent process has exited, nothing is left running and the heartbeat no longer lists the task.
    await a.services.tasks!.idle();
    expect(a.services.tasks!.list()).toEqual([]);
    expect(a.services.tasks!.snapshot()).toEqual({ runningTaskIds: [], activeTaskIds: [], queued: 0 });
  });

  it("a command the policy denies never runs: the agent sees the denial and the audit log says who decided", async () => {
    const a = await startWith(
      toolThenText({ name: "Bash", input: { command: "touch marker-file" } }, "I could not create it."),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("pwd")] });
    a.send(taskPayload(102, 1002));
    const events = await a.untilTerminal(1002);

    expect(events.at(-1)!.event).toBe("response.completed");
    const updated = events.find((e) => e.event === "response.block.updated")!;
    const block = dataOf(updated).block as Record<string, unknown>;
    expect(block).toMatchObject({ name: "Bash", input: { command: "touch marker-file" }, status: "failed" });
    expect(String(block.output)).toContain("Gatehouse denied this command");

    const [result] = api!.toolResults();
    expect(result).toMatchObject({ is_error: true });
    expect(toolResultText(result!)).toContain("Gatehouse denied this command");

    const workdir = path.join(a.t.paths.defaultWorkspaceRoot, "102");
    expect(existsSync(workdir)).toBe(true);
    expect(existsSync(path.join(workdir, "marker-file"))).toBe(false);
    const audit = await auditLines(a);
    expect(audit).toContainEqual(
      expect.objectContaining({
        command: "touch marker-file",
        sessionKey: "task:102",
        decision: "deny",
        decidedBy: "policy",
      }),
    );
    expect(completedText(events.at(-1)!)).toBe("I could not create it.");
  });

  it("a project task gets CH and the global MCP servers; another task gets its own Claude folder and none", async () => {
    const record = (name: string) => `${name}-mcp-env.json`;
    const a = await startWith(
      toolThenText({ name: "Bash", input: { command: "printenv CLAUDE_CONFIG_DIR SKILLS_DIR" } }, "Printed."),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("printenv")] });
    // A synced global MCP server (stdio) that records the environment it was started with.
    const recorder = path.join(a.t.home, "mcp-recorder.cjs");
    await fs.writeFile(
      recorder,
      [
        'const fs = require("node:fs");',
        "fs.writeFileSync(require('node:path').join(process.cwd(), process.argv[2]), JSON.stringify({",
        "  cwd: process.cwd(), CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR ?? null }));",
      ].join("\n"),
    );
    await fs.mkdir(a.t.paths.capabilitiesDir, { recursive: true });
    await fs.writeFile(
      a.t.paths.capabilityManifest,
      JSON.stringify({
        version: 1,
        revision: 1,
        mcps: {
          recorder: {
            server: { type: "stdio", command: process.execPath, args: [recorder, record("global")] },
            managed: true,
          },
        },
      }),
    );

    a.send(taskPayload(201, 2001, { project_id: 42 }));
    a.send(taskPayload(202, 2002, { project_id: 0 }));
    const project = await a.untilTerminal(2001);
    const other = await a.untilTerminal(2002);
    const printed = (events: typeof project) =>
      String(
        (dataOf(events.find((e) => e.event === "response.block.updated")!).block as { output: string })
          .output,
      )
        .trim()
        .split("\n");

    const W = await fs.realpath(a.t.paths.defaultWorkspaceRoot);
    expect(printed(project)).toEqual([a.t.paths.claudeHome, path.join(a.t.paths.claudeHome, "skills")]);
    // A non-project task's own Claude folder is in Gatehouse's data, outside every working folder.
    const own = path.join(a.t.paths.executorHome, "task-claude", "202");
    expect(printed(other)).toEqual([own, path.join(own, "skills")]);

    const projectRecord = path.join(W, "201", record("global"));
    const seen = JSON.parse(await fs.readFile(projectRecord, "utf8")) as Record<string, unknown>;
    expect(seen).toEqual({ cwd: path.join(W, "201"), CLAUDE_CONFIG_DIR: a.t.paths.claudeHome });
    expect(existsSync(path.join(W, "202", record("global")))).toBe(false);
    // The task's runtime files (MCP config, hook settings) are gone once its agent has exited.
    await a.services.tasks!.idle();
    expect(existsSync(path.join(a.t.paths.runtimeDir, "201"))).toBe(false);
    expect(existsSync(path.join(a.t.paths.runtimeDir, "202"))).toBe(false);
  });

  it("a later turn of the same task resumes the Claude session", async () => {
    const a = await startWith((request) => ({
      text: `turn with ${request.messages.filter((m) => m.role === "user").length} user message(s)`,
    }));
    a.send(taskPayload(301, 3001, { prompt: "first" }));
    await a.untilTerminal(3001);
    const session = a.services.tasks!.agentSession("301");
    expect(session).toMatchObject({ runtime: "claude-code" });
    a.send(taskPayload(301, 3002, { prompt: "second" }));
    const second = await a.untilTerminal(3002);
    expect(second.at(-1)!.event).toBe("response.completed");
    expect(a.services.tasks!.agentSession("301")!.resumeId).toBe(session!.resumeId);
    const lastTurn = api!.requests.filter((r) => Array.isArray(r.tools) && r.tools.length > 0).at(-1)!;
    expect(JSON.stringify(lastTurn.messages)).toContain("first");
    expect(JSON.stringify(lastTurn.messages)).toContain("second");
  });
});
