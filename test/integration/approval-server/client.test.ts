import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  connectApprovalClient,
  requestOnce,
  type ApprovalClient,
} from "../../../src/approval-server/client.js";
import { computeMac, signFrame } from "../../../src/approval-server/frame-auth.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { makeDeadSocket } from "./raw-socket.js";

const TOKEN = "client-test-token-0123456789";

interface SeenFrame {
  v: number;
  type: string;
  id: string;
  nonce: string;
  body: string;
}

/**
 * A fake approval server (the real one cannot misbehave on purpose): `answer` decides what goes back
 * for each request frame it receives.
 */
async function fakeServer(
  socketPath: string,
  answer: (frame: SeenFrame, index: number, write: (frame: object) => void) => void,
): Promise<net.Server> {
  let index = 0;
  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    socket.on("data", (d: string) => {
      buffer += d;
      let i: number;
      while ((i = buffer.indexOf("\n")) !== -1) {
        const frame = JSON.parse(buffer.slice(0, i)) as SeenFrame;
        buffer = buffer.slice(i + 1);
        answer(frame, index++, (reply) => socket.write(`${JSON.stringify(reply)}\n`));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

function decisionBody(nonce: string, decision = "allow-once"): string {
  return JSON.stringify({ decision, decidedBy: "user", reason: "test", re: nonce });
}

let t: TempHome;
let socketPath: string;
let servers: net.Server[] = [];
let clients: ApprovalClient[] = [];

beforeEach(async () => {
  t = await makeTempHome("gh-client-");
  socketPath = path.join(t.home, "fake.sock");
});
afterEach(async () => {
  for (const c of clients) c.close();
  for (const s of servers) s.close();
  servers = [];
  clients = [];
  await t.cleanup();
});

async function connect(timeoutMs?: number): Promise<ApprovalClient> {
  const connected = await connectApprovalClient({
    socketPath,
    token: TOKEN,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  if (connected.status !== "connected") throw new Error(connected.reason);
  clients.push(connected.client);
  return connected.client;
}

describe("approval client", () => {
  it("signs its requests so that the protocol's mac checks out", async () => {
    const seen: SeenFrame[] = [];
    servers.push(
      await fakeServer(socketPath, (frame, _i, write) => {
        seen.push(frame);
        write(signFrame(TOKEN, "reply", "decision", frame.id, decisionBody(frame.nonce), Date.now()));
      }),
    );
    const client = await connect();
    const result = await client.request("approval.request", { argv: ["echo", "hi"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "allow-once", decidedBy: "user" } });
    const frame = seen[0] as SeenFrame & { ts: number; mac: string };
    expect(frame.v).toBe(2);
    expect(frame.mac).toBe(computeMac(TOKEN, { direction: "request", ...frame }));
    expect(frame.nonce).toMatch(/^[0-9a-f]{32}$/);
  });

  it("rejects an unsigned reply that says allow (a squatter on the socket path)", async () => {
    servers.push(
      await fakeServer(socketPath, (frame, _i, write) =>
        write({ type: "decision", id: frame.id, body: decisionBody(frame.nonce) }),
      ),
    );
    const client = await connect();
    const result = await client.request("approval.request", { argv: ["rm", "-rf", "/"] });
    expect(result).toMatchObject({ status: "error", code: "bad_reply", signed: false });
  });

  it("rejects a reply whose mac was made with another token", async () => {
    servers.push(
      await fakeServer(socketPath, (frame, _i, write) =>
        write(
          signFrame(
            "not-the-token-at-all",
            "reply",
            "decision",
            frame.id,
            decisionBody(frame.nonce),
            Date.now(),
          ),
        ),
      ),
    );
    const result = await (await connect()).request("approval.request", { argv: ["ls"] });
    expect(result).toMatchObject({ status: "error", code: "bad_reply" });
    expect(result.status === "error" && result.message).toMatch(/signature/);
  });

  it("rejects an earlier signed reply replayed as the answer to another request", async () => {
    let recorded: (object & { id: string }) | null = null;
    servers.push(
      await fakeServer(socketPath, (frame, index, write) => {
        if (index === 0) {
          recorded = signFrame(TOKEN, "reply", "decision", frame.id, decisionBody(frame.nonce), Date.now());
          write(recorded);
        } else if (index === 1) {
          write({ ...recorded!, id: frame.id }); // v2: the id is under the mac
        } else {
          // Even a reply signed for this id is refused when it answers another nonce.
          write(
            signFrame(
              TOKEN,
              "reply",
              "decision",
              frame.id,
              JSON.parse(JSON.stringify(recorded!)).body,
              Date.now(),
            ),
          );
        }
      }),
    );
    const client = await connect();
    expect(await client.request("approval.request", { argv: ["ls"] })).toMatchObject({ status: "ok" });
    const swapped = await client.request("approval.request", { argv: ["rm", "-rf", "/"] });
    expect(swapped).toMatchObject({ status: "error", code: "bad_reply" });
    expect(swapped.status === "error" && swapped.message).toMatch(/signature/);
    const resigned = await client.request("approval.request", { argv: ["rm", "-rf", "/"] });
    expect(resigned).toMatchObject({ status: "error", code: "bad_reply" });
    expect(resigned.status === "error" && resigned.message).toMatch(/re is not this request's nonce/);
  });

  it("pipelines several requests on one connection and matches replies by id", async () => {
    const held: SeenFrame[] = [];
    servers.push(
      await fakeServer(socketPath, (frame, _i, write) => {
        held.push(frame);
        if (held.length < 3) return;
        for (const f of held.reverse()) {
          const decision = JSON.parse(f.body).argv[0] === "deny-me" ? "deny" : "allow-once";
          write(signFrame(TOKEN, "reply", "decision", f.id, decisionBody(f.nonce, decision), Date.now()));
        }
      }),
    );
    const client = await connect();
    const results = await Promise.all([
      client.request("approval.request", { argv: ["a"] }),
      client.request("approval.request", { argv: ["deny-me"] }),
      client.request("approval.request", { argv: ["c"] }),
    ]);
    expect(results.map((r) => r.status === "ok" && r.body.decision)).toEqual([
      "allow-once",
      "deny",
      "allow-once",
    ]);
  });

  it("gives up on a request after its timeout and reports it as a value", async () => {
    servers.push(await fakeServer(socketPath, () => undefined));
    const client = await connect();
    const result = await client.request("ping", {}, { timeoutMs: 100 });
    expect(result).toMatchObject({ status: "error", code: "timeout" });
    expect(client.pending).toBe(0);
  });

  it("reports unavailable without throwing when no socket exists or nobody listens", async () => {
    const missing = await connectApprovalClient({ socketPath, token: TOKEN });
    expect(missing).toEqual({
      status: "unavailable",
      reason: expect.stringContaining("Gatehouse is not running"),
    });
    makeDeadSocket(socketPath);
    expect((await fs.lstat(socketPath)).isSocket()).toBe(true);
    const refused = await connectApprovalClient({ socketPath, token: TOKEN });
    expect(refused).toEqual({ status: "unavailable", reason: expect.stringContaining("nobody listens") });
  });

  it("reports unavailable when the approvals file is missing or invalid", async () => {
    expect(await requestOnce(t.paths, "ping", {})).toEqual({
      status: "unavailable",
      reason: expect.stringContaining("is missing"),
    });
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.approvals, "{ not json");
    expect(await requestOnce(t.paths, "ping", {})).toEqual({
      status: "unavailable",
      reason: expect.stringContaining("is invalid"),
    });
  });

  it("reports unavailable when the server hangs up before replying", async () => {
    const server = net.createServer((socket) => socket.on("data", () => socket.destroy()));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    servers.push(server);
    const result = await (await connect()).request("ping", {});
    expect(result).toMatchObject({ status: "unavailable" });
  });
});
