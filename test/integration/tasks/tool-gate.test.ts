// Every tool call gets a verdict (issue 27, class 3): real Claude Code (2.1.332) and Codex (0.171) turns
// through the real app, the scripted model endpoints the only fake. A Codex command in a folder the
// model chose is judged by that folder (Gatehouse's own data: refused, audited, the token never shown);
// its `shell` must be the bash the analysis assumes; MCP tools of both runtimes run only with an
// allowlist entry naming server and tool (a real stdio MCP server writes a marker when a call runs);
// Claude Code's other tools (WebFetch here) get the hook's verdict, a person's when it needs one.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderPromptText } from "../../../src/approval-server/prompt-text.js";
import { toolCallOf } from "../../../src/core/policy/tool-call-explain.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type Script,
  type ScriptedAnthropic,
  type ScriptedReply,
} from "../../support/scripted-anthropic.js";
import {
  codexProviderArgs,
  startScriptedOpenAi,
  type ResponsesRequest,
  type ResponsesScript,
  type ScriptedOpenAi,
  type ScriptedResponse,
} from "../../support/scripted-openai.js";
import { REPO_ROOT } from "../../support/cli.js";
import { realProgram } from "../../support/programs.js";
import { waitFor } from "../../support/wait-for.js";
import { dataOf, HAVE_CLAUDE, HAVE_CODEX, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;
const ALLOWLIST_ONLY = { security: "allowlist", ask: "off", askFallback: "deny" } as const;
const MCP_SERVER = path.join(REPO_ROOT, "test", "support", "mcp-marker-server.mjs");

let app: TaskApp | undefined;
let anthropic: ScriptedAnthropic | undefined;
let openai: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await anthropic?.close();
  await openai?.close();
  app = anthropic = openai = undefined;
});

type Step<T> = T | (() => T);
const run = <T>(step: Step<T> | undefined): T | undefined =>
  typeof step === "function" ? (step as () => T)() : step;

async function managedFolder(a: TaskApp, taskId: number): Promise<string> {
  const folder = path.join(await fs.realpath(a.t.paths.defaultWorkspaceRoot), String(taskId));
  await fs.mkdir(folder, { recursive: true });
  return folder;
}

async function auditLines(a: TaskApp): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(a.t.paths.audit, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function socketToken(a: TaskApp): Promise<string> {
  return (JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")) as { socket: { token: string } }).socket
    .token;
}

/** The task's MCP servers: the marker server, writing `marker` when its tool runs. */
function markerServer(name: string, marker: string) {
  return { [name]: { type: "stdio", command: process.execPath, args: [MCP_SERVER, marker] } };
}

// ---- Codex ----------------------------------------------------------------------------------------

function codexOutputs(request: ResponsesRequest): Array<{ output?: unknown }> {
  return (request.input ?? []).filter(
    (item) => item.type === "function_call_output" || item.type === "custom_tool_call_output",
  );
}

function codexCalls(...steps: Array<Step<ScriptedResponse>>): ResponsesScript {
  return (request) => run(steps[codexOutputs(request).length]) ?? { text: "Done." };
}

function exec(cmd: string, extra: Record<string, unknown> = {}): ScriptedResponse {
  return { functionCall: { name: "exec_command", arguments: { cmd, ...extra } } };
}

function codexOutputText(): string {
  return JSON.stringify(openai!.requests.flatMap(codexOutputs).map((o) => o.output));
}

async function startCodex(script: ResponsesScript): Promise<TaskApp> {
  openai = await startScriptedOpenAi(script);
  app = await startTaskApp({
    env: { FAKE_KEY: "scripted-key" },
    settings: {
      agents: { codexArgs: [...codexProviderArgs(openai.baseUrl), "-c", 'model="gpt-5.5"'] },
      environment: { inherit: ["FAKE_KEY"] },
    },
  });
  return app;
}

function codexTask(taskId: number, subtaskId: number, extra: Record<string, unknown> = {}) {
  return taskPayload(taskId, subtaskId, {
    bot: [{ shell_type: "Codex" }],
    model_config: { model_id: "gpt-5.5" },
    ...extra,
  });
}

describe.skipIf(!HAVE_CODEX)("Codex's other tool-call fields are read (codex-cli 0.171)", () => {
  it("exec_command with workdir = Gatehouse's folder running `cat exec-approvals.json` is refused and audited; the token never shows", async () => {
    const a = await startCodex(
      codexCalls(() => exec("cat exec-approvals.json", { workdir: app!.t.paths.executorHome })),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("cat")] });
    a.send(codexTask(2701, 27001));
    const events = await a.untilTerminal(27001);

    expect(events.at(-1)!.event).toBe("response.completed");
    const token = await socketToken(a);
    expect(codexOutputText()).toContain("Gatehouse's own data");
    expect(codexOutputText()).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({
        agentId: "codex",
        source: "codex-hook",
        command: `exec_command.workdir ${a.t.paths.executorHome}`,
        decision: "deny",
        decidedBy: "policy",
        reason: expect.stringContaining("gatehouse-data"),
      }),
    );
  });

  it("a workdir inside the task's folder runs the command there", async () => {
    const a = await startCodex(codexCalls(exec("pwd", { workdir: "src/../lib" })));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("pwd")] });
    const folder = await managedFolder(a, 2702);
    await fs.mkdir(path.join(folder, "lib"));
    a.send(codexTask(2702, 27002));
    const events = await a.untilTerminal(27002);
    const block = dataOf(events.find((e) => e.event === "response.block.updated")!).block as {
      output: string;
    };
    expect(block.output.trim()).toBe(path.join(folder, "lib"));
  });

  it("a `shell` names only the type: a script called bash in the task's folder is never what runs", async () => {
    // Codex starts the bash it finds itself (login shell, PATH), whatever path the argument names; that
    // bash is the one Gatehouse analyses for here, so the command runs, under it.
    const marker = () => path.join(app!.t.home, "shell-marker");
    const a = await startCodex(
      codexCalls(() =>
        exec("ls", { shell: path.join(app!.t.paths.defaultWorkspaceRoot, "2703", "tools", "bash") }),
      ),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("ls")] });
    const folder = await managedFolder(a, 2703);
    await fs.mkdir(path.join(folder, "tools"));
    await fs.writeFile(path.join(folder, "tools", "bash"), `#!/bin/sh\ntouch ${marker()}\n`, { mode: 0o755 });
    a.send(codexTask(2703, 27003));
    await a.untilTerminal(27003);
    expect(existsSync(marker())).toBe(false);
    expect(codexOutputText()).toContain("tools");
  });

  it("a `shell` of another type is a person's call, refused under ask=off", async () => {
    const a = await startCodex(codexCalls(exec("ls", { shell: "/usr/bin/zsh" })));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("ls")] });
    a.send(codexTask(2706, 27006));
    await a.untilTerminal(27006);
    expect(codexOutputText()).toContain('it asks for the shell \\"/usr/bin/zsh\\", which is not bash');
  });

  it("an MCP tool is refused without an allowlist entry and runs with one naming its server and tool", async () => {
    const marker = () => path.join(app!.t.home, "mcp-marker");
    const call: ScriptedResponse = {
      functionCall: { name: "mark", namespace: "mcp__marker_srv", arguments: { note: "ran" } },
    };
    const a = await startCodex(codexCalls(call));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY });
    a.send(codexTask(2704, 27004, { mcp_servers: markerServer("marker-srv", marker()) }));
    await a.untilTerminal(27004);
    expect(existsSync(marker())).toBe(false);
    expect(codexOutputText()).toContain("no allowlist entry covers the MCP tool mcp__marker_srv__mark");
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({ command: 'mcp__marker_srv__mark \'{"note":"ran"}\'', decision: "deny" }),
    );

    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: ["mcp:marker_srv/mark"] });
    a.send(codexTask(2705, 27005, { mcp_servers: markerServer("marker-srv", marker()) }));
    await a.untilTerminal(27005);
    expect(await fs.readFile(marker(), "utf8")).toBe("ran");
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({
        command: 'mcp__marker_srv__mark \'{"note":"ran"}\'',
        decision: "allow-once",
        decidedBy: expect.stringMatching(/^rule:/),
      }),
    );
  });
});

// ---- Claude Code ---------------------------------------------------------------------------------

function claudeCalls(...steps: Array<Step<ScriptedReply>>): Script {
  return (request) => {
    const done = request.messages.filter(
      (m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    ).length;
    return run(steps[done]) ?? { text: "Done." };
  };
}

function claudeResults(): string {
  return anthropic!.requests
    .flatMap(toolResultsOf)
    .map((r) => toolResultText(r))
    .join("\n");
}

async function startClaude(script: Script): Promise<TaskApp> {
  anthropic = await startScriptedAnthropic(script);
  app = await startTaskApp({ env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "scripted-key" } });
  return app;
}

describe.skipIf(!HAVE_CLAUDE)("Claude Code's every tool gets the hook's verdict (claude 2.1.332)", () => {
  it("an MCP tool is refused without an allowlist entry and runs with one naming its server and tool", async () => {
    const marker = () => path.join(app!.t.home, "mcp-marker");
    const call: ScriptedReply = { toolUse: { name: "mcp__marker-srv__mark", input: { note: "ran" } } };
    const a = await startClaude(claudeCalls(call));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY });
    a.send(taskPayload(2711, 27011, { mcp_servers: markerServer("marker-srv", marker()) }));
    await a.untilTerminal(27011);
    expect(existsSync(marker())).toBe(false);
    expect(claudeResults()).toContain("no allowlist entry covers the MCP tool mcp__marker-srv__mark");

    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: ["mcp:marker-srv/mark"] });
    a.send(taskPayload(2712, 27012, { mcp_servers: markerServer("marker-srv", marker()) }));
    await a.untilTerminal(27012);
    expect(await fs.readFile(marker(), "utf8")).toBe("ran");
  });

  it("WebFetch, which passed ungated before, is a person's call: the prompt says what it fetches, and a denial reaches the model", async () => {
    const a = await startClaude(
      claudeCalls(
        { toolUse: { name: "WebFetch", input: { url: "http://127.0.0.1:9/admin", prompt: "Summarise" } } },
        { toolUse: { name: "CronList", input: {} } },
      ),
    );
    await a.setPolicy({ defaults: ASK_ME });
    a.services.broker.attachUi();
    a.send(taskPayload(2713, 27013));
    const prompt = await waitFor(() => a.services.broker.list()[0], {
      what: "the WebFetch prompt",
      timeoutMs: 60_000,
    });
    expect(toolCallOf(prompt.explanation)).toMatchObject({
      runtime: "claude",
      tool: "WebFetch",
      kind: "person",
      what: "fetches http://127.0.0.1:9/admin from this machine",
    });
    expect(renderPromptText(prompt, Date.now())).toContain(
      "WebFetch (Claude Code): it fetches http://127.0.0.1:9/admin",
    );
    a.services.broker.decide(prompt.id, { decision: "deny" });
    await a.untilTerminal(27013);
    expect(claudeResults()).toContain("Gatehouse denied this tool call (by you)");
    // a harmless tool is allowed by the hook, explicitly (the call reached Claude Code's own tool)
    expect(claudeResults()).not.toContain("CronList hook error");
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({
        command: expect.stringContaining("WebFetch"),
        decision: "deny",
        decidedBy: "user",
      }),
    );
  });
});
