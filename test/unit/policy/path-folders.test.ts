// PATH folder listings kept across requests (issue 12): each attack is run against a folder whose
// listing is trusted (checked first), and the very next request must see what was planted.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutableResolver, type ResolveOptions } from "../../../src/core/policy/index.js";
import { viewFolder } from "../../../src/core/policy/io/path-folders.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { makeExecutable } from "./policy-fixture.js";

let t: TempHome;
/** Per attack: `first` (a PATH folder without `tool`, listed) before `second` (which has `tool`). */
const folders: Record<string, { first: string; second: string; safe: string }> = {};
const ATTACKS = ["plant", "rename", "chmod", "link-target", "link-swap", "folder-swap", "folder-created"];

function options(first: string, second: string): ResolveOptions {
  return { cwd: t.home, pathEnv: `${first}:${second}`, pathExt: undefined, home: t.home, platform: "linux" };
}

/**
 * One request's lookup as an explanation makes it: a name missing from `first` is looked up before
 * `tool`, so that `tool` meets the folder's listing, not a plain lstat.
 */
function request(first: string, second: string): string | null {
  const resolver = new ExecutableResolver();
  resolver.resolve("not-anywhere", options(first, second));
  return resolver.resolve("tool", options(first, second)).resolvedPath;
}

beforeAll(async () => {
  t = await makeTempHome("gatehouse-path-folders-");
  for (const attack of ATTACKS) {
    const root = path.join(t.home, attack);
    const first = path.join(root, "first");
    const second = path.join(root, "second");
    const safe = await makeExecutable(path.join(second, "tool"));
    await makeExecutable(path.join(root, "first-real", "neighbour"));
    folders[attack] = { first, second, safe };
  }
  for (const attack of ["plant", "rename", "chmod", "link-target"]) {
    const { first } = folders[attack]!;
    await fs.mkdir(first);
    await makeExecutable(path.join(first, "neighbour"));
  }
  await fs.writeFile(path.join(folders.chmod!.first, "tool"), "#!/bin/sh\nexit 0\n", { mode: 0o644 });
  const target = path.join(t.home, "link-target", "target");
  await fs.writeFile(target, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
  await fs.symlink(target, path.join(folders["link-target"]!.first, "tool"));
  // link-swap: `first/tool` is a link to a folder-less place, swapped for a link to a program.
  await fs.mkdir(folders["link-swap"]!.first);
  await fs.symlink(path.join(t.home, "nowhere"), path.join(folders["link-swap"]!.first, "tool"));
  // folder-swap: `first` is a link to a folder without `tool`, then to one with it.
  const plain = path.join(t.home, "folder-swap", "plain");
  await makeExecutable(path.join(plain, "neighbour"));
  await fs.symlink(plain, folders["folder-swap"]!.first);
  // folder-created: `first` does not exist yet.
  // Listings are trusted only once a folder has not changed for the timestamp granularity (2 s).
  const listedFolders = ATTACKS.filter((a) => a !== "folder-created").map((a) => folders[a]!.first);
  await waitFor(() => listedFolders.every((dir) => viewFolder(dir).listed), {
    what: "the PATH folders to be listed",
    timeoutMs: 20_000,
  });
}, 30_000);
afterAll(async () => t.cleanup());

describe("PATH lookups with folder listings kept across requests", () => {
  it("finds a program written into an earlier PATH folder after a request", async () => {
    const { first, second, safe } = folders.plant!;
    expect(request(first, second)).toBe(safe);
    const planted = await makeExecutable(path.join(first, "tool"));
    expect(request(first, second)).toBe(planted);
  });

  it("finds a program renamed into an earlier PATH folder after a request", async () => {
    const { first, second, safe } = folders.rename!;
    expect(request(first, second)).toBe(safe);
    const staged = await makeExecutable(path.join(t.home, "rename", "staging", "tool"));
    await fs.rename(staged, path.join(first, "tool"));
    expect(request(first, second)).toBe(path.join(first, "tool"));
  });

  it("finds a file made executable after a request, though its folder did not change", async () => {
    const { first, second, safe } = folders.chmod!;
    expect(request(first, second)).toBe(safe);
    const before = await fs.stat(first);
    await fs.chmod(path.join(first, "tool"), 0o755);
    const after = await fs.stat(first);
    expect(after.mtimeMs).toBe(before.mtimeMs); // the listing still stands: the name's own lstat sees it
    expect(viewFolder(first).listed).toBe(true);
    expect(request(first, second)).toBe(path.join(first, "tool"));
  });

  it("finds a symlink whose target became executable after a request", async () => {
    const { first, second, safe } = folders["link-target"]!;
    expect(request(first, second)).toBe(safe);
    const target = path.join(t.home, "link-target", "target");
    await fs.chmod(target, 0o755);
    expect(viewFolder(first).listed).toBe(true);
    expect(request(first, second)).toBe(target);
  });

  it("finds a program once a dangling symlink of that name is replaced by one to it", async () => {
    const { first, second, safe } = folders["link-swap"]!;
    expect(request(first, second)).toBe(safe);
    const program = await makeExecutable(path.join(t.home, "link-swap", "program"));
    await fs.symlink(program, path.join(first, ".tool-new"));
    await fs.rename(path.join(first, ".tool-new"), path.join(first, "tool"));
    expect(request(first, second)).toBe(program);
  });

  it("looks in the new folder once a PATH folder's symlink is pointed elsewhere", async () => {
    const { first, second, safe } = folders["folder-swap"]!;
    expect(request(first, second)).toBe(safe);
    const other = path.join(t.home, "folder-swap", "other");
    const program = await makeExecutable(path.join(other, "tool"));
    await fs.symlink(other, `${first}-new`);
    await fs.rename(`${first}-new`, first);
    expect(request(first, second)).toBe(program);
  });

  it("finds a program in a PATH folder created after a request", async () => {
    const { first, second, safe } = folders["folder-created"]!;
    expect(request(first, second)).toBe(safe);
    const planted = await makeExecutable(path.join(first, "tool"));
    expect(request(first, second)).toBe(planted);
  });

  it("does not trust the listing of a folder that changed within the timestamp granularity", async () => {
    const { first } = folders.plant!;
    expect(viewFolder(first).listed).toBe(false);
    expect(viewFolder(first).mayHold("tool")).toBe(true);
  });
});
