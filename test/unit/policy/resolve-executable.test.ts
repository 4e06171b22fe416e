// Resolving executables: PATH lookup, paths relative to the cwd, ~, real paths, and why a word does not resolve.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ExecutableResolver,
  resolveExecutable,
  type ResolveOptions,
} from "../../../src/core/policy/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { makeExecutable } from "./policy-fixture.js";

let t: TempHome;
let opts: ResolveOptions;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-resolve-");
  await fs.mkdir(path.join(t.home, "cwd"), { recursive: true });
  opts = {
    cwd: path.join(t.home, "cwd"),
    pathEnv: [path.join(t.home, "a"), path.join(t.home, "b")].join(":"),
    pathExt: undefined,
    home: t.home,
    platform: "linux",
  };
});
afterEach(async () => t.cleanup());

describe("resolveExecutable", () => {
  it("finds a bare name in the first PATH folder that has it", async () => {
    await makeExecutable(path.join(t.home, "b/tool"));
    const first = await makeExecutable(path.join(t.home, "a/tool"));
    expect(resolveExecutable("tool", opts)).toEqual({
      resolvedPath: first,
      foundVia: "path",
      foundPath: first,
    });
  });

  it("skips a file that is not executable and a folder of the same name", async () => {
    await fs.mkdir(path.join(t.home, "a"), { recursive: true });
    await fs.writeFile(path.join(t.home, "a/tool"), "data", { mode: 0o644 });
    await fs.mkdir(path.join(t.home, "a/dir-tool"), { recursive: true });
    const b = await makeExecutable(path.join(t.home, "b/tool"));
    expect(resolveExecutable("tool", opts).resolvedPath).toBe(b);
    const missing = resolveExecutable("dir-tool", opts);
    expect(missing.resolvedPath).toBeNull();
    expect(missing.error).toContain("is not a regular file");
  });

  it("says why a non-executable file given by path does not resolve", async () => {
    await fs.writeFile(path.join(t.home, "cwd/script.sh"), "echo", { mode: 0o644 });
    expect(resolveExecutable("./script.sh", opts).error).toContain("is not executable");
  });

  it("resolves a word with a separator against the cwd, and an absolute path as it is", async () => {
    const local = await makeExecutable(path.join(t.home, "cwd/bin/tool"));
    expect(resolveExecutable("bin/tool", opts)).toMatchObject({ resolvedPath: local, foundVia: "relative" });
    expect(resolveExecutable("./bin/tool", opts)).toMatchObject({
      resolvedPath: local,
      foundVia: "relative",
    });
    expect(resolveExecutable(local, opts)).toMatchObject({ resolvedPath: local, foundVia: "absolute" });
  });

  it("expands ~ to the home folder", async () => {
    const tool = await makeExecutable(path.join(t.home, ".local/bin/tool"));
    expect(resolveExecutable("~/.local/bin/tool", opts)).toMatchObject({
      resolvedPath: tool,
      foundVia: "home",
    });
    expect(resolveExecutable("~other/bin/tool", opts).resolvedPath).toBeNull();
  });

  it("identifies an executable by its real path, symlinks resolved", async () => {
    const real = await makeExecutable(path.join(t.home, "opt/tool-2.0"));
    await fs.mkdir(path.join(t.home, "a"), { recursive: true });
    await fs.symlink(real, path.join(t.home, "a/tool"));
    expect(resolveExecutable("tool", opts)).toMatchObject({
      resolvedPath: real,
      foundPath: path.join(t.home, "a/tool"),
    });
  });

  it("treats an empty PATH element as the current folder, as shells do", async () => {
    const here = await makeExecutable(path.join(t.home, "cwd/tool"));
    expect(resolveExecutable("tool", { ...opts, pathEnv: `:${path.join(t.home, "a")}` })).toMatchObject({
      resolvedPath: here,
      foundVia: "path",
    });
  });

  it("reports a name that is nowhere on PATH", () => {
    expect(resolveExecutable("nosuch", opts)).toEqual({
      resolvedPath: null,
      foundVia: null,
      error: "nosuch was not found on PATH",
    });
  });

  it("an ExecutableResolver answers the same word the same way for the life of one explanation", async () => {
    const tool = await makeExecutable(path.join(t.home, "a/tool"));
    const resolver = new ExecutableResolver();
    expect(resolver.resolve("tool", opts).resolvedPath).toBe(tool);
    await fs.rm(tool);
    expect(resolver.resolve("tool", opts).resolvedPath).toBe(tool);
    expect(new ExecutableResolver().resolve("tool", opts).resolvedPath).toBeNull();
  });
});
