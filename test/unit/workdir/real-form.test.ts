// The per-request cost of a requested path (issue 18): the real form of a long path is found with a
// number of realpath calls that grows with the logarithm of its length, never one call per prefix,
// and what it finds is exactly what resolving every prefix from the longest down finds.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkRequestedPath,
  MAX_REQUESTED_PATH_CHARS,
  resolveRealForm,
  type ActiveRoot,
  type PathContext,
} from "../../../src/core/workdir/io/path-check.js";
import { joinComponents, pathComponents } from "../../../src/core/workdir/platform-path.js";
import { buildProtectedFolders } from "../../../src/core/workdir/io/protected-folders.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

/** The real fs.realpath, counted. */
function countingRealpath() {
  const calls: string[] = [];
  return {
    calls,
    realpath: (p: string) => {
      calls.push(p);
      return fs.realpath(p);
    },
  };
}

/** What the old algorithm computed: realpath of every prefix, longest first, until one resolves. */
async function prefixByPrefix(start: string): Promise<{ existing: string; missing: string[] }> {
  const comps = pathComponents(start, "linux");
  for (let n = comps.length; n >= 1; n--) {
    try {
      const real = await fs.realpath(joinComponents(comps.slice(0, n), "linux"));
      return { existing: real, missing: comps.slice(n) };
    } catch {
      continue;
    }
  }
  throw new Error("no root");
}

let t: TempHome;
let w: string;
beforeAll(async () => {
  t = await makeTempHome("gatehouse-realform-");
  w = path.join(t.home, "W");
  await fs.mkdir(path.join(w, "a", "b", "c"), { recursive: true });
  await fs.writeFile(path.join(w, "a", "file"), "x");
  await fs.mkdir(path.join(t.home, "elsewhere", "d"), { recursive: true });
  await fs.symlink(path.join(t.home, "elsewhere"), path.join(w, "a", "link"));
  await fs.symlink(path.join(w, "loop2"), path.join(w, "loop1"));
  await fs.symlink(path.join(w, "loop1"), path.join(w, "loop2"));
});
afterAll(() => t.cleanup());

describe("the real form of a requested path", () => {
  it("a path of 2 000 missing folders costs a dozen realpath calls, not 2 000", async () => {
    const start = path.join(w, ...Array.from({ length: 2000 }, () => "y"));
    const counter = countingRealpath();
    const real = await resolveRealForm(start, "linux", counter.realpath);
    expect(real.existing).toBe(w);
    expect(real.missing).toHaveLength(2000);
    expect(real.problem).toBeNull();
    const bound = Math.ceil(Math.log2(pathComponents(start, "linux").length)) + 2;
    expect(counter.calls.length).toBeLessThanOrEqual(bound);
  });

  it("a path that exists costs exactly one realpath call", async () => {
    const counter = countingRealpath();
    const real = await resolveRealForm(path.join(w, "a", "b", "c"), "linux", counter.realpath);
    expect(real).toMatchObject({ existing: path.join(w, "a", "b", "c"), missing: [], problem: null });
    expect(counter.calls).toHaveLength(1);
  });

  it("finds the same existing prefix as resolving every prefix would, links and files included", async () => {
    const cases = [
      path.join(w, "a", "b", "missing", "deeper"),
      path.join(w, "a", "link", "d", "new", "x"),
      path.join(w, "a", "link", "nope"),
      path.join(w, "a", "file", "under-a-file"),
      `${w}/a/b/../b/c/new`, // path.join would collapse the `..`
      `${w}/a/link/../a/b`,
      path.join(t.home, "elsewhere", "d"),
    ];
    for (const start of cases) {
      const real = await resolveRealForm(start, "linux");
      const reference = await prefixByPrefix(start);
      expect({ start, existing: real.existing, missing: real.missing }).toEqual({ start, ...reference });
    }
  });

  it("a link that escapes through the missing rest still resolves to where it leads", async () => {
    const real = await resolveRealForm(path.join(w, "a", "link", "d", "new"), "linux");
    expect(real.resolved).toBe(path.join(t.home, "elsewhere", "d", "new"));
  });

  it("a link loop is an invalid path", async () => {
    const real = await resolveRealForm(path.join(w, "loop1", "x"), "linux");
    expect(real.problem).toMatchObject({ code: "invalid-path", reason: "ELOOP" });
  });

  it("`..` after a missing folder is refused", async () => {
    const real = await resolveRealForm(`${w}/a/new/../b`, "linux");
    expect(real.problem?.code).toBe("invalid-path");
  });
});

describe("a requested path from the backend", () => {
  async function context(realpath: PathContext["realpath"]): Promise<PathContext> {
    const workspace: ActiveRoot = { source: "workspace", given: w, realpath: w, caseInsensitive: false };
    const protect = await buildProtectedFolders({
      home: t.home,
      executorHome: path.join(t.home, ".wegent-executor"),
      claudeHome: path.join(t.home, ".claude"),
      codexHome: path.join(t.home, ".codex"),
      env: {},
      platform: "linux",
      workspace: [w],
    });
    return {
      platform: "linux",
      home: t.home,
      workspace,
      roots: [workspace],
      protect,
      ...(realpath && { realpath }),
    };
  }

  it("a cwd of 30 000 `y/` segments is refused as too long before the file system is touched", async () => {
    const counter = countingRealpath();
    const raw = "y/".repeat(30_000);
    const check = await checkRequestedPath(raw, await context(counter.realpath), { create: false });
    expect(check).toMatchObject({
      ok: false,
      code: "invalid-path",
      reason: `longer than ${MAX_REQUESTED_PATH_CHARS} characters`,
    });
    expect(counter.calls).toHaveLength(0);
  });

  it("the longest accepted cwd of missing folders is checked with a bounded number of realpath calls", async () => {
    const counter = countingRealpath();
    const raw = "y/".repeat(MAX_REQUESTED_PATH_CHARS / 2);
    const check = await checkRequestedPath(raw, await context(counter.realpath), { create: false });
    expect(check).toMatchObject({ ok: true, wouldCreate: true });
    expect(counter.calls.length).toBeLessThanOrEqual(16);
  });
});
