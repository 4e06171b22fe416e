// A wall clock stepped back and forward (issue 30 item 2), through a real Gatehouse on a real socket with
// its clock injected (the machine's clock is never touched): a replayed signed frame stays refused, and
// an allowlist entry or an elevation that ended does not come back. Only approval.request and
// policy.explain are sent: they decide and explain, nothing runs.
import { afterEach, describe, expect, it } from "vitest";
import { entryLiveness } from "../../../src/core/approvals/index.js";
import { realProgram } from "../../support/programs.js";
import { startGatehouse, type RunningGatehouse } from "../approval-server/fixtures.js";
import { bodyOf, errorCode, RawConnection, signedFrame, type Frame } from "../approval-server/raw-socket.js";

const HOUR = 3600_000;
const T = Date.UTC(2026, 5, 1, 12);
let clock = T;
let g: RunningGatehouse | null = null;
const conns: RawConnection[] = [];

afterEach(async () => {
  for (const c of conns.splice(0)) c.close();
  await g?.stop();
  g = null;
  clock = T;
});

/** Sends `frame` on a new connection and returns the first frame that comes back. */
async function sendOnce(frame: Frame | string): Promise<Frame> {
  const conn = await RawConnection.open(g!.socketPath);
  conns.push(conn);
  conn.send(frame);
  return conn.nextFrame(0);
}

function explainFrame(ts: number) {
  return signedFrame(g!.token(), "policy.explain", { command: "echo hi", cwd: "/tmp" }, { ts });
}

describe("a wall clock stepped back and forward", () => {
  it("keeps refusing a replayed frame when the clock jumps forward and then back again", async () => {
    g = await startGatehouse({ now: () => clock });
    const frame = explainFrame(clock);
    expect((await sendOnce(frame)).type).not.toBe("error");
    expect(errorCode(await sendOnce(frame))).toBe("replay");
    clock = T + HOUR; // forward: the frame is too old, and a fresh one makes the server forget its nonce
    expect(errorCode(await sendOnce(frame))).toBe("expired");
    expect((await sendOnce(explainFrame(clock))).type).not.toBe("error");
    clock = T + 2_000; // back, into the frame's own clock window
    const replayed = await sendOnce(frame);
    expect(errorCode(replayed)).toBe("expired");
    expect(bodyOf<{ message: string }>(replayed).message).toMatch(/clock was set back/);
    clock = T + HOUR + 60_000; // the clock caught up: new frames are answered again
    expect((await sendOnce(explainFrame(clock))).type).not.toBe("error");
  });

  it("an entry that expired stays expired for a running Gatehouse when the clock is set back", async () => {
    const echo = realProgram("echo");
    g = await startGatehouse({
      now: () => clock,
      policy: { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } },
    });
    await g.services.approvals.addEntry("*", { pattern: echo, expiresAt: T + 60_000 });
    const decide = async () => {
      const reply = await sendOnce(
        signedFrame(g!.token(), "approval.request", { argv: [echo, "hi"], cwd: "/tmp" }, { ts: clock }),
      );
      return bodyOf<{ decision: string }>(reply).decision;
    };
    expect(await decide()).toBe("allow-once");
    clock = T + 120_000;
    expect(await decide()).toBe("deny");
    clock = T + 30_000; // back, before the entry's end (frames are signed with this clock too)
    expect(await decide()).toBe("deny");
  });

  it("an entry with an end time matches nothing while the clock reads before its creation or last use", () => {
    const entry = {
      id: "e1",
      pattern: "/bin/echo",
      createdAt: T,
      lastUsedAt: T + 20_000,
      expiresAt: T + 60_000,
    };
    expect(entryLiveness(entry, T + 30_000)).toBe("live");
    expect(entryLiveness(entry, T + 19_500)).toBe("live"); // within a second: a time service's small step
    expect(entryLiveness(entry, T + 10_000)).toBe("expired"); // set back before its last use
    expect(entryLiveness(entry, T - HOUR)).toBe("expired"); // set back before it was made
    expect(entryLiveness(entry, T + 60_000)).toBe("expired");
    const forever = { id: "e2", pattern: "/bin/echo", createdAt: T };
    expect(entryLiveness(forever, T - HOUR)).toBe("live"); // no end time: nothing to stretch
  });

  it("an elevation ends for a running Gatehouse when the clock passes its end, and does not come back when it is set back", async () => {
    const echo = realProgram("echo");
    g = await startGatehouse({
      now: () => clock,
      policy: { defaults: { security: "deny", ask: "off", askFallback: "deny" } },
    });
    await g.services.approvals.elevate("*", T + 60_000, "test");
    const decide = async () => {
      const reply = await sendOnce(
        signedFrame(g!.token(), "approval.request", { argv: [echo, "hi"], cwd: "/tmp" }, { ts: clock }),
      );
      return bodyOf<{ decision: string }>(reply).decision;
    };
    expect(await decide()).toBe("allow-once");
    clock = T + 120_000;
    expect(await decide()).toBe("deny");
    clock = T + 30_000;
    expect(await decide()).toBe("deny");
  });
});
