// The task proof of docs/approval-protocol-v2.md "Task proof": its worked example, what it covers, and
// how a hook reads its task's variables.
import { describe, expect, it } from "vitest";
import {
  computeTaskProof,
  taskCredentialsFrom,
  taskProofInput,
  taskProofMatches,
} from "../../../src/approval-server/task-proof.js";
import { TaskKeys } from "../../../src/executor/tasks/task-keys.js";

const KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const FIELDS = {
  type: "approval.request",
  id: "c0ffee01",
  nonce: "0123456789abcdef0123456789abcdef",
  ts: 1700000000000,
  body: '{"command":["echo","hi"],"cwd":"/tmp"}',
};
const EXAMPLE = "e2ccecb86a1619680c69475ca250e16a24e8ac3c512fd4f3b5c2631841e4ed60";

describe("the task proof", () => {
  it("reproduces the worked example of the protocol document", () => {
    expect(taskProofInput("41", FIELDS)).toBe(
      'gatehouse-task-proof/1\n41\ngatehouse-approval/2\nrequest\napproval.request\nc0ffee01\n0123456789abcdef0123456789abcdef\n1700000000000\n{"command":["echo","hi"],"cwd":"/tmp"}',
    );
    expect(computeTaskProof(KEY, "41", FIELDS)).toBe(EXAMPLE);
    expect(taskProofMatches(KEY, "41", FIELDS, EXAMPLE.toUpperCase())).toBe(true);
  });

  it("holds for exactly one task, key and frame: any other task id, field or key breaks it", () => {
    expect(taskProofMatches(KEY, "42", FIELDS, EXAMPLE)).toBe(false);
    for (const [field, value] of Object.entries({
      type: "exec.run",
      id: "c0ffee02",
      nonce: "f".repeat(32),
      ts: 1700000000001,
      body: '{"command":["rm","-rf","/"],"cwd":"/tmp"}',
    })) {
      expect(taskProofMatches(KEY, "41", { ...FIELDS, [field]: value }, EXAMPLE), field).toBe(false);
    }
    expect(taskProofMatches("ff".repeat(32), "41", FIELDS, EXAMPLE)).toBe(false);
    expect(taskProofMatches(KEY, "41", FIELDS, EXAMPLE.slice(2))).toBe(false);
  });

  it("is sent only when the environment names a task and holds a well-formed key", () => {
    expect(taskCredentialsFrom({ GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: KEY })).toEqual({
      taskId: "41",
      key: KEY,
    });
    expect(taskCredentialsFrom({ GATEHOUSE_TASK_ID: "41" })).toBeNull();
    expect(taskCredentialsFrom({ GATEHOUSE_TASK_KEY: KEY })).toBeNull();
    expect(taskCredentialsFrom({ GATEHOUSE_TASK_ID: "4 1", GATEHOUSE_TASK_KEY: KEY })).toBeNull();
    expect(taskCredentialsFrom({ GATEHOUSE_TASK_ID: "41", GATEHOUSE_TASK_KEY: "secret" })).toBeNull();
  });
});

describe("the running tasks' keys", () => {
  it("give each turn a fresh key, and forget it when that turn's process has exited (a newer turn's key stays)", () => {
    const keys = new TaskKeys();
    const task = { taskId: "41", runtime: "claude-code", agent: "claude-code" } as const;
    const first = keys.issue(task);
    expect(keys.lookup("41")).toEqual({ key: first, verified: task });
    const second = keys.issue(task);
    expect(second).not.toBe(first);
    keys.revoke("41", first); // the earlier turn's exit does not end the later turn's key
    expect(keys.lookup("41")?.key).toBe(second);
    keys.revoke("41", second);
    expect(keys.lookup("41")).toBeNull();
    expect(keys.size).toBe(0);
  });
});
