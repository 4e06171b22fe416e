// Task provenance (issue 16 point 5; docs/approval-protocol-v2.md "Task proof"): the real approval server of
// the real app, on its real socket, and real `gatehouse hook claude|codex` processes started with the
// environment a Gatehouse task's agent gets (GATEHOUSE_TASK_ID and GATEHOUSE_TASK_KEY). The keys come
// from the app's own task-key registry, the one its task runner issues from for every turn. A presenter
// in the broker's UI slot stands for the person: it records each prompt and denies it.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "../../support/wait-for.js";
import type { Presenter } from "../../../src/approval-server/broker.js";
import { computeMac, newNonce } from "../../../src/approval-server/frame-auth.js";
import { computeTaskProof } from "../../../src/approval-server/task-proof.js";
import type { PromptRequest } from "../../../src/core/policy/types.js";
import { runCli } from "../../support/cli.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { RawConnection } from "./raw-socket.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

let g: RunningGatehouse;
let folder: string;
const prompts: PromptRequest[] = [];
const person: Presenter = {
  kind: "ui",
  show(prompt, decide) {
    prompts.push(prompt);
    setImmediate(() => decide({ decision: "deny" })); // as a person would: after the prompt is shown
  },
  withdraw: () => undefined,
};

beforeEach(async () => {
  prompts.length = 0;
  g = await startGatehouse({ policy: { defaults: ASK_ME }, presenter: person });
  folder = path.join(g.t.home, "task");
  await fs.mkdir(folder, { recursive: true });
});
afterEach(async () => g.stop());

function claudeBash(command: string): string {
  return JSON.stringify({
    session_id: "s-1",
    cwd: folder,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
  });
}

/** The hook as a Gatehouse task's Claude Code runs it, with the task's variables added to `env`. */
function hookClaude(command: string, task: Record<string, string>) {
  return runCli(["hook", "claude", "--agent", "claude-code", "--workdir", folder, "--timeout", "20"], {
    env: { ...g.t.env, ...task },
    input: claudeBash(command),
  });
}

function verdictOf(stdout: string): { permissionDecision: string; permissionDecisionReason: string } {
  return (JSON.parse(stdout) as { hookSpecificOutput: never }).hookSpecificOutput;
}

const CLAUDE_TASK = { taskId: "41", runtime: "claude-code", agent: "claude-code" } as const;

describe("a request's provenance", () => {
  it("is verified when the task's own hook holds the key Gatehouse gave that running task; the prompt and the audit line say which task", async () => {
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const result = await hookClaude("touch marker", { GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: key });
    expect(verdictOf(result.stdout).permissionDecision).toBe("deny");
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      agentId: "claude-code",
      sessionKey: "task:41",
      source: "claude-hook",
    });
    expect(prompts[0]!.verified).toEqual({ taskId: "41", runtime: "claude-code", agent: "claude-code" });
    // the audit line is written after the reply: wait for it
    await waitFor(() => g.auditLines().length > 0, { what: "the audit line" });
    expect(g.auditLines().map((l) => [l.command, l.decidedBy, l.verified])).toEqual([
      ["touch marker", "user", { taskId: "41", runtime: "claude-code", agent: "claude-code" }],
    ]);
  });

  it("is a claim when the hook names a task but holds no key (what any local client can say)", async () => {
    g.services.taskKeys.issue(CLAUDE_TASK);
    await hookClaude("touch marker", { GATEHOUSE_TASK_ID: "41" });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ sessionKey: "task:41", source: "claude-hook" });
    expect(prompts[0]!.verified).toBeUndefined();
    await waitFor(() => g.auditLines().length > 0, { what: "the audit line" });
    expect(g.auditLines()[0]).not.toHaveProperty("verified");
  });

  it("is refused with a clear error, and nobody is asked, when the key is forged", async () => {
    g.services.taskKeys.issue(CLAUDE_TASK);
    const forged = "ab".repeat(32);
    const result = await hookClaude("touch marker", { GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: forged });
    const verdict = verdictOf(result.stdout);
    expect(verdict.permissionDecision).toBe("deny");
    expect(verdict.permissionDecisionReason).toContain(
      "Gatehouse refused the request (bad_task_proof: the proof does not match the key Gatehouse gave task 41)",
    );
    expect(prompts).toEqual([]);
    expect(g.auditLines()).toEqual([]);
  });

  it("stops counting the moment the task has ended: its hook's next request is refused", async () => {
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const task = { GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: key };
    await hookClaude("touch one", task);
    expect(prompts.map((p) => p.verified?.taskId)).toEqual(["41"]);
    g.services.taskKeys.revoke("41", key);
    const after = await hookClaude("touch two", task);
    expect(verdictOf(after.stdout).permissionDecisionReason).toContain(
      "bad_task_proof: task 41 is not running in this Gatehouse (it has ended, or Gatehouse did not launch it)",
    );
    expect(prompts).toHaveLength(1);
  });

  it("does not let one task pass as another: task 42's key never proves task 41", async () => {
    g.services.taskKeys.issue(CLAUDE_TASK);
    const other = g.services.taskKeys.issue({ taskId: "42", runtime: "codex", agent: "codex" });
    const result = await hookClaude("touch marker", { GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: other });
    expect(verdictOf(result.stdout).permissionDecisionReason).toContain("bad_task_proof");
    expect(prompts).toEqual([]);
  });

  it("is refused when a proved task asks as another agent than the one Gatehouse launched it as", async () => {
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const result = await runCli(
      ["hook", "claude", "--agent", "codex", "--workdir", folder, "--timeout", "20"],
      {
        env: { ...g.t.env, GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: key },
        input: claudeBash("touch marker"),
      },
    );
    expect(verdictOf(result.stdout).permissionDecisionReason).toContain(
      "task 41 runs as agent claude-code, but the request names agent codex",
    );
    expect(prompts).toEqual([]);
  });

  it("a Codex task's hook proves itself the same way", async () => {
    const key = g.services.taskKeys.issue({ taskId: "7", runtime: "codex", agent: "codex" });
    const result = await runCli(
      ["hook", "codex", "--agent", "codex", "--workdir", folder, "--timeout", "20"],
      {
        env: { ...g.t.env, GATEHOUSE_TASK_ID: "7", GATEHOUSE_TASK_KEY: key },
        input: JSON.stringify({
          session_id: "thread-1",
          cwd: folder,
          tool_name: "apply_patch",
          tool_input: { command: "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n" },
          tool_use_id: "c1",
        }),
      },
    );
    expect(result.code).toBe(2);
    expect(prompts.map((p) => p.verified)).toEqual([{ taskId: "7", runtime: "codex", agent: "codex" }]);
  });
});

describe("a proof on the wire", () => {
  /** A signed approval.request frame with a task proof under `key`. */
  function frame(token: string, key: string, body: object, nonce = newNonce()) {
    const signed = { type: "approval.request", id: `p-${nonce.slice(0, 6)}`, nonce, ts: Date.now() };
    const text = JSON.stringify(body);
    return {
      v: 2,
      ...signed,
      body: text,
      mac: computeMac(token, { direction: "request", ...signed, body: text }),
      task: { id: "41", proof: computeTaskProof(key, "41", { ...signed, body: text }) },
    };
  }
  const body = { command: "touch marker", agentId: "claude-code", sessionKey: "task:41", timeoutMs: 20_000 };

  it("a frame sent again is refused as a replay, and its proof moved onto a new frame does not hold", async () => {
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const conn = await RawConnection.open(g.socketPath);
    const first = frame(g.token(), key, body);
    conn.send(first);
    const decided = await conn.nextFrame(0, "the decision");
    expect(decided.type).toBe("decision");
    expect(prompts.map((p) => p.verified?.taskId)).toEqual(["41"]);

    conn.send(first);
    const replay = await conn.nextFrame(1, "the replay's refusal");
    expect(JSON.parse(replay.body)).toMatchObject({ code: "replay" });
    conn.close();

    // The same proof on a fresh frame (new nonce, other command): the proof covers the old one only.
    const again = await RawConnection.open(g.socketPath);
    const moved = { ...frame(g.token(), key, { ...body, command: "rm -rf build" }), task: first.task };
    again.send(moved);
    const refused = await again.nextFrame(0, "the moved proof's refusal");
    expect(refused.type).toBe("error");
    expect(JSON.parse(refused.body)).toMatchObject({
      code: "bad_task_proof",
      message: "the proof does not match the key Gatehouse gave task 41",
    });
    again.close();
    expect(prompts).toHaveLength(1);
  });
});
