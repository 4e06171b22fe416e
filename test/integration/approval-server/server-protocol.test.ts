import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APP_VERSION } from "../../../src/version.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { bodyOf, errorCode, RawConnection, replyVerifies, signedFrame, type Frame } from "./raw-socket.js";
import { realProgram } from "../../support/programs.js";

let g: RunningGatehouse;
let echo: string;
const conns: RawConnection[] = [];

beforeEach(async () => {
  echo = realProgram("echo");
  g = await startGatehouse({ policy: { allow: [echo] } });
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

/** A well-formed rule-covered request on a new connection is still answered with a signed allow. */
async function expectServerStillWorks(): Promise<void> {
  const conn = await raw();
  const frame = signedFrame(g.token(), "approval.request", { argv: ["echo", "hi"], cwd: "/tmp" });
  conn.send(frame);
  const reply = await conn.nextFrame(0);
  expect(reply.type).toBe("decision");
  expect(replyVerifies(g.token(), reply)).toBe(true);
  expect(bodyOf(reply)).toMatchObject({ decision: "allow-once", re: frame.nonce });
}

function isUnsigned(frame: Frame): boolean {
  return frame.mac === undefined && frame.nonce === undefined;
}

describe("approval socket: requests", () => {
  it("answers ping with the app version and whether a UI is attached", async () => {
    const client = await g.client();
    expect(await client.request("ping", {})).toMatchObject({
      status: "ok",
      type: "pong",
      body: { version: APP_VERSION, ui: false },
    });
    const detach = g.services.broker.attachUi();
    expect(await client.request("ping", {})).toMatchObject({ body: { ui: true } });
    detach();
    expect(await client.request("ping", {})).toMatchObject({ body: { ui: false } });
  });

  it("decides a rule-covered approval.request at once with a signed reply naming the rule", async () => {
    const client = await g.client();
    const result = await client.request("approval.request", { argv: ["echo", "hi"], cwd: "/tmp" });
    expect(result).toEqual({
      status: "ok",
      type: "decision",
      body: expect.objectContaining({ decision: "allow-once", decidedBy: `rule:${g.entryIds[echo]}` }),
    });
    // the reply does not wait for the audit line (issue 12); the line follows
    await waitFor(() => g.auditLines().length > 0, { what: "the audit line" });
    expect(g.auditLines()).toEqual([
      expect.objectContaining({ event: "decision", decision: "allow-once", source: "socket" }),
    ]);
  });

  it("explains a command as policy explain does", async () => {
    const client = await g.client();
    const result = await client.request("policy.explain", {
      command: "echo hi && rm -rf build",
      cwd: "/tmp",
    });
    if (result.status !== "ok") throw new Error(JSON.stringify(result));
    const body = result.body;
    expect(body.outcome).toBe("prompt");
    expect(body.segments.map((s) => [s.executable, s.matchedEntryId])).toEqual([
      ["echo", g.entryIds[echo]],
      ["rm", null],
    ]);
    expect(g.auditLines()).toEqual([]);
  });

  it("runs a covered command with exec.run and returns its output", async () => {
    const client = await g.client();
    const result = await client.request("exec.run", { argv: ["echo", "from the socket"], cwd: g.t.home });
    expect(result).toMatchObject({
      status: "ok",
      type: "exec.result",
      body: {
        decision: "allow-once",
        exitCode: 0,
        stdout: "from the socket\n",
        timedOut: false,
        truncated: false,
      },
    });
  });

  it("runs an exec.run without cwd in the managed workspace root, creating it 0700", async () => {
    await g.services.approvals.addEntry("*", { pattern: realProgram("pwd") });
    const result = await (await g.client()).request("exec.run", { argv: ["pwd"] });
    expect(result).toMatchObject({
      status: "ok",
      body: { exitCode: 0, stdout: `${g.t.paths.defaultWorkspaceRoot}\n` },
    });
    expect(fs.statSync(g.t.paths.defaultWorkspaceRoot).mode & 0o777).toBe(0o700);
  });

  it("does not run an exec.run the policy refuses", async () => {
    const client = await g.client();
    const result = await client.request("exec.run", { argv: ["touch", `${g.t.home}/nope`], cwd: g.t.home });
    expect(result).toMatchObject({
      status: "ok",
      body: { decision: "no-approver", decidedBy: "fallback", exitCode: null },
    });
  });
});

describe("approval socket: refusals change nothing", () => {
  const cases: {
    name: string;
    code: string;
    closes: boolean;
    unsigned: boolean;
    send: (token: string) => (string | object)[];
  }[] = [
    {
      name: "a wrong mac",
      code: "bad_mac",
      closes: true,
      unsigned: true,
      send: (tok) => [signedFrame(tok, "approval.request", { argv: ["echo"] }, { mac: "ab".repeat(32) })],
    },
    {
      name: "a wrong token",
      code: "bad_mac",
      closes: true,
      unsigned: true,
      send: () => [signedFrame("a-token-that-is-not-it", "approval.request", { argv: ["echo"] })],
    },
    {
      name: "a frame 11 s old",
      code: "expired",
      closes: true,
      unsigned: true,
      send: (tok) => [signedFrame(tok, "approval.request", { argv: ["echo"] }, { ts: Date.now() - 11_000 })],
    },
    {
      name: "a frame 11 s in the future",
      code: "expired",
      closes: true,
      unsigned: true,
      send: (tok) => [signedFrame(tok, "approval.request", { argv: ["echo"] }, { ts: Date.now() + 11_000 })],
    },
    {
      name: "a 300 KiB line",
      code: "too_large",
      closes: true,
      unsigned: true,
      send: (tok) => [signedFrame(tok, "approval.request", { argv: ["echo", "x".repeat(300 * 1024)] })],
    },
    {
      name: "invalid JSON",
      code: "bad_request",
      closes: true,
      unsigned: true,
      send: () => ['{"v":1,"type":"ping",'],
    },
    {
      name: "a frame missing fields",
      code: "bad_request",
      closes: true,
      unsigned: true,
      send: () => [{ v: 2, type: "ping", id: "x", body: "{}" }],
    },
    {
      name: "a version 1 frame (v1's mac covers no type)",
      code: "bad_version",
      closes: true,
      unsigned: true,
      send: (tok) => [{ ...signedFrame(tok, "ping", {}), v: 1 }],
    },
    {
      name: "an unknown type",
      code: "unsupported",
      closes: false,
      unsigned: false,
      send: (tok) => [signedFrame(tok, "shell.open", {})],
    },
    {
      name: "a body with both argv and command",
      code: "bad_request",
      closes: true,
      unsigned: false,
      send: (tok) => [signedFrame(tok, "approval.request", { argv: ["echo"], command: "echo" })],
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name} with ${c.code}${c.unsigned ? ", unsigned," : ""}${c.closes ? " and closes the connection" : ""}`, async () => {
      const conn = await raw();
      for (const line of c.send(g.token())) conn.send(line);
      const reply = await conn.nextFrame(0);
      expect(reply.type).toBe("error");
      expect(errorCode(reply)).toBe(c.code);
      expect(isUnsigned(reply)).toBe(c.unsigned);
      if (c.closes) await conn.waitClosed();
      else expect(conn.closed).toBe(false);
      expect(conn.frames).toHaveLength(1);
      expect(g.auditLines()).toEqual([]);
      await expectServerStillWorks();
    });
  }

  it("refuses a replayed frame within the TTL, unsigned, and decides only the first", async () => {
    const frame = signedFrame(g.token(), "approval.request", { argv: ["echo", "once"] });
    const first = await raw();
    first.send(frame);
    expect(bodyOf(await first.nextFrame(0))).toMatchObject({ decision: "allow-once" });
    const second = await raw();
    second.send(frame);
    const reply = await second.nextFrame(0);
    expect(errorCode(reply)).toBe("replay");
    expect(isUnsigned(reply)).toBe(true);
    await second.waitClosed();
    await expectServerStillWorks();
    // the first request's line and the check's own (replies do not wait for audit lines)
    await waitFor(() => g.auditLines().length === 2, { what: "the audit lines" });
    expect(g.auditLines().filter((line) => line.command === "echo once")).toHaveLength(1);
  });

  it("writes nothing but one unsigned error before a valid signed frame", async () => {
    const conn = await raw();
    conn.send("not json at all");
    conn.send(signedFrame(g.token(), "ping", {})); // after the refusal nothing more is read
    await conn.waitClosed();
    expect(conn.frames).toHaveLength(1);
    expect(isUnsigned(conn.frames[0]!)).toBe(true);
  });

  it("takes a rotated token for the very next frame and refuses the old one", async () => {
    const old = g.token();
    await g.services.approvals.rotateToken();
    const fresh = g.token();
    expect(fresh).not.toBe(old);
    const stale = await raw();
    stale.send(signedFrame(old, "ping", {}));
    expect(errorCode(await stale.nextFrame(0))).toBe("bad_mac");
    const current = await raw();
    current.send(signedFrame(fresh, "ping", {}));
    expect((await current.nextFrame(0)).type).toBe("pong");
  });
});
