// gate.turn's Claude Code part (gate-turn-driver.ts runs it): a real Claude Code turn of N `echo` Bash
// calls against the scripted Messages API, in four configurations:
//   none    — no hook, Bash pre-allowed in the settings (the baseline);
//   command — the command hook Gatehouse writes (`gatehouse hook claude`), the Gatehouse running;
//   http    — the runner's HTTP hook Gatehouse writes, served by that same running Gatehouse;
//   floor   — the same HTTP hook settings against a 127.0.0.1 server that answers allow at once.
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { claudeTaskSettings } from "../../src/core/runtime/index.js";
import { claudeHookOutput } from "../../src/shared/claude-hook-output.js";
import { startScriptedAnthropic } from "../support/scripted-anthropic.js";
import { runAgent, type GateTurnSetup, type TurnAgent, type TurnOutcome } from "./gate-turn-shared.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → node_modules/.bin/claude */
const CLAUDE = process.env.GH_CLAUDE_BIN ?? path.resolve(here, "../../../node_modules/.bin/claude");
const CONFIGS = ["none", "command", "http", "floor"] as const;
type Config = (typeof CONFIGS)[number];

export async function claudeTurns(setup: GateTurnSetup): Promise<TurnAgent> {
  const { root, work, env, services, calls, launch } = setup;
  await services.httpHook.start();

  let times: number[] = [];
  const api = await startScriptedAnthropic((request) => {
    times.push(performance.now());
    const n = request.messages.filter(
      (m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    ).length;
    return n < calls
      ? { toolUse: { name: "Bash", input: { command: `echo call-${n}` } } }
      : { text: "Done." };
  });

  const settingsFile = (config: Config) => path.join(root, `settings-${config}.json`);
  await fs.writeFile(settingsFile("none"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
  await fs.writeFile(settingsFile("command"), JSON.stringify(claudeTaskSettings(launch)));
  const grant = services.httpHook.grant();
  const agentEnv = {
    ...env,
    SHELL: "/bin/bash",
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "scripted-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  grant.bind({
    verified: { taskId: "bench", runtime: "claude-code", agent: "claude-code" },
    workdir: work,
    promptTimeoutMs: launch.promptTimeoutMs,
    env: agentEnv,
  });
  await fs.writeFile(
    settingsFile("http"),
    JSON.stringify(claudeTaskSettings(launch, { url: grant.url, token: grant.token })),
    { mode: 0o600 },
  );

  // The floor: what an HTTP hook costs Claude Code when the answer costs nothing.
  const floor = http.createServer((req, res) => {
    req.resume().on("end", () => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(claudeHookOutput({ allow: true, reason: "floor" }));
    });
  });
  await new Promise<void>((resolve) => floor.listen(0, "127.0.0.1", resolve));
  const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/hook/floor`;
  await fs.writeFile(
    settingsFile("floor"),
    JSON.stringify(claudeTaskSettings(launch, { url: floorUrl, token: "f".repeat(64) })),
  );

  return {
    name: "gate.turn",
    configs: CONFIGS,
    measured: "http",
    unit: "ms added per tool call (runner's HTTP hook, median)",
    target: "Claude Code <= +25 ms per call over no hook (median, >= 8 rounds)",
    limitMs: 25,
    async turn(config): Promise<TurnOutcome> {
      times = [];
      const before = api.requests.length;
      await runAgent(
        `claude (${config})`,
        CLAUDE,
        [
          "-p",
          "Run the commands.",
          "--setting-sources",
          "user",
          "--settings",
          settingsFile(config as Config),
        ],
        { cwd: work, env: agentEnv },
      );
      // Every tool result of the conversation, as the last request carries them.
      const last = api.requests
        .slice(before)
        .filter((r) => Array.isArray(r.tools) && r.tools.length > 0)
        .at(-1);
      const results = (last?.messages ?? []).flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
      );
      if (results.length !== calls || results.some((r) => r.is_error === true)) {
        const errors = results.filter((r) => r.is_error === true).map((r) => JSON.stringify(r.content));
        return { failed: `${results.length} results, errors ${errors.join(" | ")}` };
      }
      return { times };
    },
    async close() {
      await api.close();
      floor.closeAllConnections();
      floor.close();
    },
  };
}
