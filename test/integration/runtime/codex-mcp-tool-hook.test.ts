// Why Codex keeps the command hook (issue 29, Build item 2; docs/decisions.md "Codex keeps the command
// hook"): Codex's `mcp_tool` hook, a tool call on one of the session's MCP servers, would save starting
// Node for every tool call, and it does gate: a `deny` from the server blocks the call, and `${…}`
// placeholders give the server the call's input. But it fails open: when the server has gone, dies during
// the call, answers an error or never answers, Codex runs the call (0.169.0 and 0.171.0), and says
// nothing in its `--json` events. These tests pin that with the real CLI, so a Codex that starts failing
// closed makes them fail — then the decision is worth taking again. Each turn runs `touch marker` as uid
// 65534 in a folder that user owns; the scripted Responses API is the only fake.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tomlArray, tomlString } from "../../../src/core/runtime/toml-value.js";
import { CODEX, HAVE_CODEX } from "../../support/agent-clis.js";
import { REPO_ROOT } from "../../support/cli.js";
import { otherUserUnavailable, OTHER_UID, runProgramAsOtherUser } from "../../support/other-user.js";
import { callThenText, codexProviderArgs, startScriptedOpenAi } from "../../support/scripted-openai.js";
import { makeJail, type Jail } from "../runtime-path/jail.js";

const HOOK_SERVER = path.join(REPO_ROOT, "test", "support", "mcp-hook-server.mjs");

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Mode = "deny" | "gone" | "exit" | "error" | "silent";

interface Turn {
  /** Whether `touch marker` ran. */
  ran: boolean;
  /** The function outputs Codex sent back to the model. */
  outputs: string;
  /** The arguments of each hook call the MCP server received. */
  hookCalls: unknown[];
}

/**
 * One Codex turn whose only PreToolUse hook is an `mcp_tool` hook on server `gate` (mcp-hook-server.mjs
 * in `mode`), with Gatehouse's other task settings (no sandbox, no approvals, no TTY, no login shell).
 */
async function turn(mode: Mode): Promise<Turn> {
  const j: Jail = await makeJail("gh-codex-mcp-hook-");
  cleanups.push(() => j.cleanup());
  const codexHome = path.join(j.home, ".codex");
  await fs.mkdir(codexHome);
  await fs.chown(codexHome, OTHER_UID, OTHER_UID);
  const log = path.join(j.root, "hook-calls.jsonl");
  const api = await startScriptedOpenAi(
    callThenText({ name: "exec_command", arguments: { cmd: "touch marker" } }, "done"),
  );
  cleanups.push(() => api.close());

  const input = '{tool_name="${tool_name}",tool_input="${tool_input}",cwd="${cwd}"}';
  const hook = `{type="mcp_tool",server="gate",tool="decide",timeout=1,input=${input}}`;
  const server = `{command=${tomlString(process.execPath)!},args=${tomlArray([HOOK_SERVER, log, mode])!}}`;
  const overrides = [
    "features.hooks=true",
    `hooks.PreToolUse=[{matcher="*",hooks=[${hook}]}]`,
    `mcp_servers.gate=${server}`,
    "features.unified_exec_tty=false",
    "allow_login_shell=false",
    'sandbox_mode="danger-full-access"',
    'approval_policy="never"',
  ];
  const run = await runProgramAsOtherUser(
    CODEX,
    [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-hook-trust",
      ...overrides.flatMap((o) => ["-c", o]),
      ...codexProviderArgs(api.baseUrl),
      "--",
      "Make the marker.",
    ],
    {
      cwd: j.work,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: j.home,
        CODEX_HOME: codexHome,
        SHELL: "/bin/bash",
        FAKE_KEY: "scripted-key",
      },
      timeoutMs: 120_000,
    },
  );
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const calls = existsSync(log) ? await fs.readFile(log, "utf8") : "";
  return {
    ran: existsSync(path.join(j.work, "marker")),
    outputs: JSON.stringify(api.functionOutputs()),
    hookCalls: calls
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown),
  };
}

const skip = otherUserUnavailable ?? (HAVE_CODEX ? null : `${CODEX} is not installed`);

describe.skipIf(skip !== null)(`Codex's mcp_tool hook${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("blocks the call when its MCP server answers deny, and the server is given the call's input", async () => {
    const t = await turn("deny");

    expect(t.ran).toBe(false);
    expect(t.outputs).toContain("Command blocked by PreToolUse hook: denied by the MCP hook");
    expect(t.hookCalls).toEqual([
      { tool_name: "Bash", tool_input: { command: "touch marker" }, cwd: expect.any(String) as string },
    ]);
  }, 150_000);

  // Fail-open: each of these is a gate that is no longer there, and Codex runs the call.
  it.each([
    ["has exited before the call", "gone", 0],
    ["exits during the hook call", "exit", 1],
    ["answers the hook call with an error", "error", 1],
    ["never answers within the hook's timeout", "silent", 1],
  ] as const)(
    "runs the call when its MCP server %s (fails open)",
    async (_, mode, calls) => {
      const t = await turn(mode);

      expect(t.hookCalls).toHaveLength(calls);
      expect(t.ran).toBe(true);
      expect(t.outputs).not.toContain("blocked");
    },
    150_000,
  );
});
