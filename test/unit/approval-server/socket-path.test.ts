import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  maxSocketPathBytes,
  prepareSocketPlace,
  socketAddress,
  windowsPipeName,
} from "../../../src/approval-server/socket-path.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

/** A socket left behind by a process that was killed while listening (nobody answers on it). */
function makeDeadSocket(socketPath: string): void {
  const script = `require("net").createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, "SIGKILL"))`;
  spawnSync(process.execPath, ["-e", script]);
}

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome("gh-sp-");
});
afterEach(async () => {
  await t.cleanup();
});

describe("socket address", () => {
  it("takes socket.path from the approvals file with ~ expanded, else E/exec-approvals.sock", () => {
    const opts = {
      home: "/h",
      executorHome: "/h/.wegent-executor",
      defaultSocket: "/h/.wegent-executor/exec-approvals.sock",
      platform: "linux" as const,
    };
    expect(socketAddress(undefined, opts)).toBe("/h/.wegent-executor/exec-approvals.sock");
    expect(socketAddress("~/run/g.sock", opts)).toBe("/h/run/g.sock");
    expect(socketAddress("rel.sock", opts)).toBe("/h/.wegent-executor/rel.sock");
  });

  it("uses a named pipe on Windows derived from the user and the home", () => {
    const name = windowsPipeName("C:\\Users\\u\\.wegent-executor", "u");
    expect(name).toMatch(/^\\\\\.\\pipe\\gatehouse-[0-9a-f]{16}$/);
    expect(windowsPipeName("C:\\Users\\u\\.wegent-executor", "u")).toBe(name);
    expect(windowsPipeName("C:\\Users\\v\\.wegent-executor", "v")).not.toBe(name);
    expect(
      socketAddress("/x.sock", {
        home: "C:\\Users\\u",
        executorHome: "C:\\E",
        defaultSocket: "",
        platform: "win32",
      }),
    ).toMatch(/pipe/);
  });
});

describe("preparing the socket's place", () => {
  it("creates a missing parent folder 0700", async () => {
    const sock = path.join(t.home, "new", "deeper", "g.sock");
    expect(await prepareSocketPlace(sock, { executorHome: t.home })).toEqual({
      status: "ready",
      removedStale: false,
    });
    expect((await fs.stat(path.dirname(sock))).mode & 0o777).toBe(0o700);
  });

  it("refuses a parent folder other users can write to", async () => {
    const open = path.join(t.home, "open");
    await fs.mkdir(open);
    await fs.chmod(open, 0o777);
    const result = await prepareSocketPlace(path.join(open, "g.sock"), { executorHome: t.home });
    expect(result.status).toBe("refused");
    expect(result.status === "refused" && result.message).toContain("can be written by other users");
  });

  it("refuses a path longer than the platform limit with a clear error", async () => {
    const long = path.join(t.home, "x".repeat(maxSocketPathBytes("linux")));
    const result = await prepareSocketPlace(long, { executorHome: t.home, platform: "linux" });
    expect(result.status).toBe("refused");
    expect(result.status === "refused" && result.message).toMatch(
      /bytes long; this system allows at most 108/,
    );
    expect(maxSocketPathBytes("darwin")).toBe(104);
  });

  it("replaces a stale socket nobody answers on", async () => {
    const sock = path.join(t.home, "stale.sock");
    makeDeadSocket(sock);
    expect((await fs.lstat(sock)).isSocket()).toBe(true);
    expect(await prepareSocketPlace(sock, { executorHome: t.home })).toEqual({
      status: "ready",
      removedStale: true,
    });
    await expect(fs.lstat(sock)).rejects.toThrow();
  });

  it("refuses to touch a live socket: another Gatehouse serves the home", async () => {
    const sock = path.join(t.home, "live.sock");
    const server = net.createServer((c) => c.end());
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      const result = await prepareSocketPlace(sock, { executorHome: t.paths.executorHome });
      expect(result).toEqual({
        status: "in-use",
        message: expect.stringContaining(`already serves ${t.paths.executorHome}`),
      });
      expect((await fs.lstat(sock)).isSocket()).toBe(true);
    } finally {
      server.close();
    }
  });

  it("refuses a regular file, a folder or a symbolic link at the path and leaves it there", async () => {
    const file = path.join(t.home, "file.sock");
    await fs.writeFile(file, "mine");
    const dir = path.join(t.home, "dir.sock");
    await fs.mkdir(dir);
    const link = path.join(t.home, "link.sock");
    await fs.symlink(file, link);
    for (const [p, words] of [
      [file, "a regular file"],
      [dir, "a folder"],
      [link, "a symbolic link"],
    ] as const) {
      const result = await prepareSocketPlace(p, { executorHome: t.home });
      expect(result.status).toBe("refused");
      expect(result.status === "refused" && result.message).toContain(words);
    }
    expect(await fs.readFile(file, "utf8")).toBe("mine");
    expect((await fs.stat(dir)).isDirectory()).toBe(true);
  });
});
