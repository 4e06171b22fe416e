// gate.turn.codex, Codex's part of gate.turn (gate-turn-driver.ts runs it): a real `codex exec` turn of
// N `echo` exec_command calls against the scripted Responses API, in two configurations:
//   none    — the task's settings without the hook (no sandbox, no approvals: exec_command runs unasked);
//   command — exactly the `-c` overrides Gatehouse passes a task (`codexGateArgs`: `gatehouse hook codex`
//             as the PreToolUse hook), the Gatehouse running.
// Codex keeps the command hook (docs/decisions.md "Codex keeps the command hook"), so `command` is what
// the gate costs a Codex task.
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { codexGateArgs } from "../../src/core/runtime/index.js";
import { codexProviderArgs, functionOutputsOf, startScriptedOpenAi } from "../support/scripted-openai.js";
import { runAgent, type GateTurnSetup, type TurnAgent, type TurnOutcome } from "./gate-turn-shared.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/test/bench → node_modules/.bin/codex */
const CODEX = process.env.GH_CODEX_BIN ?? path.resolve(here, "../../../node_modules/.bin/codex");
const CONFIGS = ["none", "command"] as const;
type Config = (typeof CONFIGS)[number];
const HOOK_TRUST_FLAG = "--dangerously-bypass-hook-trust";

/** `args` without the hook: its trust flag and the `-c features.hooks=…` and `-c hooks.…` overrides. */
function withoutHook(args: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === HOOK_TRUST_FLAG) continue;
    const value = arg === "-c" ? args[i + 1] : undefined;
    if (value !== undefined && (value.startsWith("features.hooks=") || value.startsWith("hooks."))) {
      i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

export async function codexTurns(setup: GateTurnSetup): Promise<TurnAgent> {
  const { work, env, paths, calls, launch } = setup;
  await fs.mkdir(paths.codexHome, { recursive: true, mode: 0o700 });

  let times: number[] = [];
  const api = await startScriptedOpenAi((request) => {
    times.push(performance.now());
    const n = functionOutputsOf(request).length;
    return n < calls
      ? { functionCall: { name: "exec_command", arguments: { cmd: `echo call-${n}` } } }
      : { text: "Done." };
  });

  const gated = codexGateArgs(launch);
  const args: Record<Config, string[]> = { none: withoutHook(gated), command: gated };
  if (args.none.some((a) => a.includes("hook")))
    throw new Error(`the baseline still has a hook: ${args.none.join(" ")}`);
  const agentEnv = { ...env, CODEX_HOME: paths.codexHome, SHELL: "/bin/bash", FAKE_KEY: "scripted-key" };

  return {
    name: "gate.turn.codex",
    configs: CONFIGS,
    measured: "command",
    unit: "ms added per tool call (command hook, median)",
    target:
      "Codex <= +40 ms per call over no hook (median, >= 8 rounds; bench.md's target for a resident hook)",
    limitMs: 40,
    async turn(config): Promise<TurnOutcome> {
      times = [];
      const before = api.requests.length;
      await runAgent(
        `codex (${config})`,
        CODEX,
        [
          "exec",
          "--json",
          "--skip-git-repo-check",
          ...args[config as Config],
          ...codexProviderArgs(api.baseUrl),
          "--",
          "Run the commands.",
        ],
        { cwd: work, env: agentEnv },
      );
      // Every call's output, as the last request carries them: each must be its echo's.
      const last = api.requests.slice(before).at(-1);
      const outputs = (last ? functionOutputsOf(last) : []).map((o) => JSON.stringify(o.output));
      const wrong = outputs.filter((o, i) => !o.includes(`call-${i}`) || o.includes("blocked"));
      if (outputs.length !== calls || wrong.length > 0) {
        return { failed: `${outputs.length} outputs, not run: ${wrong.join(" | ")}` };
      }
      return { times };
    },
    close: () => api.close(),
  };
}
