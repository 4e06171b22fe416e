// Issue 27 class 1 through the whole runner: paths are judged in the form the agent opens them. Real
// Claude Code and real Codex turns (scripted model endpoints) under `gatehouse serve` running as uid 65534
// (other-user-runner.ts), with the settings — allowlist, ask=on-miss, askFallback=deny, nobody to
// ask. Each attack names a marker or a secret that must not appear. That the same calls do land where
// they aim when no gate is in the way is shown, also as uid 65534, by test/integration/runtime-path/.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../../support/temp-home.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import {
  startScriptedAnthropic,
  type ContentBlock,
  type MessagesRequest,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import {
  codexProviderArgs,
  startScriptedOpenAi,
  type ResponsesRequest,
  type ScriptedOpenAi,
  type ScriptedResponse,
} from "../../support/scripted-openai.js";
import { HAVE_CLAUDE, HAVE_CODEX, taskPayload } from "./harness.js";
import { startOtherUserRunner, type OtherUserRunner } from "./other-user-runner.js";

const ASK_ME_NOBODY_THERE = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

let runner: OtherUserRunner | undefined;
let claudeApi: ScriptedAnthropic | undefined;
let codexApi: ScriptedOpenAi | undefined;
afterEach(async () => {
  await runner?.close();
  await claudeApi?.close();
  await codexApi?.close();
  runner = claudeApi = codexApi = undefined;
});

/**
 * The task's managed folder, made before the turn, with a link `deep → a/a/a/a` in it: through the link
 * `deep/../../../../x` is the folder's `a/x`; as text it is two folders above the workspace, in HOME.
 */
async function folderWithDeepLink(t: TempHome, taskId: number): Promise<string> {
  const folder = path.join(t.paths.defaultWorkspaceRoot, String(taskId));
  await fs.mkdir(path.join(folder, "a", "a", "a", "a"), { recursive: true, mode: 0o700 });
  await fs.chmod(t.paths.defaultWorkspaceRoot, 0o700);
  await fs.symlink(path.join("a", "a", "a", "a"), path.join(folder, "deep"));
  return folder;
}

function allText(blocks: unknown): string {
  return JSON.stringify(blocks);
}

function toolResultsIn(request: MessagesRequest): ContentBlock[] {
  return request.messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
  );
}

async function socketToken(t: TempHome): Promise<string> {
  const approvals = JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as { socket: { token: string } };
  return approvals.socket.token;
}

describe.skipIf(otherUserUnavailable !== null || !HAVE_CLAUDE)(
  "Claude Code's file tools are judged on the path Claude Code opens (runner as uid 65534)",
  () => {
    it("a Write with a leading em-space into ~, a Read of E's approvals file behind an em-space and a Write down `deep/../..` through a link are refused and audited", async () => {
      let folder = "";
      let home = "";
      let approvals = "";
      claudeApi = await startScriptedAnthropic((request) =>
        toolResultsIn(request).length > 0
          ? { text: "Done." }
          : {
              toolUses: [
                // (not ~/.zshenv: Claude Code itself refuses that sensitive file, whatever the hook says)
                { name: "Write", input: { file_path: "\u2003~/em-marker", content: "em\n" } },
                { name: "Read", input: { file_path: `\u2003${approvals}` } },
                {
                  name: "Write",
                  input: { file_path: `${folder}/deep/../../../../escape-marker`, content: "x\n" },
                },
              ],
            },
      );
      runner = await startOtherUserRunner({
        env: { ANTHROPIC_BASE_URL: claudeApi.url, ANTHROPIC_API_KEY: "scripted-key" },
        defaults: ASK_ME_NOBODY_THERE,
        prepare: async (t) => {
          folder = await folderWithDeepLink(t, 2701);
          home = t.home;
          approvals = t.paths.approvals;
        },
      });
      const events = await runner.run(taskPayload(2701, 27001), 27001);
      expect(events.at(-1)!.event).toBe("response.completed");

      expect(existsSync(path.join(home, "em-marker"))).toBe(false);
      expect(existsSync(path.join(home, "escape-marker"))).toBe(false);
      expect(existsSync(path.join(folder, "a", "escape-marker"))).toBe(false);
      const results = toolResultsIn(claudeApi.requests.at(-1)!);
      expect(results).toHaveLength(3);
      expect(results.every((r) => r.is_error === true)).toBe(true);
      const seen = claudeApi.requests.map((r) => allText(r.messages)).join("\n");
      expect(seen).not.toContain(await socketToken(runner.t));
      expect(allText(results)).toContain("Gatehouse's own data");

      const audit = await runner.audit();
      const refused = audit.filter((l) => l.source === "claude-hook" && l.decision !== "allow-once");
      expect(refused.map((l) => l.command)).toEqual(
        expect.arrayContaining([
          `Write ${path.join(home, "em-marker")}`,
          `Read ${approvals}`,
          `Write ${path.join(home, "escape-marker")}`,
        ]),
      );
    }, 240_000);
  },
);

function outputsOf(request: ResponsesRequest): Array<{ output?: unknown }> {
  return (request.input ?? []).filter(
    (item) => item.type === "function_call_output" || item.type === "custom_tool_call_output",
  );
}

const patch = (...files: string[]) =>
  [
    "*** Begin Patch",
    ...files.flatMap((f) => [`*** Add File: ${f}`, "+touch ~/patched-ran"]),
    "*** End Patch",
    "",
  ].join("\n");

describe.skipIf(otherUserUnavailable !== null || !HAVE_CODEX)(
  "Codex's path-taking tools are judged on the path Codex opens (runner as uid 65534)",
  () => {
    it("apply_patch down `deep/../..` through a link, view_image with an em-space and view_image of E's approvals file through the link are refused and audited", async () => {
      const steps: ScriptedResponse[] = [
        { customCall: { name: "apply_patch", input: patch("deep/../../../../escape-marker") } },
        // Codex does not trim: this is a folder named "\u2003~" in the task's folder, but the character needs a person.
        { functionCall: { name: "view_image", arguments: { path: "\u2003~/.ssh/id_rsa" } } },
        { functionCall: { name: "view_image", arguments: { path: "deep/../../../exec-approvals.json" } } },
      ];
      codexApi = await startScriptedOpenAi(
        (request) => steps[outputsOf(request).length] ?? { text: "Done." },
      );
      let folder = "";
      let home = "";
      runner = await startOtherUserRunner({
        env: { FAKE_KEY: "scripted-key" },
        defaults: ASK_ME_NOBODY_THERE,
        settings: {
          agents: { codexArgs: [...codexProviderArgs(codexApi.baseUrl), "-c", 'model="gpt-5.5"'] },
          environment: { inherit: ["FAKE_KEY"] },
        },
        prepare: async (t) => {
          folder = await folderWithDeepLink(t, 2702);
          home = t.home;
        },
      });
      const events = await runner.run(
        taskPayload(2702, 27002, {
          bot: [{ shell_type: "Codex" }],
          model_config: { model_id: "fake-model" },
        }),
        27002,
      );
      expect(events.at(-1)!.event).toBe("response.completed");

      expect(existsSync(path.join(home, "escape-marker"))).toBe(false);
      expect(existsSync(path.join(folder, "a", "escape-marker"))).toBe(false);
      const outputs = outputsOf(codexApi.requests.at(-1)!).map((o) => String(o.output));
      expect(outputs).toHaveLength(3);
      for (const output of outputs) expect(output).toContain("blocked by PreToolUse hook");
      expect(outputs[2]).toContain("Gatehouse's own data");
      // outputs[1]: a read inside the task's folder needs nobody, so the refusal is the em-space's doing.
      expect(codexApi.requests.map((r) => JSON.stringify(r.input)).join("\n")).not.toContain(
        await socketToken(runner.t),
      );

      const audit = await runner.audit();
      const refused = audit.filter((l) => l.source === "codex-hook" && l.decision !== "allow-once");
      expect(refused.map((l) => l.command)).toEqual(
        expect.arrayContaining([
          `apply_patch ${path.join(home, "escape-marker")}`,
          `view_image '${path.join(folder, "\u2003~", ".ssh", "id_rsa")}'`, // quoted for display
          `view_image ${path.join(path.dirname(path.dirname(folder)), "exec-approvals.json")}`,
        ]),
      );
    }, 240_000);
  },
);
