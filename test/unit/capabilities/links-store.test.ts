import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  inspectRuntimePath,
  placeLink,
  removeOwnedPath,
  type LinkOptions,
} from "../../../src/core/capabilities/io/links.js";
import { CapabilityStore, renameWithRetry } from "../../../src/core/capabilities/io/store.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let store: string;
let options: LinkOptions;
let target: string;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-links-");
  store = t.paths.capabilityStore;
  target = path.join(store, "skills", "1-default-browser");
  await fs.mkdir(target, { recursive: true });
  await fs.writeFile(path.join(target, "SKILL.md"), "x");
  options = { store };
});
afterEach(async () => t.cleanup());

describe("runtime path ownership (device-protocol.md §7.6)", () => {
  it("owns only links whose target lies inside the store, relative targets included", async () => {
    const dir = path.join(t.paths.claudeHome, "skills");
    await fs.mkdir(dir, { recursive: true });
    await fs.symlink(target, path.join(dir, "abs"));
    await fs.symlink(path.relative(dir, target), path.join(dir, "rel"));
    await fs.symlink(path.join(store, "skills", "gone"), path.join(dir, "broken-ours"));
    await fs.symlink("/usr/share", path.join(dir, "elsewhere"));
    await fs.symlink(path.join(t.home, "nowhere"), path.join(dir, "broken-theirs"));
    await fs.symlink(store, path.join(dir, "store-itself"));
    await fs.mkdir(path.join(dir, "folder"));
    await fs.writeFile(path.join(dir, "file"), "x");
    const kind = async (name: string) => (await inspectRuntimePath(path.join(dir, name), options)).kind;
    expect(await kind("abs")).toBe("owned");
    expect(await kind("rel")).toBe("owned");
    expect(await kind("broken-ours")).toBe("owned");
    expect(await kind("elsewhere")).toBe("user");
    expect(await kind("broken-theirs")).toBe("user");
    expect(await kind("store-itself")).toBe("user");
    expect(await kind("folder")).toBe("user");
    expect(await kind("file")).toBe("user");
    expect(await kind("absent")).toBe("absent");
  });

  it("replaces an owned link atomically and never touches a user's folder", async () => {
    const link = path.join(t.paths.claudeHome, "skills", "browser");
    expect(await placeLink(link, target, options)).toBe("linked");
    expect(await fs.readlink(link)).toBe(target);
    expect(await placeLink(link, target, options)).toBe("unchanged");
    const other = path.join(store, "skills", "2-default-browser");
    await fs.mkdir(other);
    expect(await placeLink(link, other, options)).toBe("linked");
    expect(await fs.readlink(link)).toBe(other);
    expect((await fs.readdir(path.dirname(link))).sort()).toEqual(["browser"]); // no temp names left
    const mine = path.join(t.paths.claudeHome, "skills", "mine");
    await fs.mkdir(mine);
    await expect(placeLink(mine, target, options)).rejects.toThrow(/not a Gatehouse link/);
    expect(await removeOwnedPath(mine, options)).toBe("not-owned");
    expect((await fs.stat(mine)).isDirectory()).toBe(true);
  });

  it("removes owned links with unlink, leaving the store folder they point to intact", async () => {
    const link = path.join(t.paths.codexHome, "skills", "browser");
    await placeLink(link, target, options);
    expect(await removeOwnedPath(link, options)).toBe("removed");
    expect(await removeOwnedPath(link, options)).toBe("absent");
    expect(await fs.readFile(path.join(target, "SKILL.md"), "utf8")).toBe("x");
  });

  it("falls back to a marked copy where links are impossible, and owns that copy afterwards", async () => {
    const noLinks: LinkOptions = {
      store,
      symlink: async () => {
        throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
      },
    };
    const link = path.join(t.paths.claudeHome, "skills", "browser");
    expect(await placeLink(link, target, noLinks)).toBe("copied");
    expect(await fs.readFile(path.join(link, "SKILL.md"), "utf8")).toBe("x");
    expect(await inspectRuntimePath(link, noLinks)).toEqual({ kind: "user" }); // not recorded as a copy: the user's
    const recorded = { ...noLinks, copies: new Set([link]) };
    expect(await inspectRuntimePath(link, recorded)).toEqual({ kind: "owned", target, copy: true });
    expect(await removeOwnedPath(link, recorded)).toBe("removed");
    expect(await fs.readFile(path.join(target, "SKILL.md"), "utf8")).toBe("x");
  });
});

describe("store swap (device-protocol.md §7.5)", () => {
  it("swaps a staged folder into place and empties the work folders at start-up", async () => {
    const s = new CapabilityStore(store);
    await s.prepare();
    const staged = await s.newStaging();
    await fs.writeFile(path.join(staged, "SKILL.md"), "new");
    await s.swapIntoPlace(staged, target);
    expect(await fs.readFile(path.join(target, "SKILL.md"), "utf8")).toBe("new");
    expect(await fs.readdir(s.trashDir)).toEqual([]);
    await fs.mkdir(path.join(s.stagingDir, "left-by-a-crash"));
    await fs.mkdir(path.join(s.trashDir, "also-left"));
    await s.prepare();
    expect(await fs.readdir(s.stagingDir)).toEqual([]);
    expect(await fs.readdir(s.trashDir)).toEqual([]);
  });

  it("renames the old folder back when the second rename fails", async () => {
    let calls = 0;
    const failing = new CapabilityStore(store, {
      fs: {
        rename: async (from, to) => {
          calls++;
          if (calls === 2) throw Object.assign(new Error("busy"), { code: "EXDEV" });
          await fs.rename(from, to);
        },
      },
    });
    const staged = await failing.newStaging();
    await fs.writeFile(path.join(staged, "SKILL.md"), "new");
    await expect(failing.swapIntoPlace(staged, target)).rejects.toThrow("busy");
    expect(await fs.readFile(path.join(target, "SKILL.md"), "utf8")).toBe("x");
  });

  it("retries EPERM/EBUSY renames on Windows for up to the retry window, and not elsewhere", async () => {
    const attempts: string[] = [];
    const flaky = {
      rename: async () => {
        attempts.push("try");
        if (attempts.length < 3) throw Object.assign(new Error("locked"), { code: "EBUSY" });
      },
    };
    await renameWithRetry("a", "b", { platform: "win32", fs: flaky, retryMs: 2000 });
    expect(attempts).toHaveLength(3);
    attempts.length = 0;
    await expect(renameWithRetry("a", "b", { platform: "linux", fs: flaky })).rejects.toThrow("locked");
    expect(attempts).toHaveLength(1);
    const stuck = {
      rename: async () => Promise.reject(Object.assign(new Error("denied"), { code: "EPERM" })),
    };
    await expect(renameWithRetry("a", "b", { platform: "win32", fs: stuck, retryMs: 50 })).rejects.toThrow(
      "denied",
    );
  });

  it("collects every store folder no manifest entry references", async () => {
    const s = new CapabilityStore(store);
    await s.prepare();
    const unused = path.join(s.pluginsDir, "9-mp-old-1.0");
    await fs.mkdir(unused, { recursive: true });
    expect(await s.collectGarbage(new Set([target]))).toEqual([unused]);
    expect(await fs.readdir(s.skillsDir)).toEqual(["1-default-browser"]);
  });
});
