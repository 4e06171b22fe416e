// The decided path without a filesystem call per request (issue 12): the approvals file, its token
// and the settings are watched instead of read per request — so every change must still take effect,
// and a file that becomes untrusted must still be refused; audit lines are written after the reply
// in batches, and none is lost on a clean shutdown; the nonce memory is sized so that clients within
// the limits never see `busy`.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { NONCE_MEMORY_MS } from "../../../src/approval-server/frame-auth.js";
import { DEFAULT_LIMITS, nonceCapacityFor } from "../../../src/approval-server/limits.js";
import { viewFolder } from "../../../src/core/policy/io/path-folders.js";
import { makeTempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { errorCode, RawConnection, signedFrame } from "./raw-socket.js";
import { realProgram } from "../../support/programs.js";

let g: RunningGatehouse | null = null;
afterEach(async () => {
  await g?.stop();
  g = null;
});

async function pingWith(token: string): Promise<string> {
  const conn = await RawConnection.open(g!.socketPath);
  try {
    conn.send(signedFrame(token, "ping", {}));
    const reply = await conn.nextFrame(0);
    return reply.type === "error" ? errorCode(reply) : reply.type;
  } finally {
    conn.close();
  }
}

describe("the decided path reads its files through watches", () => {
  it("refuses every token once the approvals file becomes writable by others, and takes it again once fixed", async () => {
    g = await startGatehouse();
    const token = g.token();
    expect(await pingWith(token)).toBe("pong");
    await fs.chmod(g.t.paths.approvals, 0o666);
    await waitFor(async () => (await pingWith(token)) === "bad_mac", { what: "the token to be refused" });
    await fs.chmod(g.t.paths.approvals, 0o600);
    await waitFor(async () => (await pingWith(token)) === "pong", { what: "the token to be taken again" });
  });

  it("takes a token written by another process and refuses the old one", async () => {
    g = await startGatehouse();
    const old = g.token();
    const other = new ApprovalsStore({
      path: g.t.paths.approvals,
      defaultSocketPath: g.t.paths.defaultSocket,
    });
    await other.rotateToken();
    const fresh = g.token();
    await waitFor(async () => (await pingWith(fresh)) === "pong", { what: "the new token" });
    expect(await pingWith(old)).toBe("bad_mac");
  });

  it("applies an allowlist edit made by another process to the next decisions", async () => {
    g = await startGatehouse();
    const client = await g.client();
    const ask = { argv: ["rm", "-f", "nothing-here"], cwd: "/tmp" };
    expect(await client.request("approval.request", ask)).toMatchObject({
      body: { decision: "no-approver", decidedBy: "fallback" },
    });
    const other = new ApprovalsStore({
      path: g.t.paths.approvals,
      defaultSocketPath: g.t.paths.defaultSocket,
    });
    await other.addEntry("*", { pattern: realProgram("rm") });
    await waitFor(
      async () => {
        const result = await client.request("approval.request", ask);
        return result.status === "ok" && (result.body as { decision: string }).decision === "allow-once";
      },
      { what: "the new entry to decide" },
    );
  });
});

describe("audit lines after the reply", () => {
  it("writes one line per decision for a burst of pipelined requests, all of them by the end of a clean shutdown", async () => {
    g = await startGatehouse({ policy: { allow: [realProgram("echo")] } });
    const client = await g.client();
    const body = { argv: ["echo", "hi"], cwd: "/tmp" };
    const replies = await Promise.all(
      Array.from({ length: 1_500 }, () => client.request("approval.request", body)),
    );
    expect(replies.every((r) => r.status === "ok")).toBe(true);
    await g.services.stop();
    const lines = g.auditLines();
    expect(lines).toHaveLength(1_500);
    expect(new Set(lines.map((l) => l.runId)).size).toBe(1_500);
    expect(lines.every((l) => l.event === "decision" && l.decision === "allow-once")).toBe(true);
  });
});

describe("programs planted on PATH between requests", () => {
  /**
   * A Gatehouse whose PATH starts with `early` (no `tool`, its listing trusted before the first
   * request) and then `late`, whose `tool` and `helper` are allowed.
   */
  async function gatehouseWithTwoFolders(prefix: string) {
    const t = await makeTempHome(prefix);
    const early = path.join(t.home, "early-bin");
    const late = path.join(t.home, "late-bin");
    await fs.mkdir(early);
    await fs.mkdir(late);
    const program = "#!/bin/sh\nexit 0\n";
    for (const name of ["tool", "helper"])
      await fs.writeFile(path.join(late, name), program, { mode: 0o755 });
    await fs.writeFile(path.join(early, "neighbour"), program, { mode: 0o755 });
    await fs.writeFile(path.join(early, "tool-data"), "data", { mode: 0o644 });
    t.env.PATH = `${early}:${late}:${t.env.PATH}`;
    g = await startGatehouse({ t, policy: { allow: [path.join(late, "tool"), path.join(late, "helper")] } });
    return { early, client: await g.client(), ask: { command: "helper && tool", cwd: t.home } };
  }

  it("decides the very next request by a program planted in an earlier PATH folder", async () => {
    const { early, client, ask } = await gatehouseWithTwoFolders("gh-as-plant-");
    await waitFor(() => viewFolder(early).listed, {
      what: "the listing of the early folder",
      timeoutMs: 20_000,
    });
    expect(await client.request("approval.request", ask)).toMatchObject({ body: { decision: "allow-once" } });
    await fs.writeFile(path.join(early, "tool"), "#!/bin/sh\ntouch planted\n", { mode: 0o755 });
    expect(await client.request("approval.request", ask)).toMatchObject({
      body: { decision: "no-approver", decidedBy: "fallback" },
    });
  }, 30_000);

  it("decides the very next request by a file in an earlier PATH folder made executable", async () => {
    const { early, client, ask } = await gatehouseWithTwoFolders("gh-as-chmod-");
    await fs.rename(path.join(early, "tool-data"), path.join(early, "tool"));
    await waitFor(() => viewFolder(early).listed, {
      what: "the listing of the early folder",
      timeoutMs: 20_000,
    });
    expect(await client.request("approval.request", ask)).toMatchObject({ body: { decision: "allow-once" } });
    await fs.chmod(path.join(early, "tool"), 0o755); // the folder's mtime does not change
    expect(viewFolder(early).listed).toBe(true);
    expect(await client.request("approval.request", ask)).toMatchObject({
      body: { decision: "no-approver", decidedBy: "fallback" },
    });
  }, 30_000);
});

describe("nonce memory", () => {
  it("holds every nonce the total rate limit can let in while a nonce is remembered", () => {
    const perSecond = DEFAULT_LIMITS.requestsPerSecondTotal;
    expect(DEFAULT_LIMITS.nonceCapacity).toBe(nonceCapacityFor(perSecond));
    expect(DEFAULT_LIMITS.nonceCapacity).toBeGreaterThanOrEqual(perSecond * (NONCE_MEMORY_MS / 1000 + 1));
    // the sustained target (bench.md approval.sustained) fits with room to spare
    expect(perSecond).toBeGreaterThanOrEqual(10_000 * 1.5);
  });

  it("answers a flood past the total rate with rate_limited, never busy, and keeps the connections", async () => {
    g = await startGatehouse({ limits: { requestsPerSecondTotal: 40, requestsPerSecond: 1_000 } });
    const clients = await Promise.all([g.client(), g.client()]);
    const replies = await Promise.all(
      clients.flatMap((c) => Array.from({ length: 150 }, () => c.request("ping", {}))),
    );
    const codes = replies.map((r) => (r.status === "ok" ? "ok" : r.status === "error" ? r.code : r.status));
    expect(codes).not.toContain("busy");
    expect(codes.filter((c) => c === "ok").length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === "ok").length).toBeLessThanOrEqual(80);
    expect(new Set(codes)).toEqual(new Set(["ok", "rate_limited"]));
    expect((await clients[0]!.request("ping", {})).status).not.toBe("unavailable");
  });
});
