import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectToHome, type ApprovalClient } from "../../../src/approval-server/client.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { errorCode, RawConnection, signedFrame } from "./raw-socket.js";
import { realProgram } from "../../support/programs.js";
import { waitFor } from "../../support/wait-for.js";

let g: RunningGatehouse;
let echo: string;
const conns: RawConnection[] = [];

beforeEach(async () => {
  echo = realProgram("echo");
  g = await startGatehouse({
    policy: { allow: [echo], agents: { locked: { security: "deny" } } },
  });
});
afterEach(async () => {
  for (const c of conns.splice(0)) c.close();
  await g.stop();
});

async function raw(): Promise<RawConnection> {
  const c = await RawConnection.open(g.socketPath);
  conns.push(c);
  return c;
}

describe("approval socket limits", () => {
  it("closes a connection that sends no frame within 5 s, without writing anything", async () => {
    const conn = await raw();
    const opened = Date.now();
    await conn.waitClosed(10_000);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(4_900);
    expect(conn.frames).toEqual([]);
  });

  it("answers a valid request while 50 idle connections are still open", async () => {
    const idle = await Promise.all(Array.from({ length: 50 }, () => raw()));
    const client = await g.client();
    const result = await client.request("approval.request", { argv: ["echo", "hi"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "allow-once" } });
    expect(idle.filter((c) => c.closed)).toEqual([]);
  });

  it("gives 200 concurrent clients × 50 requests each their own correct signed decision", async () => {
    const clients: ApprovalClient[] = [];
    for (let i = 0; i < 200; i++) {
      const connected = await connectToHome(g.t.paths, { timeoutMs: 60_000 });
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
    }
    try {
      const outcomes = await Promise.all(
        clients.map(async (client, c) => {
          const results = await Promise.all(
            Array.from({ length: 50 }, (_, r) =>
              (c + r) % 2 === 0
                ? client.request("approval.request", { argv: ["echo", `${c}-${r}`], cwd: "/tmp" })
                : client.request("approval.request", {
                    argv: ["echo", `${c}-${r}`],
                    cwd: "/tmp",
                    agentId: "locked",
                  }),
            ),
          );
          return results.map((result, r) => {
            if (result.status !== "ok") return `${c}-${r}: ${JSON.stringify(result)}`;
            const expected =
              (c + r) % 2 === 0 ? ["allow-once", `rule:${g.entryIds[echo]}`] : ["deny", "policy"];
            const got = [result.body.decision, result.body.decidedBy];
            return JSON.stringify(got) === JSON.stringify(expected)
              ? "ok"
              : `${c}-${r}: ${JSON.stringify(got)}`;
          });
        }),
      );
      const wrong = outcomes.flat().filter((o) => o !== "ok");
      expect(wrong).toEqual([]);
      expect(outcomes.flat()).toHaveLength(10_000);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it("answers a client flooding requests with rate_limited and closes it, while others are answered", async () => {
    const flood = await raw();
    const token = g.token();
    const lines = Array.from({ length: 3_000 }, () => JSON.stringify(signedFrame(token, "ping", {})));
    flood.socket.write(`${lines.join("\n")}\n`);
    const client = await g.client();
    const answered = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.request("approval.request", { argv: ["echo", String(i)], cwd: "/tmp" }),
      ),
    );
    expect(answered.every((r) => r.status === "ok" && r.body.decision === "allow-once")).toBe(true);
    await flood.waitClosed();
    const limited = flood.frames.filter((f) => f.type === "error").map(errorCode);
    expect(limited.length).toBeGreaterThan(0);
    expect(new Set(limited)).toEqual(new Set(["rate_limited"]));
    expect(limited.length).toBeLessThanOrEqual(10);
    expect(flood.frames.filter((f) => f.type === "pong").length).toBeLessThanOrEqual(2_000);
  });

  it("a burst of 2 100 requests gets the replies of the 2 000 it accepted, then rate_limited, then the close", async () => {
    // A frozen clock: the whole burst falls in one second of the limiter, however slowly it is read.
    const instant = Date.now();
    await g.stop();
    g = await startGatehouse({ policy: { allow: [echo] }, now: () => instant });
    const burst = await raw();
    const token = g.token();
    const frames = Array.from({ length: 2_100 }, (_, i) =>
      signedFrame(
        token,
        "approval.request",
        { argv: ["echo", String(i)], cwd: "/tmp" },
        { id: `r-${i}`, ts: instant },
      ),
    );
    burst.socket.write(`${frames.map((f) => JSON.stringify(f)).join("\n")}\n`);
    await burst.waitClosed(60_000);
    const decided = burst.frames.filter((f) => f.type === "decision");
    const limited = burst.frames.filter((f) => f.type === "error").map(errorCode);
    expect(decided).toHaveLength(2_000);
    // Requests are decided concurrently and replies carry their id, so the order among them is free
    // (the first request can be the last decided: it pays the analyser's first load).
    const byNumber = (ids: Array<string | null>) =>
      ids.sort((a, b) => Number(a?.slice(2)) - Number(b?.slice(2)));
    expect(byNumber(decided.map((f) => f.id))).toEqual(frames.slice(0, 2_000).map((f) => f.id));
    expect(decided.every((f) => (JSON.parse(f.body) as { decision: string }).decision === "allow-once")).toBe(
      true,
    );
    expect(limited).toEqual(Array.from({ length: 10 }, () => "rate_limited"));
    // The errors come after every reply owed before them.
    expect(burst.frames.slice(2_000).map((f) => f.type)).toEqual(Array.from({ length: 10 }, () => "error"));
  });

  it("an exec.run whose client goes away while the command runs is stopped and audited as such", async () => {
    const sleep = realProgram("sleep");
    await g.stop();
    g = await startGatehouse({ policy: { allow: [sleep] } });
    const conn = await raw();
    conn.send(signedFrame(g.token(), "exec.run", { argv: ["sleep", "30"], cwd: "/tmp" }));
    await waitFor(() => g.auditLines().find((l) => l.event === "decision"), { what: "the decision line" });
    conn.close();
    const run = await waitFor(() => g.auditLines().find((l) => l.event === "run"), {
      what: "the run line",
      timeoutMs: 20_000,
    });
    expect(run.reason).toBe("cancelled while running: the client closed its connection before the reply");
  });

  it("closes a client flooding invalid frames after the first while others are answered", async () => {
    const flood = await raw();
    flood.socket.write("garbage\n".repeat(10_000));
    const client = await g.client();
    expect(await client.request("ping", {})).toMatchObject({ status: "ok" });
    await flood.waitClosed();
    expect(flood.frames.map(errorCode)).toEqual(["bad_request"]);
  });

  it("closes a connection after 10 invalid frames in its life", async () => {
    const conn = await raw();
    const token = g.token();
    for (let i = 0; i < 12; i++) conn.send(signedFrame(token, "no.such.type", {}));
    await conn.waitClosed();
    expect(conn.frames.map(errorCode)).toEqual(Array.from({ length: 10 }, () => "unsupported"));
  });
});
