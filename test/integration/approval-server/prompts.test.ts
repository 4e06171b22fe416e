import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { BrokerEvent } from "../../../src/approval-server/broker.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { realProgram } from "../../support/programs.js";

let g: RunningGatehouse | null = null;
afterEach(async () => {
  await g?.stop();
  g = null;
});

function approvalsFile(): { agents: Record<string, { allowlist?: { pattern: string; source?: string }[] }> } {
  return JSON.parse(fs.readFileSync(g!.t.paths.approvals, "utf8"));
}

describe("prompts over the approval socket", () => {
  it("with no presenter, askFallback decides at once and reports that nobody could be asked", async () => {
    g = await startGatehouse();
    const client = await g.client();
    const result = await client.request("approval.request", { argv: ["rm", "-rf", "build"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "no-approver", decidedBy: "fallback" } });
    await waitFor(() => g!.auditLines().length > 0, { what: "the audit line" });
    expect(g.auditLines()).toEqual([
      expect.objectContaining({ decision: "no-approver", decidedBy: "fallback" }),
    ]);
  });

  it("with no presenter and askFallback=full, askFallback allows", async () => {
    g = await startGatehouse({
      policy: { defaults: { security: "allowlist", ask: "on-miss", askFallback: "full" } },
    });
    const result = await (
      await g.client()
    ).request("approval.request", { argv: ["rm", "-rf", "build"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "allow-once", decidedBy: "fallback" } });
  });

  it("with the UI attached, the prompt waits in the queue until decide() answers it", async () => {
    g = await startGatehouse();
    g.services.broker.attachUi();
    const client = await g.client();
    const pending = client.request("approval.request", {
      argv: ["rm", "-rf", "build"],
      cwd: "/tmp",
      reason: "clean up",
    });
    const [prompt] = await waitFor(
      () => (g!.services.broker.list().length ? g!.services.broker.list() : null),
      { what: "a prompt" },
    );
    expect(prompt).toMatchObject({
      agentId: "local",
      sessionKey: "local",
      source: "socket",
      reason: "clean up",
      cwd: "/tmp",
    });
    expect(prompt!.explanation.outcome).toBe("prompt");
    g.services.broker.decide(prompt!.id, { decision: "deny" });
    expect(await pending).toMatchObject({ status: "ok", body: { decision: "deny", decidedBy: "user" } });
  });

  it("allow always saves the proposed entries to the approvals file, and the next request is decided by that rule (an unproven client's: for every agent)", async () => {
    g = await startGatehouse();
    g.services.broker.attachUi();
    const client = await g.client();
    const touch = realProgram("touch");
    const pending = client.request("approval.request", { argv: ["touch", "x"], cwd: "/tmp" });
    const [prompt] = await waitFor(() =>
      g!.services.broker.list().length ? g!.services.broker.list() : null,
    );
    expect(prompt!.explanation.proposedEntries).toEqual([expect.objectContaining({ pattern: touch })]);
    g.services.broker.decide(prompt!.id, {
      decision: "allow-always",
      entries: prompt!.explanation.proposedEntries,
    });
    const result = await pending;
    expect(result).toMatchObject({ status: "ok", body: { decision: "allow-always", decidedBy: "user" } });
    expect(result.status === "ok" && result.body.savedEntries).toEqual([
      expect.objectContaining({ pattern: touch, source: "allow-always" }),
    ]);
    // who asked is not proven, so only the every-agent list decides its requests: that is where it goes
    expect(approvalsFile().agents["*"]?.allowlist).toEqual([
      expect.objectContaining({ pattern: touch, source: "allow-always" }),
    ]);
    expect(approvalsFile().agents.local?.allowlist).toBeUndefined();
    const again = await client.request("approval.request", { argv: ["touch", "y"], cwd: "/tmp" });
    expect(again).toMatchObject({
      status: "ok",
      body: { decision: "allow-once", decidedBy: expect.stringMatching(/^rule:/) },
    });
  });

  it("coalesces the same pending request from two clients onto one prompt and answers both", async () => {
    g = await startGatehouse();
    g.services.broker.attachUi();
    const [a, b] = [await g.client(), await g.client()];
    const body = { command: "make deploy", cwd: "/tmp", sessionKey: "task:7", agentId: "claude-code" };
    const first = a.request("approval.request", body);
    await waitFor(() => g!.services.broker.list().length === 1);
    const second = b.request("approval.request", body);
    const [prompt] = g.services.broker.list();
    // the second request joins the pending prompt instead of adding one
    await waitFor(() => g!.services.broker.waitingOn(prompt!.id) === 2, { what: "the duplicate to join" });
    expect(g.services.broker.list()).toHaveLength(1);
    g.services.broker.decide(prompt!.id, { decision: "allow-once" });
    expect(await first).toMatchObject({ body: { decision: "allow-once", decidedBy: "user" } });
    expect(await second).toMatchObject({ body: { decision: "allow-once", decidedBy: "user" } });
    expect(g.services.broker.list()).toEqual([]);
  });

  it("withdraws the prompt when its client disconnects, and records the request as cancelled", async () => {
    g = await startGatehouse();
    const events: BrokerEvent[] = [];
    g.services.broker.on((e) => events.push(e));
    g.services.broker.attachUi();
    const client = await g.client();
    void client.request("approval.request", { argv: ["rm", "-rf", "build"], cwd: "/tmp" });
    await waitFor(() => g!.services.broker.list().length === 1);
    client.close();
    await waitFor(() => g!.services.broker.list().length === 0, { what: "the prompt to be withdrawn" });
    expect(events.at(-1)).toMatchObject({ type: "removed", decision: "cancelled", why: "withdrawn" });
    await waitFor(() => g!.auditLines().length === 1);
    expect(g.auditLines()).toEqual([expect.objectContaining({ decision: "cancelled" })]);
  });

  it("answers busy when 32 prompts already wait, and still decides rule-covered requests", async () => {
    const echo = realProgram("echo");
    g = await startGatehouse({ policy: { allow: [echo] } });
    g.services.broker.attachUi();
    const client = await g.client();
    const waiting = Array.from({ length: 32 }, (_, i) =>
      client.request("approval.request", { argv: ["rm", String(i)], cwd: "/tmp" }),
    );
    await waitFor(() => g!.services.broker.list().length === 32, { what: "32 pending prompts" });
    expect(await client.request("approval.request", { argv: ["rm", "one-more"], cwd: "/tmp" })).toMatchObject(
      {
        status: "error",
        code: "busy",
        signed: true,
      },
    );
    expect(await client.request("approval.request", { argv: ["echo", "hi"], cwd: "/tmp" })).toMatchObject({
      status: "ok",
      body: { decision: "allow-once" },
    });
    for (const prompt of g.services.broker.list()) g.services.broker.decide(prompt.id, { decision: "deny" });
    expect((await Promise.all(waiting)).every((r) => r.status === "ok" && r.body.decision === "deny")).toBe(
      true,
    );
  });

  it("lets askFallback decide a pending prompt when the UI detaches", async () => {
    g = await startGatehouse();
    const detach = g.services.broker.attachUi();
    const client = await g.client();
    const pending = client.request("approval.request", { argv: ["rm", "-rf", "build"], cwd: "/tmp" });
    await waitFor(() => g!.services.broker.list().length === 1);
    detach();
    expect(await pending).toMatchObject({ body: { decision: "no-approver", decidedBy: "fallback" } });
  });

  it("resolves a prompt nobody answers by askFallback when its timeout passes", async () => {
    g = await startGatehouse();
    g.services.broker.attachUi();
    const result = await (
      await g.client()
    ).request("approval.request", { argv: ["rm", "x"], cwd: "/tmp", timeoutMs: 300 });
    expect(result).toMatchObject({ body: { decision: "timeout", decidedBy: "fallback" } });
    expect(g.services.broker.list()).toEqual([]);
  });
});
