// `gatehouse workdir …` through the real built CLI (bin/gatehouse.js), on the §12 fixture.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, type CliResult } from "../../support/cli.js";
import { CASE_18_REFUSALS, makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

let fx: WorkdirFixture;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

const cli = (...args: string[]) => runCli(["workdir", ...args], { env: fx.env });

/** stdout as JSON, or a failure that shows what the command said on stderr. */
function jsonOf<T = unknown>(result: CliResult): T {
  try {
    return result.json<T>();
  } catch {
    throw new Error(`exit ${result.code}, stdout ${JSON.stringify(result.stdout)}, stderr ${result.stderr}`);
  }
}

describe("gatehouse workdir resolve", () => {
  it("prints the §6 resolution and records the binding like a real turn", async () => {
    const result = await cli(
      "resolve",
      "--task",
      "t1",
      "--device",
      "dev-1",
      "--path",
      "~/Projects/link-in",
      "--json",
    );
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({
      cwd: path.join(fx.H, "Projects", "foo"),
      policyRequested: "existing",
      policyApplied: "existing",
      requested: "~/Projects/link-in",
      root: path.join(fx.H, "Projects"),
      created: false,
      fallback: null,
      notices: [],
      taskId: "t1",
    });
    const file = JSON.parse(await fs.readFile(fx.paths.workdirBindings, "utf8")) as { tasks: unknown[] };
    expect(file.tasks).toEqual([
      expect.objectContaining({ task_id: "t1", device_id: "dev-1", cwd: path.join(fx.H, "Projects", "foo") }),
    ]);
  });

  it("exits 0 for a fallback, which is a value", async () => {
    const result = await cli("resolve", "--task", "t1", "--path", "~/Projects/link-out", "--json");
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({
      cwd: path.join(fx.W, "t1"),
      fallback: { code: "symlink-escape" },
    });
  });

  it("exits 1 for a fatal workdir error and 2 for a usage error", async () => {
    const fatal = await cli("resolve", "--task", "../t");
    expect(fatal.code).toBe(1);
    expect(fatal.stderr).toContain("Working folder error: invalid-task-id.");
    expect((await cli("resolve")).code).toBe(2);
    expect((await cli("resolve", "--task", "t1", "--bogus")).code).toBe(2);
    expect((await cli("nonsense")).code).toBe(2);
    expect((await cli()).code).toBe(2);
  });

  it("takes the device id from E/device-config.json, else local", async () => {
    await cli("resolve", "--task", "a", "--json");
    await fs.writeFile(
      fx.paths.deviceConfig,
      JSON.stringify({ device_id: "device-abc", local_workspace_root: "" }),
    );
    await cli("resolve", "--task", "b", "--json");
    const list = jsonOf<Array<{ task_id: string; device_id: string }>>(await cli("bindings", "--json"));
    expect(list.map((b) => [b.task_id, b.device_id]).sort()).toEqual([
      ["a", "local"],
      ["b", "device-abc"],
    ]);
  });

  it("resolves repo_bound requests from the command line", async () => {
    expect((await cli("repos", "add", "--dir", "~/Projects/widget")).code).toBe(0);
    const result = await cli(
      "resolve",
      "--task",
      "t1",
      "--policy",
      "repo_bound",
      "--repo",
      "https://github.com/Acme/widget.git",
      "--branch",
      "main",
      "--json",
    );
    expect(jsonOf(result)).toMatchObject({
      cwd: path.join(fx.H, "Projects", "widget"),
      policyApplied: "repo_bound",
    });
  });

  it("prints a readable summary without --json", async () => {
    const result = await cli("resolve", "--task", "t1", "--path", "~/Projects/missing");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`cwd:     ${path.join(fx.W, "t1")}`);
    expect(result.stdout).toContain(
      'fallback (missing-directory): Working folder "~/Projects/missing" can\'t be used',
    );
  });
});

describe("gatehouse workdir check", () => {
  it("39: a link out of the roots shows the symlink escape with its resolved form", async () => {
    const result = await cli("check", "~/Projects/link-out", "--json");
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({
      ok: false,
      code: "symlink-escape",
      lexical: path.join(fx.H, "Projects", "link-out"),
      resolved: path.join(fx.H, "Outside"),
      root: null,
      would_create: false,
    });
    expect(Object.keys(jsonOf(result) as object).sort()).toEqual(
      ["code", "lexical", "message", "ok", "resolved", "root", "would_create"].sort(),
    );
  });

  it("says a missing folder in W would be created, and creates nothing", async () => {
    const result = await cli("check", "projects/new", "--json");
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({
      ok: true,
      code: null,
      resolved: path.join(fx.W, "projects", "new"),
      root: fx.W,
      would_create: true,
    });
    expect(await fs.stat(path.join(fx.W, "projects")).catch(() => null)).toBeNull();
  });

  it("uses the task's managed folder in the message with --task", async () => {
    const result = await cli("check", "~/Projects-evil/x", "--task", "t1", "--json");
    expect(jsonOf(result)).toMatchObject({
      code: "outside-allowed-roots",
      message:
        'Working folder "~/Projects-evil/x" can\'t be used: it is not inside an allowed folder. Using the managed folder "~/.wegent-executor/workspace/t1" instead. Add it under Workdirs in Gatehouse to allow it.',
    });
  });

  it("prints the message and forms without --json", async () => {
    const result = await cli("check", "~/Projects/foo");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`resolved: ${path.join(fx.H, "Projects", "foo")}`);
  });
});

describe("gatehouse workdir roots", () => {
  it("18: refuses each bad root with the design's text and saves only the accepted one", async () => {
    const refusals = CASE_18_REFUSALS;
    const results = await Promise.all(refusals.map(([given]) => cli("roots", "add", given, "--json")));
    results.forEach((result, i) => {
      const [given, reason] = refusals[i]!;
      expect(result.code, given).toBe(1);
      expect(jsonOf(result), given).toEqual({ ok: false, reason });
      expect(result.stderr).toContain(reason);
    });
    expect(await fs.stat(fx.paths.settings).catch(() => null)).toBeNull();
    const accepted = await cli("roots", "add", "~/Work");
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain("~/Work");
    const settings = JSON.parse(await fs.readFile(fx.paths.settings, "utf8")) as {
      workdir: { roots: string[] };
    };
    expect(settings.workdir.roots).toEqual(["~/Work"]);
    const roots = jsonOf<Array<{ source: string; realpath: string; status: string }>>(
      await cli("roots", "--json"),
    );
    expect(roots.map((r) => [r.source, r.realpath, r.status])).toEqual([
      ["workspace", fx.W, "active"],
      ["env", path.join(fx.H, "Projects"), "active"],
      ["settings", path.join(fx.H, "Work"), "active"],
    ]);
  });

  it("removes settings roots but not W or env roots", async () => {
    const added = await cli("roots", "add", "~/Work");
    expect(added.code, added.stderr).toBe(0);
    const removed = await cli("roots", "remove", path.join(fx.H, "Work"));
    expect(removed.code, removed.stderr).toBe(0);
    const env = await cli("roots", "remove", "~/Projects");
    expect(env.code).toBe(1);
    expect(env.stderr).toContain("LOCAL_WORKDIR_ALLOWED_ROOTS");
    const w = await cli("roots", "remove", fx.W);
    expect(w.code).toBe(1);
    expect(w.stderr).toContain("the workspace root cannot be removed");
  });

  it("keeps the user's other settings when it writes the file", async () => {
    await fs.mkdir(fx.E, { recursive: true });
    await fs.writeFile(fx.paths.settings, JSON.stringify({ version: 1, ui: { theme: "dark" }, custom: 1 }));
    expect((await cli("roots", "add", "~/Work")).code).toBe(0);
    expect(JSON.parse(await fs.readFile(fx.paths.settings, "utf8"))).toEqual({
      version: 1,
      ui: { theme: "dark" },
      custom: 1,
      workdir: { roots: ["~/Work"] },
    });
  });
});

describe("gatehouse workdir bindings and repos", () => {
  it("lists and removes task bindings", async () => {
    await cli("resolve", "--task", "t1", "--device", "dev-1");
    const listed = await cli("bindings");
    expect(listed.stdout).toContain(`t1 on dev-1: ${path.join(fx.W, "t1")} [managed]`);
    expect(jsonOf(await cli("bindings", "remove", "--task", "t1", "--device", "dev-1", "--json"))).toEqual({
      removed: true,
    });
    expect(jsonOf(await cli("bindings", "--json"))).toEqual([]);
    expect((await cli("bindings", "remove", "--task", "t1")).code).toBe(1);
  });

  it("links a folder, proposing the key and branch from its remotes and HEAD, and unlinks it", async () => {
    const added = await cli("repos", "add", "--dir", "~/Projects/widget", "--json");
    expect(added.code).toBe(0);
    expect(jsonOf(added)).toMatchObject({
      ok: true,
      binding: {
        repo: "github.com/acme/widget",
        branch: "main",
        dir: path.join(fx.H, "Projects", "widget"),
        origin: "settings",
      },
    });
    const star = await cli("repos", "add", "--dir", "~/Projects/widget", "--branch", "*");
    expect(star.code).toBe(0);
    const wrong = await cli("repos", "add", "--dir", "~/Projects/widget", "--repo", "github.com/evil/widget");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("its git remotes do not include github.com/evil/widget");
    const outside = await cli("repos", "add", "--dir", "~/Outside", "--repo", "github.com/acme/x");
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("it is not inside an allowed folder");
    const list = await cli("repos");
    expect(list.stdout).toContain(
      `github.com/acme/widget (main) → ${path.join(fx.H, "Projects", "widget")} [settings]`,
    );
    expect(
      (await cli("repos", "remove", "--repo", "git@github.com:acme/widget.git", "--branch", "main")).code,
    ).toBe(0);
    expect(jsonOf(await cli("repos", "--json"))).toEqual([expect.objectContaining({ branch: "*" })]);
    expect((await cli("repos", "remove", "--repo", "github.com/acme/widget")).code).toBe(2);
  });
});
