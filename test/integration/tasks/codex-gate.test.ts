// Codex gated like Claude Code (issue 11, item 4): the real app runs the real Codex CLI
// (node_modules/.bin/codex, 0.169.0) for backend tasks, with `gatehouse hook codex` as the PreToolUse
// hook of every tool call. The scripted Responses API is the only fake. A test presenter stands for
// the person (the broker's UI slot): prompts are listed and answered with `broker.decide`. Ordinary
// turns run in the test process; the attacks (at the end) run the whole runner as uid 65534.
//
// Observed with codex-cli 0.169 (docs/decisions.md "Agent runtimes gated"): the hook input of
// exec_command is `tool_name: "Bash"` with only `tool_input.command`; exit 2 blocks and the model sees
// "Command blocked by PreToolUse hook: <stderr>"; exit 1, bad output or a timeout let the call run.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderPromptText } from "../../../src/approval-server/prompt-text.js";
import { fileAccessOf } from "../../../src/core/policy/file-edit.js";
import type { PromptRequest } from "../../../src/core/policy/types.js";
import {
  codexProviderArgs,
  functionOutputsOf,
  startScriptedOpenAi,
  type ResponsesRequest,
  type ResponsesScript,
  type ScriptedOpenAi,
  type ScriptedResponse,
} from "../../support/scripted-openai.js";
import { waitFor } from "../../support/wait-for.js";
import { dataOf, HAVE_CODEX, startTaskApp, taskPayload, TOKEN, type TaskApp } from "./harness.js";
import { realProgram } from "../../support/programs.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import type { TempHome } from "../../support/temp-home.js";
import { startOtherUserRunner, type OtherUserRunner } from "./other-user-runner.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;
const ALLOWLIST_ONLY = { security: "allowlist", ask: "off", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let api: ScriptedOpenAi | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = undefined;
  api = undefined;
});

/** Tool outputs Codex sent back (function calls and freeform calls such as apply_patch). */
function toolOutputsOf(request: ResponsesRequest): Array<{ output?: unknown }> {
  return (request.input ?? []).filter(
    (item) => item.type === "function_call_output" || item.type === "custom_tool_call_output",
  );
}

/** One call after another, each once the previous one's output came back; then a final text. */
function calls(...steps: Array<ScriptedResponse | (() => ScriptedResponse)>): ResponsesScript {
  return (request) => {
    const step = steps[toolOutputsOf(request).length];
    return (typeof step === "function" ? step() : step) ?? { text: "Done." };
  };
}

function exec(cmd: string, extra: Record<string, unknown> = {}): ScriptedResponse {
  return { functionCall: { name: "exec_command", arguments: { cmd, ...extra } } };
}

function outputsText(): string {
  return JSON.stringify(api!.requests.flatMap(toolOutputsOf).map((o) => o.output));
}

/** `model` picks Codex's model metadata: gpt-5.5 offers the freeform apply_patch tool, as OpenAI models do. */
async function startWith(script: ResponsesScript, model?: string): Promise<TaskApp> {
  api = await startScriptedOpenAi(script);
  const codexArgs = [...codexProviderArgs(api.baseUrl), ...(model ? ["-c", `model="${model}"`] : [])];
  app = await startTaskApp({
    env: { FAKE_KEY: "scripted-key" },
    // the scripted provider's key reaches Codex only when the user lists it (child environments are an allowlist)
    settings: { agents: { codexArgs }, environment: { inherit: ["FAKE_KEY"] } },
  });
  return app;
}

function codexTask(taskId: number, subtaskId: number, extra: Record<string, unknown> = {}) {
  return taskPayload(taskId, subtaskId, {
    bot: [{ shell_type: "Codex" }],
    model_config: { model_id: "fake-model" },
    ...extra,
  });
}

async function auditLines(a: TaskApp): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(a.t.paths.audit, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function managedFolder(a: TaskApp, taskId: number): Promise<string> {
  return path.join(await fs.realpath(a.t.paths.defaultWorkspaceRoot), String(taskId));
}

/** The next prompt for the person (the test presenter's view of the broker's queue). */
function nextPrompt(a: TaskApp, what: string): Promise<PromptRequest> {
  return waitFor(() => a.services.broker.list()[0], { what, timeoutMs: 60_000 });
}

describe.skipIf(!HAVE_CODEX)("a Codex task goes through the gate (codex-cli 0.169)", () => {
  it("an allowed command runs in the task's folder, and the audit line says codex and which rule allowed it", async () => {
    const a = await startWith(calls(exec("pwd")));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("pwd")] });
    a.send(codexTask(1101, 11001));
    const events = await a.untilTerminal(11001);

    expect(events.at(-1)!.event).toBe("response.completed");
    const block = dataOf(events.find((e) => e.event === "response.block.updated")!).block as {
      output: string;
    };
    expect(block.output.trim()).toBe(await managedFolder(a, 1101));
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({
        agentId: "codex",
        sessionKey: "task:1101",
        source: "codex-hook",
        command: "pwd",
        decision: "allow-once",
        decidedBy: expect.stringMatching(/^rule:/),
      }),
    );
  });

  it("a denied command does not run, the model sees why, and the audit line says the policy decided", async () => {
    const a = await startWith(calls(exec("touch marker-file")));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("pwd")] });
    a.send(codexTask(1102, 11002));
    const events = await a.untilTerminal(11002);

    expect(events.at(-1)!.event).toBe("response.completed");
    expect(existsSync(path.join(await managedFolder(a, 1102), "marker-file"))).toBe(false);
    expect(outputsText()).toContain("Command blocked by PreToolUse hook: Gatehouse denied this command");
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({
        agentId: "codex",
        command: "touch marker-file",
        decision: "deny",
        decidedBy: "policy",
      }),
    );
  });

  it("a grant for one run lets Codex run the command once; the second time the hook blocks it", async () => {
    const a = await startWith(calls(exec("touch first-marker"), exec("touch second-marker")));
    await a.setPolicy({
      defaults: ALLOWLIST_ONLY,
      allow: [{ pattern: realProgram("touch"), usesLeft: 1 }],
    });
    a.send(codexTask(1112, 11012));
    const events = await a.untilTerminal(11012);

    expect(events.at(-1)!.event).toBe("response.completed");
    const folder = await managedFolder(a, 1112);
    expect(existsSync(path.join(folder, "first-marker"))).toBe(true);
    expect(existsSync(path.join(folder, "second-marker"))).toBe(false);
    expect(outputsText()).toContain("Command blocked by PreToolUse hook: Gatehouse denied this command");
    const decisions = (await auditLines(a))
      .filter((line) => line.agentId === "codex")
      .map((line) => [line.command, line.decision]);
    expect(decisions).toEqual([
      ["touch first-marker", "allow-once"],
      ["touch second-marker", "deny"],
    ]);
  });

  it("a command that needs a person waits for the answer: allowed, it runs; denied, it does not", async () => {
    const a = await startWith(calls(exec("touch allowed-marker"), exec("touch denied-marker")));
    await a.setPolicy({ defaults: ASK_ME });
    a.services.broker.attachUi();
    a.send(codexTask(1103, 11003));
    const folder = await managedFolder(a, 1103);

    const first = await nextPrompt(a, "the first prompt");
    expect(first).toMatchObject({ agentId: "codex", sessionKey: "task:1103", source: "codex-hook" });
    expect(first.command).toMatchObject({ command: "touch allowed-marker" });
    expect(existsSync(path.join(folder, "allowed-marker"))).toBe(false); // Codex waits for the person
    a.services.broker.decide(first.id, { decision: "allow-once" });

    const second = await waitFor(
      () => a.services.broker.list().find((p) => p.command.command === "touch denied-marker"),
      { what: "the second prompt", timeoutMs: 60_000 },
    );
    expect(existsSync(path.join(folder, "allowed-marker"))).toBe(true);
    a.services.broker.decide(second.id, { decision: "deny" });

    const events = await a.untilTerminal(11003);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(existsSync(path.join(folder, "denied-marker"))).toBe(false);
    expect(outputsText()).toContain("Gatehouse denied this command (by you)");
    const audit = await auditLines(a);
    expect(audit).toContainEqual(
      expect.objectContaining({ agentId: "codex", command: "touch allowed-marker", decidedBy: "user" }),
    );
    expect(audit).toContainEqual(
      expect.objectContaining({
        agentId: "codex",
        command: "touch denied-marker",
        decision: "deny",
        decidedBy: "user",
      }),
    );
  });

  it("a person who denies with a reason: the model reads the reason in the call's output, and the audit line keeps it", async () => {
    const said = "Do not push to main; open a pull request instead.";
    const a = await startWith(calls(exec("touch pushed-marker")));
    await a.setPolicy({ defaults: ASK_ME });
    a.services.broker.attachUi();
    a.send(codexTask(1107, 11007));

    const prompt = await nextPrompt(a, "the prompt");
    a.services.broker.decide(prompt.id, { decision: "deny", denyReason: said });

    const events = await a.untilTerminal(11007);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(existsSync(path.join(await managedFolder(a, 1107), "pushed-marker"))).toBe(false);
    // What the scripted endpoint received from Codex: the hook's reason, in the call's output.
    expect(outputsText()).toContain(`The person denied this: ${said}`);
    expect(await auditLines(a)).toContainEqual(
      expect.objectContaining({ agentId: "codex", decision: "deny", decidedBy: "user", denyReason: said }),
    );
  });

  it("apply_patch inside the folder needs nobody; outside it prompts with the path, and a denial changes nothing", async () => {
    const outside = () => path.join(app!.t.home, "outside.txt");
    const a = await startWith(
      calls(
        {
          customCall: {
            name: "apply_patch",
            input: "*** Begin Patch\n*** Add File: inside.txt\n+hi\n*** End Patch\n",
          },
        },
        () => ({
          customCall: {
            name: "apply_patch",
            input: `*** Begin Patch\n*** Add File: ${outside()}\n+evil\n*** End Patch\n`,
          },
        }),
      ),
      "gpt-5.5",
    );
    await a.setPolicy({ defaults: ASK_ME });
    a.services.broker.attachUi();
    a.send(codexTask(1104, 11004));

    const prompt = await nextPrompt(a, "the apply_patch prompt");
    const folder = await managedFolder(a, 1104);
    expect(await fs.readFile(path.join(folder, "inside.txt"), "utf8")).toBe("hi\n");
    expect(fileAccessOf(prompt.explanation)).toMatchObject({
      tool: "apply_patch",
      access: "write",
      workdir: folder,
      paths: [{ path: outside(), where: "outside" }],
    });
    expect(renderPromptText(prompt, Date.now())).toContain(outside());
    expect(prompt.agentId).toBe("codex");
    a.services.broker.decide(prompt.id, { decision: "deny" });

    const events = await a.untilTerminal(11004);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(existsSync(outside())).toBe(false);
    expect(outputsText()).toContain("Gatehouse denied this file access (by you)");
  });

  it("a command asking for another shell or a terminal is not run, even when the command itself is allowed", async () => {
    const a = await startWith(
      calls(exec("touch zsh-marker", { shell: "zsh" }), exec("touch tty-marker", { tty: true })),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("touch")] });
    a.send(codexTask(1106, 11006));
    await a.untilTerminal(11006);

    const folder = await managedFolder(a, 1106);
    expect(existsSync(path.join(folder, "zsh-marker"))).toBe(false);
    expect(existsSync(path.join(folder, "tty-marker"))).toBe(false);
    const outputs = api!.requests.flatMap(functionOutputsOf).map((o) => String(o.output));
    // zsh is not the bash the analysis assumes: a person's call, refused under ask=off (issue 27)
    expect(outputs.some((o) => o.includes('it asks for the shell "zsh", which is not bash'))).toBe(true);
    expect(outputs.some((o) => o.includes('run it again without "tty"'))).toBe(true);
  });

  it("a tool that does nothing on this machine is allowed by the hook (create_goal)", async () => {
    const a = await startWith(
      calls({ functionCall: { name: "create_goal", arguments: { objective: "ship it" } } }),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY });
    a.send(codexTask(1107, 11007));
    const events = await a.untilTerminal(11007);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(outputsText()).toContain("ship it");
  });

  it("the task token never appears on Codex's command line, and its commands do not inherit it", async () => {
    const argvFile = () => path.join(app!.t.home, "codex-argv.txt");
    const a = await startWith(calls(exec("printenv")));
    // The Codex binary is a wrapper that records its argv, then runs the real CLI.
    const wrapper = path.join(a.t.home, "codex-wrapper.sh");
    await fs.writeFile(
      wrapper,
      `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(argvFile())}\nexec ${JSON.stringify(
        realProgram("codex", a.env.PATH),
      )} "$@"\n`,
      { mode: 0o700 },
    );
    await fs.writeFile(
      a.t.paths.settings,
      JSON.stringify({
        version: 1,
        agents: { codexPath: wrapper, codexArgs: codexProviderArgs(api!.baseUrl) },
        environment: { inherit: ["FAKE_KEY"] },
      }),
    );
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("printenv")] });
    a.send(
      codexTask(1108, 11008, {
        auth_token: "task-token-1108",
        mcp_servers: {
          wegent: {
            type: "http",
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: "Bearer ${{task_token}}" },
          },
        },
      }),
    );
    const events = await a.untilTerminal(11008);
    expect(events.at(-1)!.event).toBe("response.completed");
    const argv = await fs.readFile(argvFile(), "utf8");
    expect(argv).toContain("mcp_servers.wegent.env_http_headers.Authorization");
    expect(argv).not.toContain("task-token-1108");
    const printed = String(
      (dataOf(events.find((e) => e.event === "response.block.updated")!).block as { output: string }).output,
    );
    expect(printed).toContain("GATEHOUSE_TASK_ID=1108");
    expect(printed).not.toContain("task-token-1108");
  });

  it("printenv run by Codex shows none of the secrets: device token and socket token", async () => {
    const a = await startWith(calls(exec("printenv")));
    await a.setPolicy({ defaults: ALLOWLIST_ONLY, allow: [realProgram("printenv")] });
    a.send(codexTask(1109, 11009));
    const events = await a.untilTerminal(11009);
    const printed = String(
      (dataOf(events.find((e) => e.event === "response.block.updated")!).block as { output: string }).output,
    );
    expect(printed).toContain("GATEHOUSE_TASK_ID=1109");
    const approvals = JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")) as {
      socket: { token: string };
    };
    expect(printed).not.toContain(approvals.socket.token);
    expect(printed).not.toContain(TOKEN);
  });
});

// The attacks: the whole runner as uid 65534 (other-user-runner.ts) in a temp home that user owns, so
// were the gate ever to let one through, it would run with that user's rights only. Nobody is there to
// ask: askFallback decides. That Codex does write the NEL patch's second file when nothing is in the way
// is shown, as uid 65534, by test/integration/runtime/apply-patch-codex.test.ts ("the attacks are real").
let runner: OtherUserRunner | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
});

async function startRunnerWith(options: {
  script: ResponsesScript;
  model?: string;
  defaults: { security: "allowlist" | "full"; ask: "off"; askFallback: "deny" };
  prepare?: (t: TempHome) => Promise<void>;
}): Promise<OtherUserRunner> {
  api = await startScriptedOpenAi(options.script);
  const codexArgs = [
    ...codexProviderArgs(api.baseUrl),
    ...(options.model ? ["-c", `model="${options.model}"`] : []),
  ];
  runner = await startOtherUserRunner({
    env: { FAKE_KEY: "scripted-key" },
    defaults: options.defaults,
    settings: { agents: { codexArgs }, environment: { inherit: ["FAKE_KEY"] } },
    ...(options.prepare ? { prepare: options.prepare } : {}),
  });
  return runner;
}

/** The task's managed folder made before the turn (the workspace root private, as the runner makes it). */
async function madeFolder(t: TempHome, taskId: number): Promise<string> {
  const folder = path.join(t.paths.defaultWorkspaceRoot, String(taskId));
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  await fs.chmod(t.paths.defaultWorkspaceRoot, 0o700);
  return folder;
}

describe.skipIf(otherUserUnavailable !== null || !HAVE_CODEX)(
  "a Codex task's attacks go through the gate (runner as uid 65534)",
  () => {
    it("a patch with a NEL before a header aimed outside the folder is refused as a whole, the marker absent, audited", async () => {
      const marker = () => path.join(runner!.t.home, "nel-marker.txt");
      const r = await startRunnerWith({
        script: calls(() => ({
          customCall: {
            name: "apply_patch",
            // Codex trims the NEL (Rust's whitespace), so the second header counts: it writes the marker.
            input: `*** Begin Patch\n*** Add File: inside.txt\n+hi\n\u0085*** Add File: ${marker()}\n+evil\n*** End Patch\n`,
          },
        })),
        model: "gpt-5.5",
        defaults: ALLOWLIST_ONLY,
      });
      const events = await r.run(codexTask(1110, 11010), 11010);

      expect(events.at(-1)!.event).toBe("response.completed");
      const folder = path.join(r.t.paths.defaultWorkspaceRoot, "1110");
      expect(existsSync(marker())).toBe(false);
      expect(existsSync(path.join(folder, "inside.txt"))).toBe(false);
      expect(outputsText()).toContain("Gatehouse denied this file access (by policy)");
      expect(await r.audit()).toContainEqual(
        expect.objectContaining({
          agentId: "codex",
          source: "codex-hook",
          command: `apply_patch ${path.join(folder, "inside.txt")} ${marker()}`,
          decision: "deny",
          decidedBy: "policy",
        }),
      );
    }, 240_000);

    it("an `apply_patch <<'EOF'` command, which Codex applies itself, is judged as its patch: a write through a link into Gatehouse's data is refused even under security=full", async () => {
      const r = await startRunnerWith({
        script: calls(
          exec(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: data-link/heredoc-marker.txt\n+evil\n*** End Patch\nEOF\n",
          ),
        ),
        defaults: { security: "full", ask: "off", askFallback: "deny" },
        // The task's folder holds a link into Gatehouse's own folder (the command's text never names it).
        prepare: async (t) =>
          fs.symlink(t.paths.executorHome, path.join(await madeFolder(t, 1111), "data-link")),
      });
      const events = await r.run(codexTask(1111, 11011), 11011);

      expect(events.at(-1)!.event).toBe("response.completed");
      expect(existsSync(path.join(r.t.paths.executorHome, "heredoc-marker.txt"))).toBe(false);
      expect(outputsText()).toContain("Gatehouse denied this file access");
      expect(await r.audit()).toContainEqual(
        expect.objectContaining({
          agentId: "codex",
          command: `apply_patch ${path.join(r.t.paths.executorHome, "heredoc-marker.txt")}`,
          decision: "deny",
        }),
      );
    }, 240_000);

    it("a trusted repository's .codex config cannot switch the hook off or run hooks of its own", async () => {
      let folder = "";
      let repoHookRan = "";
      const r = await startRunnerWith({
        script: calls(exec("touch marker-file")),
        defaults: ALLOWLIST_ONLY,
        prepare: async (t) => {
          folder = await madeFolder(t, 1105);
          repoHookRan = path.join(t.home, "repo-hook-ran");
          await fs.mkdir(path.join(folder, ".codex"));
          await fs.writeFile(path.join(folder, ".codex", "config.toml"), "[features]\nhooks = false\n");
          await fs.writeFile(
            path.join(folder, ".codex", "hooks.json"),
            JSON.stringify({
              hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${repoHookRan}` }] }] },
            }),
          );
          // The user trusts this folder in their own Codex configuration.
          await fs.mkdir(t.paths.codexHome, { recursive: true });
          await fs.writeFile(
            path.join(t.paths.codexHome, "config.toml"),
            `[projects.${JSON.stringify(folder)}]\ntrust_level = "trusted"\n`,
          );
        },
      });
      await r.run(codexTask(1105, 11005), 11005);

      expect(existsSync(path.join(folder, "marker-file"))).toBe(false);
      expect(existsSync(repoHookRan)).toBe(false);
      expect(outputsText()).toContain("Gatehouse denied this command");
    }, 240_000);
  },
);
