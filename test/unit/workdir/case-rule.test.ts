// The volume's case rule, probed (core/workdir/io/case-rule.ts): the case-swapped path must be the same
// folder (dev+ino). A case-insensitive volume cannot be mounted here (no CONFIG_UNICODE, no vfat), so
// its identity is injected; this machine's own case-sensitive volume is probed for real.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderRule, probeCaseInsensitive } from "../../../src/core/workdir/io/case-rule.js";

let dir: string;
beforeAll(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-case-rule-")));
  await fs.mkdir(path.join(dir, "Task"));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** A case-insensitive volume as dev+ino see it, counting the stats made. */
function insensitiveVolume(folder: string) {
  const calls: string[] = [];
  return {
    calls,
    identity: async (p: string) => {
      calls.push(p);
      if (p.toLowerCase() !== folder.toLowerCase())
        throw Object.assign(new Error("missing"), { code: "ENOENT" });
      return { dev: 7, ino: 99 };
    },
  };
}

describe("probeCaseInsensitive", () => {
  it.skipIf(process.platform !== "linux")("a folder on this Linux volume is case-sensitive", async () => {
    expect(await probeCaseInsensitive(path.join(dir, "Task"), "linux")).toBe(false);
    expect((await folderRule(path.join(dir, "Task"), "linux")).caseInsensitive).toBe(false);
  });

  it("a volume where the swapped spelling is the same folder is case-insensitive, and the answer is kept", async () => {
    const folder = "/Volumes/Mac/Users/alice/Work";
    const volume = insensitiveVolume(folder);
    expect(await probeCaseInsensitive(folder, "darwin", volume.identity)).toBe(true);
    expect(volume.calls).toEqual([folder, "/vOLUMES/mAC/uSERS/ALICE/wORK"]);
    expect(await probeCaseInsensitive(folder, "darwin", volume.identity)).toBe(true);
    expect(volume.calls).toHaveLength(3); // one stat: the folder is still the one probed
    expect(await folderRule(folder, "darwin", volume.identity)).toEqual({ caseInsensitive: true, nfc: true });
  });

  it("a folder replaced by another (new inode) is probed again", async () => {
    const folder = "/mnt/data/Replaced";
    let ino = 1;
    const identity = async (p: string) => {
      if (p === folder) return { dev: 1, ino };
      if (p.toLowerCase() === folder.toLowerCase() && ino === 1) return { dev: 1, ino: 1 };
      throw Object.assign(new Error("missing"), { code: "ENOENT" });
    };
    expect(await probeCaseInsensitive(folder, "linux", identity)).toBe(true);
    ino = 2;
    expect(await probeCaseInsensitive(folder, "linux", identity)).toBe(false);
  });

  it("a missing folder or one with no letter to swap compares exactly; Windows always folds", async () => {
    expect(await probeCaseInsensitive(path.join(dir, "gone"), "linux")).toBe(false);
    expect(await probeCaseInsensitive("/1/2/3", "linux")).toBe(false);
    expect(await probeCaseInsensitive("C:\\anything", "win32")).toBe(true);
  });
});
