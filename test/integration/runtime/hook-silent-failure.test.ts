// A hook that ends without a word must not let a call through. Codex (0.169, 0.171) runs a call whose
// hook exits 2 with nothing on stderr, as it runs one whose hook exits 1: the hook command Gatehouse
// writes ends with an exit 2 *and a reason* for every failure but its own block (agent-hook.ts). A
// gatehouse killed by a signal says nothing under zsh (macOS's login shell) or dash; bash, which Codex
// picks here for uid 65534, would print "Killed" and so block anyway, so the silent end is played by a
// gatehouse that exits 1 without a word. The hook is the real command line of a task (codexGateArgs,
// claudeTaskSettings). Real CLIs as uid 65534 in a folder that user owns; the scripted model endpoints
// are the only fakes; the proof is a marker file that must not appear.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTaskSettings, codexGateArgs } from "../../../src/core/runtime/index.js";
import { HOOK_ENDED_REASON } from "../../../src/core/runtime/agent-hook.js";
import { CLAUDE, CODEX, HAVE_CLAUDE, HAVE_CODEX, missing } from "../../support/agent-clis.js";
import { otherUserUnavailable, OTHER_UID, runProgramAsOtherUser } from "../../support/other-user.js";
import { startScriptedAnthropic, toolResultText, toolThenText } from "../../support/scripted-anthropic.js";
import { callThenText, codexProviderArgs, startScriptedOpenAi } from "../../support/scripted-openai.js";
import { makeJail, type Jail } from "../runtime-path/jail.js";

/** A "gatehouse" that ends at once without a word: no answer, nothing on stderr, status 1. */
const SILENT_GATEHOUSE = ["/bin/sh", "-c", "exit 1"];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function jail(): Promise<Jail> {
  const j = await makeJail("gh-hook-silent-");
  cleanups.push(() => j.cleanup());
  await fs.mkdir(path.join(j.home, ".codex"));
  await fs.chown(path.join(j.home, ".codex"), OTHER_UID, OTHER_UID);
  return j;
}

function env(j: Jail, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: j.home, SHELL: "/bin/bash", ...extra };
}

/** One Codex turn that runs `touch marker` under the given `-c` gate overrides; the function outputs. */
async function codexTurn(j: Jail, gateArgs: string[]): Promise<string> {
  const api = await startScriptedOpenAi(
    callThenText({ name: "exec_command", arguments: { cmd: "touch marker" } }, "done"),
  );
  cleanups.push(() => api.close());
  const run = await runProgramAsOtherUser(
    CODEX,
    ["exec", "--json", "--skip-git-repo-check", ...gateArgs, ...codexProviderArgs(api.baseUrl), "--", "Go."],
    {
      cwd: j.work,
      env: env(j, { CODEX_HOME: path.join(j.home, ".codex"), FAKE_KEY: "scripted-key" }),
      timeoutMs: 120_000,
    },
  );
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  return JSON.stringify(api.functionOutputs());
}

const skipReason = otherUserUnavailable;

describe.skipIf(skipReason !== null)(
  `a hook that ends without a word${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    it.skipIf(!HAVE_CODEX)(
      `blocks a Codex call, and the model is told why${missing(CODEX)}`,
      async () => {
        const j = await jail();
        const gate = codexGateArgs({
          gatehouseCommand: SILENT_GATEHOUSE,
          workdir: j.work,
          promptTimeoutMs: 5_000,
        });
        const outputs = await codexTurn(j, gate);

        expect(existsSync(path.join(j.work, "marker"))).toBe(false);
        expect(outputs).toContain("Command blocked by PreToolUse hook");
        expect(outputs).toContain(HOOK_ENDED_REASON);
      },
      150_000,
    );

    it.skipIf(!HAVE_CODEX)(
      `would let the Codex call run if the command only ended in \`|| exit 2\` (the attack is real)${missing(CODEX)}`,
      async () => {
        const j = await jail();
        const gate = codexGateArgs({
          gatehouseCommand: SILENT_GATEHOUSE,
          workdir: j.work,
          promptTimeoutMs: 5_000,
        });
        const hooks = gate.findIndex((a) => a.startsWith("hooks.PreToolUse="));
        expect(hooks).toBeGreaterThan(0);
        // The same hook with the bare ending Gatehouse wrote before: an exit 2 with nothing on stderr.
        gate[hooks] =
          `hooks.PreToolUse=[{matcher="*",hooks=[{type="command",command="/bin/sh -c 'exit 1' || exit 2",timeout=15}]}]`;
        const outputs = await codexTurn(j, gate);

        expect(existsSync(path.join(j.work, "marker")), outputs).toBe(true);
        expect(outputs).not.toContain("blocked");
      },
      150_000,
    );

    it.skipIf(!HAVE_CLAUDE)(
      `blocks a Claude Code call${missing(CLAUDE)}`,
      async () => {
        const j = await jail();
        const api = await startScriptedAnthropic(
          toolThenText({ name: "Bash", input: { command: "touch marker" } }, "done"),
        );
        cleanups.push(() => api.close());
        const settings = path.join(j.root, "settings.json");
        const launch = { gatehouseCommand: SILENT_GATEHOUSE, workdir: j.work, promptTimeoutMs: 5_000 };
        await fs.writeFile(settings, JSON.stringify(claudeTaskSettings(launch)));
        await fs.chown(settings, OTHER_UID, OTHER_UID);
        const run = await runProgramAsOtherUser(
          CLAUDE,
          ["-p", "Go.", "--setting-sources", "user", "--settings", settings, "--output-format", "json"],
          {
            cwd: j.work,
            env: env(j, {
              ANTHROPIC_BASE_URL: api.url,
              ANTHROPIC_API_KEY: "scripted-key",
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            }),
            timeoutMs: 120_000,
          },
        );
        expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);

        expect(existsSync(path.join(j.work, "marker"))).toBe(false);
        const [result] = api.toolResults();
        expect(result).toMatchObject({ is_error: true });
        expect(toolResultText(result!)).toContain(HOOK_ENDED_REASON);
      },
      150_000,
    );
  },
);
