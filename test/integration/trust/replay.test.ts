// Protocol v2 against the replays and swaps that worked on v1: a signed exec.run replayed after a
// server restart, a policy.explain frame re-sent as exec.run, and a frame replayed at the exact end
// of its clock window. Each attack must leave the marker file absent.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FRAME_MAX_AGE_MS, FRAME_MAX_AHEAD_MS } from "../../../src/approval-server/frame-auth.js";
import { listenPrivately } from "../../../src/approval-server/server.js";
import { silentLogger } from "../../../src/core/log.js";
import { createServices, type Services } from "../../../src/services.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy } from "../approval-server/fixtures.js";
import { bodyOf, errorCode, RawConnection, signedFrame, type Frame } from "../approval-server/raw-socket.js";
import { startServe, type ServeProcess } from "../approval-server/serve-process.js";
import { realProgram } from "../../support/programs.js";

let t: TempHome;
let marker: string;
const running: ServeProcess[] = [];
const conns: RawConnection[] = [];

beforeEach(async () => {
  t = await makeTempHome("gh-replay-");
  marker = path.join(t.home, "marker");
  await writePolicy(t.paths, {
    defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
    allow: [realProgram("touch")],
  });
});
afterEach(async () => {
  for (const c of conns.splice(0)) c.close();
  for (const s of running.splice(0)) await s.stop();
  await t.cleanup();
});

function token(): string {
  return (JSON.parse(readFileSync(t.paths.approvals, "utf8")) as { socket: { token: string } }).socket.token;
}

/** Sends `frame` on a new connection and returns the first frame that comes back. */
async function sendOnce(frame: Frame | string): Promise<Frame> {
  const conn = await RawConnection.open(t.paths.defaultSocket);
  conns.push(conn);
  conn.send(frame);
  return conn.nextFrame(0);
}

async function serve(): Promise<ServeProcess> {
  const s = await startServe(t.env);
  running.push(s);
  return s;
}

describe("protocol v2 against replays", () => {
  it("refuses an exec.run frame replayed after a server restart: it is dated before the new server started", async () => {
    const first = await serve();
    const frame = JSON.stringify(signedFrame(token(), "exec.run", { argv: ["touch", marker] }));
    expect((await sendOnce(frame)).type).toBe("exec.result");
    expect(existsSync(marker)).toBe(true);
    await fs.rm(marker);

    await first.stop();
    running.splice(running.indexOf(first), 1);
    await serve();
    const replayed = await sendOnce(frame); // the very same bytes
    expect(errorCode(replayed)).toBe("expired");
    expect(bodyOf<{ message: string }>(replayed).message).toMatch(/dated before this server started/);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a policy.explain frame re-sent as exec.run: the mac covers the type", async () => {
    await serve();
    const explain = signedFrame(token(), "policy.explain", { argv: ["touch", marker] });
    const swapped = { ...explain, type: "exec.run" };
    const reply = await sendOnce(swapped);
    expect(errorCode(reply)).toBe("bad_mac");
    expect(existsSync(marker)).toBe(false);
    // The frame itself was good: as sent, it is explained (and nothing runs).
    expect((await sendOnce(explain)).type).toBe("explanation");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the clock window's boundary", () => {
  let services: Services | null = null;
  afterEach(async () => {
    await services?.stop();
    services = null;
  });

  it("a frame accepted once is refused at every instant it could still pass the clock check, the last one included", async () => {
    let clock = 1_800_000_000_000;
    services = createServices({ env: t.env, paths: t.paths, logger: silentLogger, now: () => clock });
    const started = await services.start();
    expect(started.status).toBe("listening");

    // v1 accepted a frame dated 10 s ahead twice; v2 refuses it outright.
    const farAhead = signedFrame(token(), "exec.run", { argv: ["touch", marker] }, { ts: clock + 10_000 });
    expect(errorCode(await sendOnce(farAhead))).toBe("expired");
    expect(existsSync(marker)).toBe(false);

    const ahead = signedFrame(
      token(),
      "exec.run",
      { argv: ["touch", marker] },
      { ts: clock + FRAME_MAX_AHEAD_MS },
    );
    expect((await sendOnce(ahead)).type).toBe("exec.result");
    expect(existsSync(marker)).toBe(true);
    await fs.rm(marker);

    clock = ahead.ts + FRAME_MAX_AGE_MS; // the last instant the clock check lets it through
    expect(errorCode(await sendOnce(ahead))).toBe("replay");
    clock += 1;
    expect(errorCode(await sendOnce(ahead))).toBe("expired");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the socket's mode", () => {
  it("is private from the moment the socket exists, whatever the process umask", async () => {
    const previous = process.umask(0);
    const servers: net.Server[] = [];
    try {
      // Without care, a socket bound under umask 0 starts out 0777 (until a chmod).
      const careless = net.createServer();
      servers.push(careless);
      careless.listen(path.join(t.home, "careless.sock"));
      expect((await fs.lstat(path.join(t.home, "careless.sock"))).mode & 0o777).toBe(0o777);

      const server = net.createServer();
      servers.push(server);
      const socketPath = path.join(t.home, "private.sock");
      listenPrivately(server, socketPath, process.platform, () => undefined);
      // Checked synchronously, before anything else could run: the bind already happened.
      expect(lstatSync(socketPath).mode & 0o077).toBe(0);
      expect(process.umask(0)).toBe(0); // and the process umask is back
    } finally {
      process.umask(previous);
      for (const s of servers) s.close();
    }
  });
});
