// The runner serves Claude Code's hook over HTTP (issue 29): the real app (task harness) runs the real
// Claude Code 2.1.332 against the scripted Messages API; its task settings name the runner's HTTP hook,
// whose token proves the task. Nothing the policy lets through runs here (this process is root): the
// commands are denied, by a person (the test presenter) or by the policy; calls that run are in
// claude-http-hook-attacks.test.ts, as uid 65534.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { honoursHttpHookBlock } from "../../../src/core/runtime/index.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type ScriptedAnthropic,
} from "../../support/scripted-anthropic.js";
import { waitFor } from "../../support/wait-for.js";
import { CLAUDE_VERSION } from "../../support/agent-clis.js";
import { HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = api = undefined;
});

interface HttpAnswer {
  status: number;
  decision: string | undefined;
  reason: string | undefined;
}

/** A plain HTTP request to the hook, as another local process (or a web page) could send it. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string = JSON.stringify({ tool_name: "Bash", tool_input: { command: "touch x" } }),
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => {
        const output = (() => {
          try {
            return (JSON.parse(text) as { hookSpecificOutput?: Record<string, string> }).hookSpecificOutput;
          } catch {
            return undefined;
          }
        })();
        resolve({
          status: res.statusCode ?? 0,
          decision: output?.permissionDecision,
          reason: output?.permissionDecisionReason,
        });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface HttpHookSettings {
  allowedHttpHookUrls: string[];
  hooks: {
    PreToolUse: Array<{
      matcher: string;
      hooks: Array<{
        type: string;
        url: string;
        headers: Record<string, string>;
        onFailure: string;
        timeout: number;
      }>;
    }>;
  };
}

// An older Claude Code under test (CI's run against the oldest supported) keeps the command hook.
describe.skipIf(!HAVE_CLAUDE || !honoursHttpHookBlock(CLAUDE_VERSION))(
  "Claude Code tasks through the runner's HTTP hook (claude 2.1.332)",
  () => {
    it("the installed Claude Code is one that blocks a call when its HTTP hook fails", () => {
      expect(honoursHttpHookBlock(CLAUDE_VERSION)).toBe(true);
      expect(honoursHttpHookBlock("2.1.197")).toBe(false);
      expect(honoursHttpHookBlock(null)).toBe(false);
    });

    it("the agent cannot read its own settings file (the hook's token): the file gate refuses it without asking", async () => {
      const settingsFile = () => path.join(app!.t.paths.runtimeDir, "2902", "settings.json");
      api = await startScriptedAnthropic((request) =>
        request.messages.some(
          (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
        )
          ? { text: "Done." }
          : { toolUse: { name: "Read", input: { file_path: settingsFile() } } },
      );
      const a = (app = await startTaskApp({
        env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
      }));
      await a.setPolicy({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
      a.services.broker.attachUi();
      a.send(taskPayload(2902, 29002));
      await a.untilTerminal(29002);
      const results = api.requests.flatMap(toolResultsOf);
      expect(results).toHaveLength(1);
      expect(results[0]!.is_error).toBe(true);
      expect(toolResultText(results[0]!)).toContain("Gatehouse's own data");
      expect(toolResultText(results[0]!)).not.toContain("Bearer");
    });

    it("an ask waits for the person; a forged request (no token, wrong token, Origin, other Host, too big) is refused meanwhile, and the token stops counting when the task ends", async () => {
      api = await startScriptedAnthropic((request) =>
        request.messages.some(
          (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
        )
          ? { text: "Done." }
          : { toolUse: { name: "Bash", input: { command: "touch marker-file" } } },
      );
      const a = (app = await startTaskApp({
        env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
      }));
      await a.setPolicy({ defaults: ASK_ME });
      a.services.broker.attachUi();
      a.send(taskPayload(2901, 29001));

      const prompt = await waitFor(() => a.services.broker.list()[0], {
        what: "the prompt for touch",
        timeoutMs: 60_000,
      });
      expect(prompt).toMatchObject({
        sessionKey: "task:2901",
        source: "claude-hook",
        agentId: "claude-code",
      });
      expect(prompt.verified).toMatchObject({ taskId: "2901", agent: "claude-code" });

      // The task's settings: the HTTP hook with its token written literally, in a 0600 file.
      const file = path.join(a.t.paths.runtimeDir, "2901", "settings.json");
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const settings = JSON.parse(await fs.readFile(file, "utf8")) as HttpHookSettings;
      const hook = settings.hooks.PreToolUse[0]!;
      expect(hook.matcher).toBe("*");
      const entry = hook.hooks[0]!;
      expect(entry).toMatchObject({ type: "http", onFailure: "block", timeout: 130 });
      expect(settings.allowedHttpHookUrls).toEqual([entry.url]);
      const url = new URL(entry.url);
      expect(url.hostname).toBe("127.0.0.1");
      const token = /^Bearer ([0-9a-f]{64})$/.exec(entry.headers.Authorization!)![1]!;

      const right = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const refused = [
        await post(entry.url, { "content-type": "application/json" }),
        await post(entry.url, { ...right, authorization: `Bearer ${"0".repeat(64)}` }),
        await post(entry.url, { ...right, origin: "http://evil.example" }),
        await post(entry.url, { ...right, host: `localhost:${url.port}` }),
        await post(`${url.origin}/hook/${"a".repeat(48)}`, right),
        await post(
          entry.url,
          right,
          JSON.stringify({ tool_name: "Write", pad: "x".repeat(5 * 1024 * 1024) }),
        ),
      ];
      expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 413]);
      // Every answer is still an explicit decision: a deny.
      expect(refused.every((r) => r.decision === "deny")).toBe(true);
      // None of them reached the person.
      expect(a.services.broker.list()).toHaveLength(1);

      a.services.broker.decide(prompt.id, { decision: "deny" });
      await a.untilTerminal(29001);
      const folder = path.join(a.t.paths.defaultWorkspaceRoot, "2901");
      expect(existsSync(path.join(folder, "marker-file"))).toBe(false);
      const results = api.requests.flatMap(toolResultsOf).map((r) => toolResultText(r));
      expect(results.join("\n")).toContain("Gatehouse denied this command (by you)");

      // The task ended: its address and token count no more.
      await a.services.tasks!.idle();
      expect(a.services.httpHook.size).toBe(0);
      const late = await post(entry.url, right);
      expect(late).toMatchObject({ status: 403, decision: "deny" });
    });
  },
);
