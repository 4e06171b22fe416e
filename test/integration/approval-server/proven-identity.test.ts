// Identity is proven, not claimed (issue 27 class 5; docs/decisions.md "Proven identity"): a client of the
// approval socket holds the token, so the agent id it names is a claim. An agent's own rights — its
// elevation, its settings that loosen, its allowlist, its limited grants — go only to a request with a
// valid proof of a running task of that agent; anything else is decided as the least-trusted agent and
// audited as unproven. Real app (services.ts), real socket, real approvals file; the task keys are the
// app's own registry, as its task runner issues them. Every command the policy lets through drops to
// uid 65534 (setpriv) and writes only into a folder that user owns: the marker proves what ran.
import { existsSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalClient, ClientResult } from "../../../src/approval-server/client.js";
import { OTHER_UID, otherUserUnavailable } from "../../support/other-user.js";
import { realProgram } from "../../support/programs.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";

const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;
const CLAUDE_TASK = { taskId: "41", runtime: "claude-code", agent: "claude-code" } as const;

let g: RunningGatehouse;
let folder: string;
let marker: string;
let client: ApprovalClient;

beforeEach(async () => {
  g = await startGatehouse({ policy: { defaults: ASK_ME } }); // nobody to ask: askFallback (deny) decides
  // outside the (private) temp home, so uid 65534 can reach it
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "gh-nobody-"));
  await fs.chown(folder, OTHER_UID, OTHER_UID);
  marker = path.join(folder, "marker");
  client = await g.client();
});
afterEach(async () => {
  await g.stop();
  await fs.rm(folder, { recursive: true, force: true });
});

/** `touch <marker>` as uid 65534: what the policy lets through runs as nobody. */
function touchAsNobody(): string[] {
  return [
    realProgram("setpriv"),
    `--reuid=${OTHER_UID}`,
    `--regid=${OTHER_UID}`,
    "--clear-groups",
    "--",
    realProgram("touch"),
    marker,
  ];
}

type Body = { decision?: string; decidedBy?: string; reason?: string; exitCode?: number | null };

function bodyOf(result: ClientResult<unknown>): Body & { error?: string } {
  if (result.status === "ok") return result.body as Body;
  if (result.status === "error") return { error: `${result.code}: ${result.message}` };
  throw new Error(result.reason);
}

const task = (taskId: string, key: string) => ({ task: { taskId, key } });

function run(agentId: string | undefined, options: { task?: { taskId: string; key: string } } = {}) {
  const body = { argv: touchAsNobody(), cwd: folder, ...(agentId ? { agentId } : {}) };
  return client.request("exec.run", body, options).then(bodyOf);
}

function ask(agentId: string | undefined, options: { task?: { taskId: string; key: string } } = {}) {
  const body = { argv: touchAsNobody(), cwd: folder, ...(agentId ? { agentId } : {}) };
  return client.request("approval.request", body, options).then(bodyOf);
}

function decisionLines() {
  return g.auditLines().filter((l) => l.event === "decision");
}

describe.skipIf(otherUserUnavailable !== null)("who asks over the approval socket", () => {
  it("the attack is real: the command runs and leaves the marker, as uid 65534, when the policy lets it", async () => {
    await g.services.approvals.setAgentSettings("defaults", { security: "full", ask: "off" });
    expect(await run(undefined)).toMatchObject({ decision: "allow-once", exitCode: 0 });
    expect(statSync(marker).uid).toBe(OTHER_UID);
  });

  it("claiming an elevated agent gets the least-trusted decision: nothing runs, and the audit line says unproven", async () => {
    await g.services.approvals.elevate("claude-code", Date.now() + 60_000, "test");
    expect(await run("claude-code")).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
    expect(await ask("claude-code")).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
    expect(existsSync(marker)).toBe(false);
    expect(decisionLines().map((l) => [l.agentId, l.identity, l.decision])).toEqual([
      ["claude-code", "unproven", "no-approver"],
      ["claude-code", "unproven", "no-approver"],
    ]);
  });

  it("the same requests with a valid proof of a running claude-code task get that agent's elevation", async () => {
    await g.services.approvals.elevate("claude-code", Date.now() + 60_000, "test");
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    expect(await ask(undefined, task("41", key))).toMatchObject({
      decision: "allow-once",
      decidedBy: "policy",
    });
    expect(existsSync(marker)).toBe(false); // approval.request decides; the requester runs
    expect(await run("claude-code", task("41", key))).toMatchObject({ decision: "allow-once", exitCode: 0 });
    expect(statSync(marker).uid).toBe(OTHER_UID);
    const lines = decisionLines();
    expect(lines.map((l) => [l.agentId, l.sessionKey, l.identity ?? null, l.verified])).toEqual([
      ["claude-code", "task:41", null, CLAUDE_TASK],
      ["claude-code", "task:41", null, CLAUDE_TASK],
    ]);
  });

  it("a proof of another task, of an ended task, or under another agent's name does not count", async () => {
    await g.services.approvals.elevate("claude-code", Date.now() + 60_000, "test");
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const other = g.services.taskKeys.issue({ taskId: "42", runtime: "codex", agent: "codex" });
    // task 42's key does not prove task 41
    expect((await run("claude-code", task("41", other))).error).toMatch(
      /^bad_task_proof: the proof does not match/,
    );
    // a codex task's proof does not carry claude-code's rights
    expect((await run("claude-code", task("42", other))).error).toMatch(
      /^bad_task_proof: task 42 runs as agent codex, but the request names agent claude-code/,
    );
    expect(await run(undefined, task("42", other))).toMatchObject({ decision: "no-approver" });
    g.services.taskKeys.revoke("41", key);
    expect((await run("claude-code", task("41", key))).error).toMatch(
      /^bad_task_proof: task 41 is not running/,
    );
    expect((await ask("claude-code", task("41", key))).error).toMatch(
      /^bad_task_proof: task 41 is not running/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("claiming an agent with a wider allowlist is covered only by the every-agent entries", async () => {
    const argPattern = `^${touchAsNobody()
      .slice(1)
      .join(" ")
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
    const own = await g.services.approvals.addEntry("claude-code", {
      pattern: realProgram("setpriv"),
      argPattern,
    });
    expect(await run("claude-code")).toMatchObject({ decision: "no-approver" });
    expect(existsSync(marker)).toBe(false);
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    expect(await run(undefined, task("41", key))).toMatchObject({
      decision: "allow-once",
      decidedBy: `rule:${own.id}`,
      exitCode: 0,
    });
    expect(statSync(marker).uid).toBe(OTHER_UID);
  });

  it("claiming an agent whose own settings loosen the policy gets the stricter of them and the anonymous ones", async () => {
    await g.services.approvals.setAgentSettings("claude-code", { security: "full", ask: "off" });
    expect(await ask("claude-code")).toMatchObject({ decision: "no-approver" });
    const explained = await client.request("policy.explain", {
      argv: touchAsNobody(),
      agentId: "claude-code",
    });
    expect(explained).toMatchObject({
      status: "ok",
      body: { outcome: "prompt", security: "allowlist", identity: "unproven", agentId: "claude-code" },
    });
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    expect(await ask(undefined, task("41", key))).toMatchObject({
      decision: "allow-once",
      decidedBy: "policy",
    });
    // and a claim can only narrow: an agent set to deny stays denied when only claimed
    await g.services.approvals.setAgentSettings("defaults", { security: "full", ask: "off" });
    await g.services.approvals.setAgentSettings("locked", { security: "deny" });
    expect(await run("locked")).toMatchObject({ decision: "deny", decidedBy: "policy" });
    expect(existsSync(marker)).toBe(false);
  });

  it("an elevation of every agent holds for an unproven request too", async () => {
    await g.services.approvals.elevate("*", Date.now() + 60_000, "test");
    expect(await run("anyone")).toMatchObject({ decision: "allow-once", decidedBy: "policy", exitCode: 0 });
    expect(statSync(marker).uid).toBe(OTHER_UID);
    // the audit line is appended by the log's writer, which may finish after the reply
    await waitFor(() => decisionLines().length > 0, { what: "the decision's audit line" });
    expect(decisionLines()[0]).toMatchObject({ identity: "unproven", elevatedUntil: expect.any(Number) });
  });

  it("spends no agent's own limited grant: an unproven request leaves its uses as they were", async () => {
    const grant = await g.services.approvals.addEntry("claude-code", { pattern: realProgram("setpriv") });
    await g.services.approvals.updateEntry("claude-code", grant.id, { usesLeft: 1 });
    // a launcher entry without an argPattern covers nothing on its own: ask about a plain program instead
    const echo = await g.services.approvals.addEntry("claude-code", { pattern: realProgram("echo") });
    await g.services.approvals.updateEntry("claude-code", echo.id, { usesLeft: 1 });
    const unproven = await client.request("approval.request", {
      argv: ["echo", "hi"],
      agentId: "claude-code",
    });
    expect(bodyOf(unproven)).toMatchObject({ decision: "no-approver" });
    const file = JSON.parse(await fs.readFile(g.t.paths.approvals, "utf8")) as {
      agents: Record<string, { allowlist?: { id: string; usesLeft?: number }[] }>;
    };
    expect(file.agents["claude-code"]?.allowlist?.find((e) => e.id === echo.id)?.usesLeft).toBe(1);
    const key = g.services.taskKeys.issue(CLAUDE_TASK);
    const proven = await client.request("approval.request", { argv: ["echo", "hi"] }, task("41", key));
    expect(bodyOf(proven)).toMatchObject({ decision: "allow-once", decidedBy: `rule:${echo.id}` });
  });
});
