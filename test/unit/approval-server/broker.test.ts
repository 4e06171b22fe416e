import { describe, expect, it } from "vitest";
import { PromptBroker, type BrokerEvent } from "../../../src/approval-server/broker.js";
import { makePrompt } from "./prompt-fixture.js";

describe("prompt broker", () => {
  it("answers no-approver at once when no presenter is attached, so askFallback decides immediately", async () => {
    const broker = new PromptBroker();
    const started = Date.now();
    await expect(broker.request(makePrompt())).resolves.toEqual({ decision: "no-approver" });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(broker.list()).toEqual([]);
  });

  it("queues prompts oldest first for the UI and resolves each with the UI's decision", async () => {
    const broker = new PromptBroker();
    const events: BrokerEvent[] = [];
    broker.on((e) => events.push(e));
    const detach = broker.attachUi();
    expect(broker.hasPresenter()).toBe(true);
    const first = makePrompt({ command: { argv: ["a"] } });
    const second = makePrompt({ command: { argv: ["b"] } });
    const a = broker.request(first);
    const b = broker.request(second);
    expect(broker.list().map((p) => p.id)).toEqual([first.id, second.id]);
    expect(broker.decide(second.id, { decision: "deny" })).toBe(true);
    expect(
      broker.decide(first.id, { decision: "allow-always", entries: [{ pattern: "/usr/bin/a", segment: 0 }] }),
    ).toBe(true);
    await expect(b).resolves.toEqual({ decision: "deny" });
    await expect(a).resolves.toEqual({
      decision: "allow-always",
      entries: [{ pattern: "/usr/bin/a", segment: 0 }],
    });
    expect(broker.decide(first.id, { decision: "deny" })).toBe(false);
    expect(events.map((e) => e.type)).toEqual(["added", "added", "removed", "removed"]);
    detach();
    expect(broker.hasPresenter()).toBe(false);
  });

  it("resolves timeout when nobody answers by expiresAt", async () => {
    const broker = new PromptBroker();
    broker.attachUi();
    const prompt = makePrompt({ expiresAt: Date.now() + 50 });
    await expect(broker.request(prompt)).resolves.toEqual({ decision: "timeout" });
    expect(broker.list()).toEqual([]);
  });

  it("coalesces the same command from the same session, agent and folder onto one prompt", async () => {
    const broker = new PromptBroker();
    broker.attachUi();
    const one = broker.request(makePrompt({ command: { command: "make" } }));
    const two = broker.request(makePrompt({ command: { command: "make" } }));
    const other = broker.request(makePrompt({ command: { command: "make" }, cwd: "/elsewhere" }));
    expect(broker.list()).toHaveLength(2);
    const [shared] = broker.list();
    expect(broker.waitingOn(shared!.id)).toBe(2);
    broker.decide(shared!.id, { decision: "allow-once" });
    await expect(one).resolves.toEqual({ decision: "allow-once" });
    await expect(two).resolves.toEqual({ decision: "allow-once" });
    expect(broker.list()).toHaveLength(1);
    broker.close();
    await expect(other).resolves.toEqual({ decision: "cancelled" });
  });

  it("withdraws a prompt when every requester has gone, and only then", async () => {
    const broker = new PromptBroker();
    const events: BrokerEvent[] = [];
    broker.on((e) => events.push(e));
    broker.attachUi();
    const left = new AbortController();
    const stays = new AbortController();
    const a = broker.request(makePrompt({ command: { argv: ["x"] } }), left.signal);
    const b = broker.request(makePrompt({ command: { argv: ["x"] } }), stays.signal);
    left.abort();
    await expect(a).resolves.toEqual({ decision: "cancelled" });
    expect(broker.list()).toHaveLength(1);
    stays.abort();
    await expect(b).resolves.toEqual({ decision: "cancelled" });
    expect(broker.list()).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: "removed", decision: "cancelled", why: "withdrawn" });
  });

  it("lets askFallback decide what is pending when the last presenter detaches", async () => {
    const broker = new PromptBroker();
    const detach = broker.attachUi();
    const pending = broker.request(makePrompt());
    detach();
    await expect(pending).resolves.toEqual({ decision: "no-approver" });
  });

  it("has room for a bounded number of prompts, but always for a duplicate of a pending one", () => {
    const broker = new PromptBroker({ maxPending: 2 });
    broker.attachUi();
    void broker.request(makePrompt({ command: { argv: ["1"] } }));
    void broker.request(makePrompt({ command: { argv: ["2"] } }));
    expect(broker.canAccept(makePrompt({ command: { argv: ["3"] } }))).toBe(false);
    expect(broker.canAccept(makePrompt({ command: { argv: ["2"] } }))).toBe(true);
    broker.close();
  });

  it("shows prompts already pending to a presenter attached later, and withdraws decided ones from all", async () => {
    const broker = new PromptBroker();
    broker.attachUi();
    const shown: string[] = [];
    const withdrawn: string[] = [];
    const prompt = makePrompt();
    const pending = broker.request(prompt);
    broker.attach({
      kind: "test",
      show: (p, decide) => {
        shown.push(p.id);
        decide({ decision: "deny" });
      },
      withdraw: (id) => withdrawn.push(id),
    });
    await expect(pending).resolves.toEqual({ decision: "deny" });
    expect(shown).toEqual([prompt.id]);
    expect(withdrawn).toEqual([prompt.id]);
  });
});
