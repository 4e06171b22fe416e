import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkTrustedFile,
  checkTrustedFolder,
  checkTrustedHome,
  checkTrustedSocket,
} from "../../../src/core/io/trust.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let e: string;
beforeEach(async () => {
  t = await makeTempHome("gh-trust-rule-");
  e = t.paths.executorHome;
  await fs.mkdir(e, { mode: 0o700 });
});
afterEach(async () => {
  await t.cleanup();
});

describe.skipIf(process.platform === "win32")("the local-trust rule", () => {
  it("trusts the user's own private home, a missing one under a trusted folder, and /tmp above it", async () => {
    await fs.writeFile(t.paths.approvals, "{}", { mode: 0o600 });
    expect(checkTrustedHome(e)).toBeNull();
    expect(checkTrustedFile(t.paths.approvals)).toBeNull();
    expect(checkTrustedFolder(path.join(t.home, "not-yet", "e"))).toBeNull(); // the temp home sits in sticky /tmp
  });

  it("refuses a file or folder another user could write, naming it, its mode and the fix", async () => {
    await fs.writeFile(t.paths.approvals, "{}");
    await fs.chmod(t.paths.approvals, 0o666);
    expect(checkTrustedFile(t.paths.approvals)?.message).toBe(
      `The file ${t.paths.approvals} can be written by other users (mode 0666), so Gatehouse does not trust it. ` +
        `Run "chmod go-w ${t.paths.approvals}" and check what it holds.`,
    );
    expect(checkTrustedHome(e)?.path).toBe(t.paths.approvals);
    await fs.chmod(t.paths.approvals, 0o600);
    await fs.chmod(e, 0o1777); // sticky is fine above E, never for E itself
    expect(checkTrustedHome(e)?.message).toContain(
      `The folder ${e} can be written by other users (mode 1777)`,
    );
  });

  it("refuses what belongs to another user, E's entries included", async () => {
    const otherUid = (process.geteuid?.() ?? 0) + 4242; // as seen by a user who owns none of it
    expect(checkTrustedFolder(e, { uid: otherUid })?.message).toMatch(/belongs to another user/);
    expect(checkTrustedHome(e, { uid: otherUid })?.path).toBe(e);
  });

  it("refuses a folder above that others can write, and follows links to where they lead", async () => {
    const open = path.join(t.home, "open");
    await fs.mkdir(open);
    await fs.chmod(open, 0o777);
    expect(checkTrustedFolder(path.join(open, "e"))?.path).toBe(open);
    const real = path.join(open, "real-e");
    await fs.mkdir(real, { mode: 0o700 });
    const link = path.join(t.home, "linked-e");
    await fs.symlink(real, link);
    expect(checkTrustedFolder(link)?.path).toBe(open);
  });

  it("accepts only a socket of the user's own in a folder nobody else can write", async () => {
    const socketPath = path.join(e, "s.sock");
    expect(checkTrustedSocket(socketPath)).toBeNull(); // nobody listens: for the caller to report
    await fs.writeFile(socketPath, "");
    expect(checkTrustedSocket(socketPath)?.message).toMatch(/is not a socket/);
    await fs.rm(socketPath);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      expect(checkTrustedSocket(socketPath)).toBeNull();
      const otherUid = (process.geteuid?.() ?? 0) + 4242;
      expect(checkTrustedSocket(socketPath, { uid: otherUid })?.message).toMatch(/belongs to another user/);
    } finally {
      server.close();
    }
  });
});
