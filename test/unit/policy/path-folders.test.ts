// PATH folder listings kept across requests (issue 12): each attack is run against a folder whose
// listing is trusted (checked first), and the very next request must see what was planted. Every
// attack runs twice: once as an explanation with several names meets it (a name missing from the
// folder is looked up first, so the folder is viewed from the second name on), and once with a single
// lookup that views the folder first because it was listed (or absent) at the last request.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutableResolver, type ResolveOptions } from "../../../src/core/policy/index.js";
import { firstLookMissed } from "../../../src/core/policy/io/resolve-executable.js";
import { lastView, viewFolder } from "../../../src/core/policy/io/path-folders.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { makeExecutable } from "./policy-fixture.js";

let t: TempHome;
type Style = "second-name" | "view-first";
const STYLES: Style[] = ["second-name", "view-first"];
/** Per style and attack: `first` (a PATH folder without `tool`, listed) before `second` (which has `tool`). */
const folders: Record<string, { first: string; second: string; safe: string; root: string }> = {};
const ATTACKS = ["plant", "rename", "chmod", "link-target", "link-swap", "folder-swap", "folder-created"];

function options(first: string, second: string, manyNames: boolean): ResolveOptions {
  return {
    cwd: t.home,
    pathEnv: `${first}:${second}`,
    pathExt: undefined,
    home: t.home,
    platform: "linux",
    manyNames,
  };
}

/**
 * One request's lookup of `tool`. "second-name": a name missing from `first` is looked up before
 * `tool`, so that `tool` meets the folder's view made for the second name. "view-first": `tool` alone,
 * in an explanation with several names, so a folder listed (or absent) last time is viewed first.
 */
function request(style: Style, first: string, second: string): string | null {
  const resolver = new ExecutableResolver();
  if (style === "second-name") resolver.resolve("not-anywhere", options(first, second, false));
  return resolver.resolve("tool", options(first, second, style === "view-first")).resolvedPath;
}

beforeAll(async () => {
  t = await makeTempHome("gatehouse-path-folders-");
  for (const style of STYLES) {
    for (const attack of ATTACKS) {
      const root = path.join(t.home, style, attack);
      const first = path.join(root, "first");
      const second = path.join(root, "second");
      const safe = await makeExecutable(path.join(second, "tool"));
      await makeExecutable(path.join(root, "first-real", "neighbour"));
      folders[`${style}/${attack}`] = { first, second, safe, root };
    }
    const at = (attack: string) => folders[`${style}/${attack}`]!;
    for (const attack of ["plant", "rename", "chmod", "link-target"]) {
      await fs.mkdir(at(attack).first);
      await makeExecutable(path.join(at(attack).first, "neighbour"));
    }
    await fs.writeFile(path.join(at("chmod").first, "tool"), "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    const target = path.join(at("link-target").root, "target");
    await fs.writeFile(target, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    await fs.symlink(target, path.join(at("link-target").first, "tool"));
    // link-swap: `first/tool` is a link to a folder-less place, swapped for a link to a program.
    await fs.mkdir(at("link-swap").first);
    await fs.symlink(path.join(t.home, "nowhere"), path.join(at("link-swap").first, "tool"));
    // folder-swap: `first` is a link to a folder without `tool`, then to one with it.
    const plain = path.join(at("folder-swap").root, "plain");
    await makeExecutable(path.join(plain, "neighbour"));
    await fs.symlink(plain, at("folder-swap").first);
    // folder-created: `first` does not exist yet.
  }
  // Listings are trusted only once a folder has not changed for the timestamp granularity (2 s).
  const listedFolders = Object.entries(folders)
    .filter(([key]) => !key.endsWith("/folder-created"))
    .map(([, f]) => f.first);
  await waitFor(() => listedFolders.every((dir) => viewFolder(dir).listed), {
    what: "the PATH folders to be listed",
    timeoutMs: 20_000,
  });
}, 30_000);
afterAll(async () => t.cleanup());

describe.each(STYLES)("PATH lookups with folder listings kept across requests (%s)", (style) => {
  const at = (attack: string) => folders[`${style}/${attack}`]!;
  const ask = (f: { first: string; second: string }) => request(style, f.first, f.second);
  /** The attack meets the folder's listing (view-first: the single lookup takes the listed hint). */
  const expectListed = (dir: string, kind: "listed" | "absent" = "listed") => {
    if (kind === "listed") expect(viewFolder(dir).listed).toBe(true);
    if (style !== "view-first") return;
    expect(lastView(dir)).toBe(kind);
    if (kind === "listed") expect(firstLookMissed(dir)).toBe(true); // so the next request views it first
  };
  it("finds a program written into an earlier PATH folder after a request", async () => {
    const { first, second, safe } = at("plant");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const planted = await makeExecutable(path.join(first, "tool"));
    expect(ask({ first, second })).toBe(planted);
  });

  it("finds a program renamed into an earlier PATH folder after a request", async () => {
    const { first, second, safe } = at("rename");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const staged = await makeExecutable(path.join(at("rename").root, "staging", "tool"));
    await fs.rename(staged, path.join(first, "tool"));
    expect(ask({ first, second })).toBe(path.join(first, "tool"));
  });

  it("finds a file made executable after a request, though its folder did not change", async () => {
    const { first, second, safe } = at("chmod");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const before = await fs.stat(first);
    await fs.chmod(path.join(first, "tool"), 0o755);
    const after = await fs.stat(first);
    expect(after.mtimeMs).toBe(before.mtimeMs); // the listing still stands: the name's own lstat sees it
    expect(viewFolder(first).listed).toBe(true);
    expect(ask({ first, second })).toBe(path.join(first, "tool"));
  });

  it("finds a symlink whose target became executable after a request", async () => {
    const { first, second, safe } = at("link-target");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const target = path.join(at("link-target").root, "target");
    await fs.chmod(target, 0o755);
    expect(viewFolder(first).listed).toBe(true);
    expect(ask({ first, second })).toBe(target);
  });

  it("finds a program once a dangling symlink of that name is replaced by one to it", async () => {
    const { first, second, safe } = at("link-swap");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const program = await makeExecutable(path.join(at("link-swap").root, "program"));
    await fs.symlink(program, path.join(first, ".tool-new"));
    await fs.rename(path.join(first, ".tool-new"), path.join(first, "tool"));
    expect(ask({ first, second })).toBe(program);
  });

  it("looks in the new folder once a PATH folder's symlink is pointed elsewhere", async () => {
    const { first, second, safe } = at("folder-swap");
    expect(ask({ first, second })).toBe(safe);
    expectListed(first);
    const other = path.join(at("folder-swap").root, "other");
    const program = await makeExecutable(path.join(other, "tool"));
    await fs.symlink(other, `${first}-new`);
    await fs.rename(`${first}-new`, first);
    expect(ask({ first, second })).toBe(program);
  });

  it("finds a program in a PATH folder created after a request", async () => {
    const { first, second, safe } = at("folder-created");
    viewFolder(first); // as an earlier explanation with several names would have
    expect(ask({ first, second })).toBe(safe);
    expectListed(first, "absent");
    const planted = await makeExecutable(path.join(first, "tool"));
    expect(ask({ first, second })).toBe(planted);
  });

  it("does not trust the listing of a folder that changed within the timestamp granularity", async () => {
    const { first } = at("plant");
    expect(viewFolder(first).listed).toBe(false);
    expect(viewFolder(first).mayHold("tool")).toBe(true);
  });
});
