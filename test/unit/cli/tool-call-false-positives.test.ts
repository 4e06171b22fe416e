// The false-positive rate of the positive model over tool calls agents really make other than Bash
// (test/fixtures/policy/agent-tool-calls.ts): each call goes the hook's whole way — the runtime's tool
// table, then the gate's decision under the "Ask me" preset (allowlist + on-miss) with a typical
// allowlist (the programs the commands use, two MCP tools) — with no Gatehouse running and nobody to
// ask, so a call that needs a person is refused by askFallback and counted. Programs are stand-ins on a
// PATH of their own. The rate is printed and must stay under 2 %.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeToolCall } from "../../../src/cli/hook/claude.js";
import { codexToolCall } from "../../../src/cli/hook/codex.js";
import { codexCommandFolder } from "../../../src/cli/hook/codex-exec.js";
import { decideToolCall, type HookSession } from "../../../src/cli/hook/decide.js";
import { createCliContext } from "../../../src/cli/context.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { AGENT_TOOL_CALLS, W, type AgentToolCall } from "../../fixtures/policy/agent-tool-calls.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const PROGRAMS = ["ls", "pwd", "git", "cat", "npm", "rg", "node", "head", "wc", "sed", "grep"];

let t: TempHome;
let folder: string;
let transcript: string;
let env: Record<string, string>;

/** The call with `W` replaced by the task's folder. */
function placed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll(W, folder)) as T;
}

beforeAll(async () => {
  t = await makeTempHome("gatehouse-tool-fp-");
  folder = path.join(t.home, "Projects", "app");
  for (const dir of ["src", "test", "docs", "packages/api", "packages/web", "app", "notebooks"])
    await fs.mkdir(path.join(folder, dir), { recursive: true });
  const bin = path.join(t.home, "bin");
  await fs.mkdir(bin);
  for (const name of PROGRAMS) await fs.writeFile(path.join(bin, name), "#!/bin/sh\n", { mode: 0o755 });
  env = { ...t.env, PATH: bin, SHELL: "/bin/bash" };
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "allowlist", ask: "on-miss", askFallback: "deny" });
  for (const name of PROGRAMS) await store.addEntry("*", { pattern: path.join(bin, name) });
  for (const tool of ["mcp:docs/search", "mcp:github/get_issue"])
    await store.addEntry("*", { pattern: tool });
  transcript = path.join(t.home, "rollout.jsonl");
  const lines = AGENT_TOOL_CALLS.flatMap((call, i) =>
    call.exec
      ? [
          JSON.stringify({
            type: "response_item",
            payload: {
              type: "function_call",
              name: "exec_command",
              arguments: JSON.stringify(placed(call.exec)),
              call_id: `call_${i}`,
            },
          }),
        ]
      : [],
  );
  await fs.writeFile(transcript, `${lines.join("\n")}\n`);
}, 60_000);
afterAll(async () => t?.cleanup());

async function verdictOf(call: AgentToolCall, index: number) {
  const ctx = createCliContext(env);
  const session: HookSession = {
    ctx,
    runtime: call.runtime,
    agentId: call.runtime === "claude" ? "claude-code" : "codex",
    sessionKey: "fp",
    source: `${call.runtime}-hook`,
    workdir: folder,
    promptTimeoutMs: 1_000,
    shell: { posixShells: ["bash"] },
  };
  const input = placed(call.tool_input);
  const workdir = call.exec ? (placed(call.exec).workdir as string | undefined) : undefined;
  const cwd = codexCommandFolder(folder, workdir);
  const toolCall =
    call.runtime === "claude"
      ? await claudeToolCall(
          { tool_name: call.tool_name, tool_input: input, cwd: folder },
          { cwd: folder, workdir: folder },
        )
      : await codexToolCall(
          {
            tool_name: call.tool_name,
            tool_input: input,
            cwd,
            transcript_path: transcript,
            tool_use_id: `call_${index}`,
          },
          { cwd, workdir: folder },
        );
  return decideToolCall(toolCall, session);
}

describe("false positives over real agent tool calls other than Bash", () => {
  it("has at least 100 calls of both runtimes", () => {
    expect(AGENT_TOOL_CALLS.length).toBeGreaterThanOrEqual(100);
    expect(AGENT_TOOL_CALLS.filter((c) => c.runtime === "codex").length).toBeGreaterThanOrEqual(30);
  });

  it("under the Ask me preset with a typical allowlist, under 2 % of the ordinary ones need a person", async () => {
    const needed: string[] = [];
    const byDesign: string[] = [];
    let ordinary = 0;
    for (const [index, call] of AGENT_TOOL_CALLS.entries()) {
      const verdict = await verdictOf(call, index);
      const name = `${call.runtime} ${call.tool_name} ${JSON.stringify(call.exec ?? call.tool_input).slice(0, 90)}`;
      if (call.prompt) {
        byDesign.push(`${name} — ${verdict.allow ? "allowed" : "asked"}`);
        expect(verdict.allow, name).toBe(false);
        continue;
      }
      ordinary++;
      if (!verdict.allow) needed.push(`${name} — ${verdict.reason}`);
    }
    const rate = needed.length / ordinary;
    console.log(
      `tool calls needing a person: ${needed.length} of ${ordinary} ordinary ones (${(rate * 100).toFixed(1)} %), ${byDesign.length} more by design` +
        (needed.length ? `\n  ${needed.join("\n  ")}` : ""),
    );
    expect(rate).toBeLessThan(0.02);
  }, 240_000);
});
