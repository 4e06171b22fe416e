import { afterEach, describe, expect, it } from "vitest";
import { computeMacV1 } from "../../../src/approval-server/frame-auth.js";
import { ApprovalServer, type RequestHandlers } from "../../../src/approval-server/server.js";
import { fixedTokenSource } from "../../../src/approval-server/token-source.js";
import { silentLogger } from "../../../src/core/log.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { bodyOf, errorCode, RawConnection, replyVerifies } from "./raw-socket.js";

let t: TempHome | null = null;
let server: ApprovalServer | null = null;
afterEach(async () => {
  await server?.close();
  await t?.cleanup();
});

/** The server of the examples: token `secret`, its clock stopped at the frames' ts. */
async function exampleServer(seen: unknown[]): Promise<string> {
  t = await makeTempHome("gh-example-");
  // Echoes the body it was given: these tests are about authentication, not policy.
  const decision = (body: unknown) => {
    seen.push(body);
    return { type: "decision", body: { decision: "deny", decidedBy: "policy", reason: "example" } };
  };
  const handlers: RequestHandlers = { "approval.request": decision, "exec.run": decision };
  server = new ApprovalServer({
    executorHome: t.paths.executorHome,
    tokens: fixedTokenSource("secret"),
    handlers,
    logger: silentLogger,
    now: () => 1700000000000,
  });
  const listening = await server.listen(t.paths.defaultSocket);
  expect(listening.status).toBe("listening");
  return t.paths.defaultSocket;
}

/** docs/approval-protocol-v2.md, "Worked example". */
const V2_EXAMPLE = {
  v: 2,
  type: "approval.request",
  id: "c0ffee01",
  nonce: "0123456789abcdef0123456789abcdef",
  ts: 1700000000000,
  body: '{"command":["echo","hi"],"cwd":"/tmp"}',
  mac: "d64bafc01054543e1420c13706d72effdf30db25b5ed8ed63658be1ecf7eb46b",
};

describe("the server and the protocol's worked examples", () => {
  it("accepts exactly the v2 worked example frame and answers with a verified reply to it", async () => {
    const seen: unknown[] = [];
    const conn = await RawConnection.open(await exampleServer(seen));
    conn.send(V2_EXAMPLE);
    const reply = await conn.nextFrame(0);
    conn.close();
    expect(reply).toMatchObject({ v: 2, type: "decision", id: "c0ffee01" });
    expect(replyVerifies("secret", reply)).toBe(true);
    expect(bodyOf(reply)).toMatchObject({ decision: "deny", re: "0123456789abcdef0123456789abcdef" });
    // The example puts an argv under `command`: it is taken as an argv.
    expect(seen).toEqual([{ command: ["echo", "hi"], cwd: "/tmp" }]);
  });

  it("refuses the v2 example re-sent under another type: the mac covers the type", async () => {
    const seen: unknown[] = [];
    const conn = await RawConnection.open(await exampleServer(seen));
    conn.send({ ...V2_EXAMPLE, type: "exec.run" });
    const reply = await conn.nextFrame(0);
    await conn.waitClosed();
    expect(errorCode(reply)).toBe("bad_mac");
    expect(seen).toEqual([]);
  });

  it("answers v1's worked example (which v1's mac reproduces) with a clear version error", async () => {
    // approval-protocol.md, v1: mac = HMAC(T, nonce + ":" + ts + ":" + body).
    const v1 = {
      v: 1,
      type: "approval.request",
      id: "c0ffee01",
      nonce: "0123456789abcdef0123456789abcdef",
      ts: 1700000000000,
      body: '{"command":["echo","hi"],"cwd":"/tmp"}',
      mac: "79c88e25e38d8755bf78b464ca0522411354688f8ce8825457ed9ccc4bce7b8f",
    };
    expect(computeMacV1("secret", v1.nonce, v1.ts, v1.body)).toBe(v1.mac);
    const seen: unknown[] = [];
    const conn = await RawConnection.open(await exampleServer(seen));
    conn.send(v1);
    const reply = await conn.nextFrame(0);
    await conn.waitClosed();
    expect(reply.mac).toBeUndefined();
    expect(errorCode(reply)).toBe("bad_version");
    expect(bodyOf<{ message: string }>(reply).message).toMatch(/protocol version 2; the frame has version 1/);
    expect(seen).toEqual([]);
  });
});
