import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PromptFn } from "../../../src/core/policy/types.js";
import type { TaskEventSink, TaskRegistry } from "../../../src/device/deps.js";
import { serialisedBytes } from "../../../src/device/ack-size.js";
import { waitFor } from "../../support/wait-for.js";
import { startHarness, type Harness, type HarnessOptions } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

async function registered(options: HarnessOptions = {}): Promise<Harness> {
  const harness = await startHarness(options);
  h = harness;
  await harness.device.start();
  await harness.waitForState("registered");
  return harness;
}

async function allowForBackend(
  harness: Harness,
  patterns: string[],
  defaults: {
    security: "deny" | "allowlist" | "full";
    ask: "off" | "on-miss" | "always";
    askFallback: "deny";
  } = ASK_ME,
): Promise<void> {
  await harness.setApprovals({
    defaults,
    agents: { backend: { allowlist: patterns.map((pattern, i) => ({ id: `e${i}`, pattern })) } },
  });
}

function exec(harness: Harness, payload: Record<string, unknown>, timeoutMs = 20_000) {
  return harness.backend.executeCommand(harness.deviceId, payload, timeoutMs) as Promise<
    Record<string, unknown>
  >;
}

async function auditLines(harness: Harness): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(harness.t.paths.audit, "utf8");
  return text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("device:execute_command through the real gate", () => {
  it("an allowed command runs and the ack has the §6.5 shape", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/echo"]);
    const ack = await exec(harness, { command: "echo hello from gatehouse" });
    expect(ack).toMatchObject({
      success: true,
      exit_code: 0,
      stdout: "hello from gatehouse\n",
      stderr: "",
      timed_out: false,
      stdout_truncated: false,
      stderr_truncated: false,
    });
    expect(Object.keys(ack).sort()).toEqual(
      [
        "duration",
        "exit_code",
        "stderr",
        "stderr_truncated",
        "stdout",
        "stdout_truncated",
        "success",
        "timed_out",
      ].sort(),
    );
    expect(typeof ack.duration).toBe("number");
    expect(ack.duration as number).toBeGreaterThan(0);
  });

  it("argv runs without a shell, and args are quoted onto a command string", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/echo", "/usr/bin/printf"]);
    expect(
      await exec(harness, { command: "ignored", argv: ["printf", "%s|", "a b", "$HOME"] }),
    ).toMatchObject({
      success: true,
      stdout: "a b|$HOME|",
    });
    expect(await exec(harness, { command: "echo", args: ["it's", "a b", "$(rm -rf x)"] })).toMatchObject({
      success: true,
      stdout: "it's a b $(rm -rf x)\n",
    });
  });

  it("a non-zero exit is not a success and carries no error", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const ack = await exec(harness, { command: "sh -c 'echo oops >&2; exit 3'" });
    expect(ack).toMatchObject({ success: false, exit_code: 3, stderr: "oops\n" });
    expect(ack).not.toHaveProperty("error");
  });

  it("security=deny refuses before anything runs: 'Command denied by exec policy: security=deny'", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "deny", ask: "off", askFallback: "deny" } });
    const marker = path.join(harness.t.home, "ran");
    expect(await exec(harness, { command: `touch ${marker}` })).toEqual({
      success: false,
      exit_code: null,
      stdout: "",
      stderr: "",
      duration: 0,
      timed_out: false,
      stdout_truncated: false,
      stderr_truncated: false,
      error: "Command denied by exec policy: security=deny",
    });
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it("an allowlist miss with ask=off is 'Command denied by exec policy: allowlist-miss'", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/echo"], {
      security: "allowlist",
      ask: "off",
      askFallback: "deny",
    });
    expect(await exec(harness, { command: "sleep 0" })).toMatchObject({
      success: false,
      exit_code: null,
      error: "Command denied by exec policy: allowlist-miss",
    });
  });

  it("a prompt with nobody to ask says so (not a timeout)", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/echo"]);
    expect(await exec(harness, { command: "sleep 0" })).toMatchObject({
      success: false,
      exit_code: null,
      duration: 0,
      error: "Command not approved: nobody could be asked on this device (no-approver)",
    });
  });

  it("a person who denies with a reason gives 'Command denied by user: <reason>', and the audit line keeps it", async () => {
    const prompt: PromptFn = async () => ({
      decision: "deny",
      denyReason: "Not on this machine; use the staging server.",
    });
    const harness = await registered({ prompt });
    await allowForBackend(harness, []);
    expect(await exec(harness, { command: "sleep 0" })).toMatchObject({
      success: false,
      exit_code: null,
      error: "Command denied by user: Not on this machine; use the staging server.",
    });
    const decided = (await auditLines(harness)).find((l) => l.event === "decision");
    expect(decided).toMatchObject({
      decision: "deny",
      decidedBy: "user",
      denyReason: "Not on this machine; use the staging server.",
    });
  });

  it("a person who denies gives 'Command denied by user'", async () => {
    const prompt: PromptFn = async () => ({ decision: "deny" });
    const harness = await registered({ prompt });
    await allowForBackend(harness, []);
    expect(await exec(harness, { command: "sleep 0" })).toMatchObject({ error: "Command denied by user" });
  });

  it("the prompt waits at most timeout_seconds, and the command runs with what remains", async () => {
    const prompts: Array<{ sessionKey: string; agentId: string; reason?: string; expiresIn: number }> = [];
    const prompt: PromptFn = async (request, signal) => {
      prompts.push({
        sessionKey: request.sessionKey,
        agentId: request.agentId,
        ...(request.reason ? { reason: request.reason } : {}),
        expiresIn: request.expiresAt - request.createdAt,
      });
      if (request.reason === "never-answer") {
        await new Promise((resolve) => signal?.addEventListener("abort", resolve));
        return { decision: "timeout" };
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { decision: "allow-once" };
    };
    const harness = await registered({ prompt });
    await allowForBackend(harness, []);

    expect(
      await exec(harness, {
        command: "sleep 0",
        timeout_seconds: 1,
        command_key: "never-answer",
        task_id: 5,
      }),
    ).toMatchObject({ success: false, error: "Command approval timed out" });
    expect(prompts[0]).toEqual({
      sessionKey: "task:5",
      agentId: "backend",
      reason: "never-answer",
      expiresIn: 1000,
    });

    const ack = await exec(harness, { command: "sleep 5", timeout_seconds: 1 });
    expect(ack).toMatchObject({
      success: false,
      timed_out: true,
      exit_code: null,
      error: "Command timed out after 1 seconds",
    });
    expect(ack.duration as number).toBeLessThan(1);
    expect(prompts[1]?.sessionKey).toBe("device");
  });

  it("a command over its timeout is stopped: 'Command timed out after <n> seconds'", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/sleep"]);
    const ack = await exec(harness, { command: "sleep 30", timeout_seconds: 1 });
    expect(ack).toMatchObject({
      success: false,
      exit_code: null,
      timed_out: true,
      error: "Command timed out after 1 seconds",
    });
  });

  it("timeout_seconds is clamped to 1–600", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/sleep"]);
    expect(await exec(harness, { command: "sleep 30", timeout_seconds: 0 })).toMatchObject({
      timed_out: true,
      error: "Command timed out after 1 seconds",
    });
  });

  it("output over max_output_bytes is cut per stream and flagged", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const ack = await exec(harness, {
      command: "head -c 5000 /dev/zero | tr '\\0' a; echo err >&2",
      max_output_bytes: 1000,
    });
    expect(ack).toMatchObject({
      success: true,
      stdout_truncated: true,
      stderr_truncated: false,
      stderr: "err\n",
    });
    expect((ack.stdout as string).startsWith("a".repeat(1000))).toBe(true);
    expect((ack.stdout as string).length).toBeLessThan(1100);
  });

  it("an ack that would pass 980,000 bytes is cut (stdout first) and still reaches the backend", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const ack = await exec(harness, {
      command: "head -c 3000000 /dev/zero | tr '\\0' b",
      max_output_bytes: 5 * 1024 * 1024,
    });
    expect(ack).toMatchObject({ success: true, stdout_truncated: true, stderr_truncated: false });
    expect(serialisedBytes(ack)).toBeLessThan(980_000);
    expect(serialisedBytes(ack)).toBeGreaterThan(970_000);
    expect(harness.device.state().state).toBe("registered");
  });

  it("a cwd that does not exist is refused: 'Working directory does not exist: <cwd>'", async () => {
    const harness = await registered();
    await allowForBackend(harness, ["/usr/bin/echo"]);
    const missing = path.join(harness.t.paths.defaultWorkspaceRoot, "nope");
    expect(await exec(harness, { command: "echo hi", cwd: missing })).toMatchObject({
      success: false,
      exit_code: null,
      error: `Working directory does not exist: ${missing}`,
    });
  });

  it("a cwd outside the allowed folders falls back to the workspace and says so on stderr", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const elsewhere = path.join(harness.t.home, "elsewhere");
    await fs.mkdir(elsewhere);
    const ack = await exec(harness, { command: "pwd", cwd: elsewhere });
    expect(ack).toMatchObject({
      success: true,
      stdout: `${await fs.realpath(harness.t.paths.defaultWorkspaceRoot)}\n`,
    });
    expect(ack.stderr).toBe(
      'Working folder "~/elsewhere" can\'t be used: it is not inside an allowed folder. Using the managed folder "~/.wegent-executor/workspace" instead. Add it under Workdirs in Gatehouse to allow it.\n',
    );
  });

  it("a cwd inside the workspace is used, and the run is audited for agent backend and the task's session", async () => {
    const harness = await registered();
    await harness.setApprovals({ defaults: { security: "full", ask: "off", askFallback: "deny" } });
    const inside = path.join(harness.t.paths.defaultWorkspaceRoot, "proj");
    await fs.mkdir(inside, { recursive: true });
    expect(
      await exec(harness, { command: "pwd", cwd: inside, task_id: "12", command_key: "where" }),
    ).toMatchObject({
      success: true,
      stdout: `${await fs.realpath(inside)}\n`,
    });
    const lines = await auditLines(harness);
    expect(lines.at(-1)).toMatchObject({
      agentId: "backend",
      sessionKey: "task:12",
      source: "backend",
      commandKey: "where",
    });
  });

  it("an invalid payload gets an error ack and nothing runs", async () => {
    const harness = await registered();
    const ack = await exec(harness, { cwd: "/tmp" });
    expect(ack).toMatchObject({ success: false, exit_code: null });
    expect(ack.error).toMatch(/^Invalid command payload: /);
  });
});

describe("other backend events", () => {
  it("an unknown event that asks for an ack gets 'Unsupported event: <name>'", async () => {
    const harness = await registered();
    for (const name of ["device:start_code_server_session", "runtime:frobnicate", "device:who_knows"]) {
      expect(await harness.backend.call(harness.deviceId, name, { any: 1 }, 5000)).toEqual({
        success: false,
        error: `Unsupported event: ${name}`,
      });
    }
  });

  it("runtime:rpc answers runtime_unavailable, malformed calls included", async () => {
    const harness = await registered();
    const expected = {
      success: false,
      code: "runtime_unavailable",
      error: "Runtime work handler is not available",
    };
    expect(
      await harness.backend.call(harness.deviceId, "runtime:rpc", { method: "worktree.list", payload: {} }),
    ).toEqual(expected);
    expect(await harness.backend.call(harness.deviceId, "runtime:rpc", "garbage")).toEqual(expected);
  });

  it("task:close-session without a numeric task_id gets 'task_id is required'", async () => {
    const harness = await registered();
    for (const payload of [{}, { task_id: "abc" }, null]) {
      expect(await harness.backend.call(harness.deviceId, "task:close-session", payload)).toEqual({
        success: false,
        error: "task_id is required",
      });
    }
  });

  it("task:close-session sends a heartbeat before its success ack, also when nothing was running", async () => {
    const harness = await registered({ timings: { heartbeatIntervalMs: 60_000 } });
    await waitFor(() => harness.backend.device(harness.deviceId)?.syncAcks.length, {
      what: "the replace sync",
    });
    await waitFor(() => harness.backend.eventsNamed("device:heartbeat").length === 2, {
      what: "the sync's heartbeat",
    });
    expect(await harness.backend.call(harness.deviceId, "task:close-session", { task_id: 44 })).toEqual({
      success: true,
    });
    expect(harness.backend.eventsNamed("device:heartbeat")).toHaveLength(3);
  });

  it("a cancel for a task that has not arrived is remembered and applied when it arrives", async () => {
    const harness = await registered();
    harness.backend.send(harness.deviceId, "task:cancel", { task_id: 7, subtask_id: 70 });
    harness.backend.send(harness.deviceId, "task:execute", {
      task_id: 7,
      subtask_id: 70,
      message_id: 1,
      bot: [{ shell_type: "ClaudeCode" }],
    });
    await waitFor(() => harness.backend.eventsNamed("response.incomplete").length, {
      what: "response.incomplete",
    });
    const names = harness.backend.events.map((e) => e.event).filter((n) => n.startsWith("response."));
    expect(names).toEqual(["response.created", "response.incomplete"]);
    expect(harness.backend.eventsNamed("response.created")[0]?.payload).toMatchObject({
      event_type: "response.created",
      task_id: 7,
      subtask_id: 70,
      data: { shell_type: "ClaudeCode", response: { status: "in_progress" } },
    });
    expect(harness.backend.eventsNamed("response.incomplete")[0]?.payload).toMatchObject({
      data: { response: { status: "cancelled", error: { code: "cancelled", message: "Task cancelled" } } },
    });
  });

  it("while not registered, task events are dropped except terminal ones, which go right after the next registration", async () => {
    let sink: TaskEventSink | undefined;
    const tasks: TaskRegistry = {
      execute: (_payload, events) => void (sink = events),
      cancel: () => undefined,
      closeSession: async () => undefined,
      snapshot: () => ({ runningTaskIds: ["31"], activeTaskIds: ["31"], queued: 0 }),
    };
    const harness = await registered({ tasks });
    harness.backend.send(harness.deviceId, "task:execute", { task_id: 31, subtask_id: 310 });
    await waitFor(() => sink, { what: "the task to start" });
    await waitFor(
      () =>
        harness.backend
          .device(harness.deviceId)
          ?.heartbeats.some((b) => (b.running_task_ids as string[])[0] === "31"),
      {
        what: "a heartbeat listing the running task",
      },
    );
    await harness.backend.stop();
    await waitFor(() => harness.device.state().state === "offline", { what: "the device to notice" });
    sink!.emit("response.output_text.delta", { event_type: "response.output_text.delta", task_id: 31 });
    sink!.emit("response.completed", { event_type: "response.completed", task_id: 31 }, { terminal: true });
    await harness.backend.start();
    await waitFor(() => harness.backend.eventsNamed("response.completed").length, {
      what: "the kept terminal event",
    });
    expect(harness.backend.eventsNamed("response.output_text.delta")).toHaveLength(0);
    const names = harness.backend.events.map((e) => e.event);
    expect(names.lastIndexOf("device:register")).toBeLessThan(names.indexOf("response.completed"));
  });

  it("task:close-session forgets a remembered cancel", async () => {
    const harness = await registered();
    harness.backend.send(harness.deviceId, "task:cancel", { task_id: 8 });
    expect(await harness.backend.call(harness.deviceId, "task:close-session", { task_id: "8" })).toEqual({
      success: true,
    });
    harness.backend.send(harness.deviceId, "task:execute", { task_id: 8, subtask_id: 80 });
    await waitFor(() => harness.backend.eventsNamed("error").length, { what: "the task's error event" });
    expect(harness.backend.eventsNamed("response.incomplete")).toHaveLength(0);
  });

  it("heartbeats keep flowing while a capability sync is still working", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let syncsStarted = 0;
    const harness = await registered({
      wrapCapabilities: (real) => ({
        report: () => real.report(),
        applySync: async (payload) => {
          syncsStarted++;
          await held;
          return real.applySync(payload);
        },
      }),
    });
    await waitFor(() => syncsStarted === 1, { what: "the replace sync to start" });
    const before = harness.backend.eventsNamed("device:heartbeat").length;
    await waitFor(() => harness.backend.eventsNamed("device:heartbeat").length >= before + 2, {
      what: "two heartbeats during the sync",
    });
    expect(harness.backend.device(harness.deviceId)?.syncAcks).toHaveLength(0);
    release();
    await waitFor(() => harness.backend.device(harness.deviceId)?.syncAcks.length, { what: "the sync ack" });
  });

  it("the replace sync after registration is acked and followed by one extra heartbeat", async () => {
    const harness = await registered({ timings: { heartbeatIntervalMs: 60_000 } });
    await waitFor(() => harness.backend.device(harness.deviceId)?.syncAcks.length, {
      what: "the replace sync",
    });
    await waitFor(() => harness.backend.eventsNamed("device:heartbeat").length === 2, {
      what: "the extra heartbeat",
    });
    const second = harness.backend.device(harness.deviceId)!.heartbeats[1] as {
      capabilities: { revision: number };
    };
    expect(second.capabilities.revision).toBe(1);
  });
});
