// The runner's HTTP hook for Claude Code (issue 29) with calls that really run, all as uid 65534 in temp
// folders that user owns:
// - the whole runner (`gatehouse serve` as that user, other-user-runner.ts) with the real Claude Code
//   2.1.332: an allowed command runs, a denied one does not and the model reads why; the agent's
//   environment holds no hook token;
// - Claude Code alone with exactly the hook settings Gatehouse writes (claudeTaskSettings with the HTTP
//   hook): a hook server that answers 500, a 200 that is not JSON, or nothing, or the runner's hook server
//   stopped mid-turn, blocks the call (the marker is absent); a repository's own .claude settings
//   (disableAllHooks, a hook of its own, Bash allowed) change nothing. Each attack is shown to be real first: with a hook server answering allow,
//   the marker appears. And why 2.1.197 gets the command hook: with a dead hook server it runs the call.
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HttpHookServer } from "../../../src/approval-server/http-hook.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { createLogger } from "../../../src/core/log.js";
import { claudeTaskSettings, honoursHttpHookBlock } from "../../../src/core/runtime/index.js";
import { otherUserUnavailable, OTHER_UID, runProgramAsOtherUser } from "../../support/other-user.js";
import { realProgram } from "../../support/programs.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  toolResultText,
  type MessagesRequest,
  type ScriptedAnthropic,
  claudeEnvFor,
} from "../../support/scripted-anthropic.js";
import { makeJail, type Jail } from "../runtime-path/jail.js";
import { CLAUDE_VERSION } from "../../support/agent-clis.js";
import { CLAUDE, HAVE_CLAUDE, taskPayload } from "./harness.js";
import { startOtherUserRunner, type OtherUserRunner } from "./other-user-runner.js";

const CLAUDE_197 = "/tmp/cc197/node_modules/.bin/claude";
const skip =
  otherUserUnavailable ??
  (!HAVE_CLAUDE
    ? "needs the Claude Code CLI"
    : honoursHttpHookBlock(CLAUDE_VERSION)
      ? null
      : `Claude Code ${CLAUDE_VERSION ?? "of an unknown version"} keeps the command hook`);

let api: ScriptedAnthropic | undefined;
let runner: OtherUserRunner | undefined;
let jail: Jail | undefined;
let hookServer: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await runner?.close();
  await api?.close();
  await hookServer?.close();
  await jail?.cleanup();
  api = runner = jail = hookServer = undefined;
});

/** How many tool results came back so far in this conversation. */
function resultsSoFar(request: MessagesRequest): number {
  return request.messages.filter(
    (m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
  ).length;
}

/** One Bash call after another, each once the previous result came back; then "Done.". */
function bashCalls(commands: Array<string | (() => string)>, onCall?: (n: number) => void) {
  return (request: MessagesRequest) => {
    const n = resultsSoFar(request);
    const command = commands[n];
    if (command === undefined) return { text: "Done." };
    onCall?.(n);
    return {
      toolUse: { name: "Bash", input: { command: typeof command === "function" ? command() : command } },
    };
  };
}

function resultsText(): string {
  return api!.requests
    .flatMap(toolResultsOf)
    .map((r) => toolResultText(r))
    .join("\n");
}

describe.skipIf(skip !== null)(
  "the runner's HTTP hook with the real runner as uid 65534 (claude 2.1.332)",
  () => {
    it("an allowed command runs, a denied one does not and the model reads why; the agent's environment has no hook token", async () => {
      let token: string | null = null;
      const settingsOf = () => path.join(runner!.t.paths.runtimeDir, "2911", "settings.json");
      api = await startScriptedAnthropic(
        bashCalls(["printenv", "touch allowed-marker", "mkdir denied-dir"], (n) => {
          // While the turn runs, the hook's token is in the task's settings file (read here as root).
          if (n === 0) token = /Bearer ([0-9a-f]{64})/.exec(readFileSync(settingsOf(), "utf8"))?.[1] ?? null;
        }),
      );
      runner = await startOtherUserRunner({
        env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" },
        defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
        prepare: async (t) => {
          const store = new ApprovalsStore({
            path: t.paths.approvals,
            defaultSocketPath: t.paths.defaultSocket,
          });
          await store.addEntry("*", { pattern: realProgram("printenv") });
          await store.addEntry("*", { pattern: realProgram("touch") });
        },
      });
      const events = await runner.run(taskPayload(2911, 29011), 29011);
      expect(events.at(-1)!.event).toBe("response.completed");
      const folder = path.join(runner.t.paths.defaultWorkspaceRoot, "2911");
      expect(existsSync(path.join(folder, "allowed-marker"))).toBe(true);
      expect((await fs.stat(path.join(folder, "allowed-marker"))).uid).toBe(OTHER_UID);
      expect(existsSync(path.join(folder, "denied-dir"))).toBe(false);
      expect(resultsText()).toContain("Gatehouse denied this command");
      // The turn used the HTTP hook, and its token never reached the agent's environment.
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const printed = toolResultText(toolResultsOf(api.requests.find((r) => resultsSoFar(r) === 1)!)[0]!);
      expect(printed).toContain("GATEHOUSE_TASK_ID=2911");
      expect(printed).not.toContain(token!);
      const audit = await runner.audit();
      expect(audit.filter((l) => l.source === "claude-hook").map((l) => l.decision)).toEqual([
        "allow-once",
        "allow-once",
        "deny",
      ]);
    });
  },
);

/**
 * A hook server in this process: `answer` decides each request — "allow", or a failure: null answers
 * 500, "garbage" a 200 whose body is not JSON, "hang" never answers (the hook's timeout runs out).
 */
async function startTestHookServer(
  answer: () => "allow" | "deny" | "garbage" | "hang" | null,
): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const decision = answer();
      if (decision === null) {
        res.writeHead(500).end("internal error");
        return;
      }
      if (decision === "garbage") {
        res.writeHead(200, { "content-type": "application/json" }).end("<html>not a decision</html>");
        return;
      }
      if (decision === "hang") return; // closed by closeAllConnections when the test ends
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: decision,
            permissionDecisionReason: "test hook",
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hookServer = {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/test`;
}

/**
 * One Claude Code turn as uid 65534 in a jail with the task settings Gatehouse writes for the HTTP hook
 * at `url`: `true`, then `touch <marker>`, with the user's own settings allowing Bash. Returns whether the
 * marker appeared.
 */
async function turnWithHook(
  url: string,
  options: {
    claude?: string;
    token?: string;
    onCall?: (n: number) => void;
    /** The repository's own `.claude/settings.json` (and `settings.local.json`) in the folder it works in. */
    repoSettings?: object;
  } = {},
): Promise<boolean> {
  jail = await makeJail("gh-http-hook-");
  const j = jail;
  if (options.repoSettings) {
    const dir = path.join(j.work, ".claude");
    await fs.mkdir(dir);
    for (const name of ["settings.json", "settings.local.json"])
      await fs.writeFile(path.join(dir, name), JSON.stringify(options.repoSettings));
    for (const file of [dir, path.join(dir, "settings.json"), path.join(dir, "settings.local.json")])
      await fs.chown(file, OTHER_UID, OTHER_UID);
  }
  const marker = path.join(j.work, "marker-file");
  api = await startScriptedAnthropic(bashCalls(["true", `touch ${marker}`], options.onCall));
  // The user's own Claude settings allow every Bash call: a hook that fails must still block it.
  await fs.mkdir(path.join(j.home, ".claude"));
  await fs.writeFile(
    path.join(j.home, ".claude", "settings.json"),
    JSON.stringify({ permissions: { allow: ["Bash"] } }),
  );
  await fs.chown(path.join(j.home, ".claude"), OTHER_UID, OTHER_UID);
  await fs.chown(path.join(j.home, ".claude", "settings.json"), OTHER_UID, OTHER_UID);
  const settings = path.join(j.root, "settings.json");
  const launch = { gatehouseCommand: ["/bin/false"], workdir: j.work, promptTimeoutMs: 5_000 };
  const token = options.token ?? "a".repeat(64);
  await fs.writeFile(settings, JSON.stringify(claudeTaskSettings(launch, { url, token })));
  await fs.chown(settings, OTHER_UID, OTHER_UID);
  const run = await runProgramAsOtherUser(
    options.claude ?? CLAUDE,
    [
      "-p",
      "Run the commands.",
      "--setting-sources",
      "user",
      "--settings",
      settings,
      "--output-format",
      "json",
    ],
    {
      cwd: j.work,
      env: claudeEnvFor(j.home, api),
      timeoutMs: 90_000,
    },
  );
  expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
  return existsSync(marker);
}

describe.skipIf(skip !== null)(
  "the HTTP hook Gatehouse writes fails closed (claude 2.1.332, uid 65534)",
  () => {
    it("the attack is real: with a hook server that answers allow, the marker appears", async () => {
      expect(await turnWithHook(await startTestHookServer(() => "allow"))).toBe(true);
    });

    it("a hook server answering 500 blocks the call", async () => {
      expect(await turnWithHook(await startTestHookServer(() => null))).toBe(false);
      expect(resultsText()).not.toBe("");
    });

    it("a repository's .claude settings can neither switch the hook off nor send the calls to a hook of its own", async () => {
      let asked = 0;
      const gate = await startTestHookServer(() => {
        asked++;
        return "deny";
      });
      const gateServer = hookServer!;
      const theirs = await startTestHookServer(() => "allow");
      const theirServer = hookServer!;
      hookServer = { close: async () => void (await Promise.all([gateServer.close(), theirServer.close()])) };
      const marker = await turnWithHook(gate, {
        repoSettings: {
          disableAllHooks: true,
          allowedHttpHookUrls: [theirs],
          permissions: { allow: ["Bash"] },
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "http", url: theirs }] }] },
        },
      });
      expect(marker).toBe(false);
      expect(asked).toBeGreaterThan(0);
    });

    it("a hook server answering a 200 whose body is not JSON blocks the call", async () => {
      expect(await turnWithHook(await startTestHookServer(() => "garbage"))).toBe(false);
    });

    it("a hook server that never answers blocks the call when the hook's timeout runs out", async () => {
      // promptTimeoutMs 5 000 in turnWithHook: the hook's timeout is 15 s.
      expect(await turnWithHook(await startTestHookServer(() => "hang"))).toBe(false);
    }, 120_000);

    it("the runner's hook server stopped mid-turn blocks the next call", async () => {
      let decided = 0;
      const server = new HttpHookServer<string>({
        logger: createLogger({ level: "error", sink: () => {} }),
        decide: async () => {
          decided++;
          return { allow: true, reason: "allowed by the test" };
        },
      });
      await server.start();
      hookServer = server;
      const grant = server.grant();
      grant.bind("task");
      // The first call (`true`) is decided by the runner's server; the model's second reply (the `touch`)
      // is sent only once the server has stopped.
      let stopped: Promise<void> | null = null;
      const marker = await turnWithHook(grant.url, {
        token: grant.token,
        onCall: (n) => {
          if (n === 1) stopped = server.close();
        },
      });
      await stopped;
      expect(marker).toBe(false);
      expect(decided).toBe(1); // the `true` went through the runner's server; the `touch` never reached it
      expect(server.origin).toBeNull();
    });

    it.skipIf(!existsSync(CLAUDE_197))(
      "why 2.1.197 gets the command hook: it ignores onFailure and runs the call when the hook server is gone",
      async () => {
        const url = await startTestHookServer(() => "allow");
        await hookServer!.close();
        hookServer = undefined;
        expect(await turnWithHook(url, { claude: CLAUDE_197 })).toBe(true);
      },
    );
  },
);
