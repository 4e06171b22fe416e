import { afterEach, describe, expect, it } from "vitest";
import { macMatches } from "../../../src/approval-server/frame-auth.js";
import { ApprovalServer, type RequestHandlers } from "../../../src/approval-server/server.js";
import { fixedTokenSource } from "../../../src/approval-server/token-source.js";
import { silentLogger } from "../../../src/core/log.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { bodyOf, RawConnection } from "./raw-socket.js";

let t: TempHome | null = null;
let server: ApprovalServer | null = null;
afterEach(async () => {
  await server?.close();
  await t?.cleanup();
});

describe("the server and the protocol's worked example", () => {
  it("accepts exactly the worked example frame (token `secret`, its clock at the frame's ts)", async () => {
    t = await makeTempHome("gh-example-");
    const seen: unknown[] = [];
    // Echoes the body it was given: this test is about authentication, not policy.
    const handlers: RequestHandlers = {
      "approval.request": (body) => {
        seen.push(body);
        return { type: "decision", body: { decision: "deny", decidedBy: "policy", reason: "example" } };
      },
    };
    server = new ApprovalServer({
      executorHome: t.paths.executorHome,
      tokens: fixedTokenSource("secret"),
      handlers,
      logger: silentLogger,
      now: () => 1700000000000,
    });
    const listening = await server.listen(t.paths.defaultSocket);
    expect(listening.status).toBe("listening");
    const conn = await RawConnection.open(t.paths.defaultSocket);
    conn.send({
      v: 1,
      type: "approval.request",
      id: "c0ffee01",
      nonce: "0123456789abcdef0123456789abcdef",
      ts: 1700000000000,
      body: '{"command":["echo","hi"],"cwd":"/tmp"}',
      mac: "79c88e25e38d8755bf78b464ca0522411354688f8ce8825457ed9ccc4bce7b8f",
    });
    const reply = await conn.nextFrame(0);
    conn.close();
    expect(reply.type).toBe("decision");
    expect(reply.id).toBe("c0ffee01");
    expect(macMatches("secret", reply.nonce!, reply.ts!, reply.body, reply.mac!)).toBe(true);
    expect(bodyOf(reply)).toMatchObject({ decision: "deny", re: "0123456789abcdef0123456789abcdef" });
    // The example puts an argv under `command`: it is taken as an argv.
    expect(seen).toEqual([{ command: ["echo", "hi"], cwd: "/tmp" }]);
  });
});
