// workdir.md §12 acceptance examples 1–31 on the POSIX fixture (macOS- and Windows-only cases are
// in their own files and report themselves skipped elsewhere).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
  TaskWorkdirRequest,
  WorkdirResolution,
  WorkdirService,
} from "../../../src/core/workdir/index.js";
import { WorkdirFatal } from "../../../src/core/workdir/index.js";
import { CASE_18_REFUSALS, makeWorkdirFixture, writeWidgetRepo, type WorkdirFixture } from "./fixture.js";

const M = "~/.wegent-executor/workspace/t1";
let fx: WorkdirFixture;
let service: WorkdirService;

beforeEach(async () => {
  fx = await makeWorkdirFixture();
  service = await fx.service();
});
afterEach(async () => {
  await fx.cleanup();
});

async function turn(request: Partial<TaskWorkdirRequest> = {}): Promise<WorkdirResolution> {
  return (await service.resolveForTask({ taskId: "t1", ...request })).resolution;
}

function h(...parts: string[]): string {
  return path.join(fx.H, ...parts);
}

function expectFallback(r: WorkdirResolution, code: string): void {
  expect(r.fallback?.code).toBe(code);
  expect(r.cwd).toBe(path.join(fx.W, "t1"));
  expect(r.policyApplied).toBe("managed");
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

describe("workdir.md §12 on POSIX", () => {
  it("1: with nothing requested the task works in its managed folder, created 0700", async () => {
    const r = await turn();
    expect(r).toMatchObject({
      cwd: path.join(fx.W, "t1"),
      policyApplied: "managed",
      fallback: null,
      created: true,
    });
    expect((await fs.stat(r.cwd)).mode & 0o777).toBe(0o700);
    expect((await fs.stat(fx.W)).mode & 0o777).toBe(0o700);
  });

  it("2: a workdir inside an allowed root is used as it is", async () => {
    const r = await turn({ workdir: "~/Projects/foo" });
    expect(r).toMatchObject({
      cwd: h("Projects", "foo"),
      policyApplied: "existing",
      fallback: null,
      root: h("Projects"),
    });
  });

  it("3: a relative project_workspace_path without a policy lands in W and is created", async () => {
    const r = await turn({ projectWorkspacePath: "projects/acme" });
    expect(r).toMatchObject({
      cwd: path.join(fx.W, "projects", "acme"),
      policyRequested: "existing",
      policyApplied: "existing",
      created: true,
      fallback: null,
    });
    expect((await fs.stat(path.join(fx.W, "projects"))).mode & 0o777).toBe(0o700);
  });

  it("4: a link that stays inside the root resolves to its real folder", async () => {
    expect((await turn({ workdir: "~/Projects/link-in" })).cwd).toBe(h("Projects", "foo"));
  });

  it("5: a link out of the root is a symlink escape whose message does not say where it leads", async () => {
    const r = await turn({ workdir: "~/Projects/link-out" });
    expectFallback(r, "symlink-escape");
    expect(r.fallback?.message).toBe(
      `Working folder "~/Projects/link-out" can't be used: it leads through a link to a place outside the allowed folders. Using the managed folder "${M}" instead.`,
    );
    expect(r.fallback?.message).not.toContain("Outside");
  });

  it("6: a link to ~/.ssh is refused as a protected folder (found on the resolved form)", async () => {
    expectFallback(await turn({ workdir: "~/Projects/link-ssh" }), "sensitive-directory");
  });

  it("7: `..` up to ~/.ssh is refused as a protected folder (found on the text form)", async () => {
    expectFallback(await turn({ workdir: "~/Projects/../.ssh" }), "sensitive-directory");
  });

  it("8: `..` out of the root is outside the allowed roots, with the hint", async () => {
    const r = await turn({ workdir: "~/Projects/foo/../../Outside" });
    expectFallback(r, "outside-allowed-roots");
    expect(r.fallback?.message).toBe(
      `Working folder "~/Projects/foo/../../Outside" can't be used: it is not inside an allowed folder. Using the managed folder "${M}" instead. Add it under Workdirs in Gatehouse to allow it.`,
    );
  });

  it("9: a sibling that shares the root's prefix is not inside the root", async () => {
    expectFallback(await turn({ workdir: "~/Projects-evil/x" }), "outside-allowed-roots");
  });

  it("10: a missing folder in a user root is refused and not created", async () => {
    expectFallback(await turn({ workdir: "~/Projects/missing" }), "missing-directory");
    expect(await exists(h("Projects", "missing"))).toBe(false);
  });

  it("11: a file, and a path below a file, are not folders", async () => {
    expectFallback(await turn({ workdir: "~/Projects/notes.txt" }), "not-a-directory");
    expectFallback(await turn({ workdir: "~/Projects/notes.txt/sub" }), "not-a-directory");
  });

  it("12: `..` through a missing folder up to ~/.ssh is refused on the text form", async () => {
    expectFallback(await turn({ workdir: "~/Projects/new/../../.ssh" }), "sensitive-directory");
    expect(await exists(h("Projects", "new"))).toBe(false);
  });

  it("13: `..` after a missing folder is an invalid path on POSIX", async () => {
    expectFallback(await turn({ workdir: "~/Projects/new/../../Outside" }), "invalid-path");
  });

  it.skipIf(process.platform === "darwin" || process.platform === "win32")(
    "15 (Linux): a path in the wrong letter case is outside the allowed roots",
    async () => {
      expectFallback(await turn({ workdir: "~/projects/FOO" }), "outside-allowed-roots");
    },
  );

  it("16: ~/.SSH is protected whatever the letter case", async () => {
    expectFallback(await turn({ workdir: "~/.SSH" }), "sensitive-directory");
  });

  it("18: roots the user adds are checked in order and refused with the design's texts", async () => {
    const expected: Array<readonly [string, string | null]> = [...CASE_18_REFUSALS, ["~/Work", null]];
    expect(await exists(h(".aws"))).toBe(false);
    for (const [given, reason] of expected) {
      const result = await service.addRoot(given);
      if (reason === null) expect(result.ok, given).toBe(true);
      else expect(result, given).toEqual({ ok: false, reason });
    }
    const settings = JSON.parse(await fs.readFile(fx.paths.settings, "utf8")) as {
      workdir: { roots: string[] };
    };
    expect(settings.workdir.roots).toEqual(["~/Work"]);
    const active = (await service.roots()).filter((r) => r.status === "active").map((r) => r.realpath);
    expect(active).toEqual([fx.W, h("Projects"), h("Work")]);
  });

  it("19: E is protected except W; relative paths cannot climb out of W into E", async () => {
    expectFallback(await turn({ workdir: "~/.wegent-executor/capabilities" }), "sensitive-directory");
    const shared = await turn({ workdir: "~/.wegent-executor/workspace/shared" });
    expect(shared).toMatchObject({ cwd: path.join(fx.W, "shared"), created: true, fallback: null });
    expectFallback(await turn({ workdir: "../capabilities" }), "sensitive-directory");
  });

  it("20: `~name`, a NUL byte and a blank workdir", async () => {
    expectFallback(await turn({ workdir: "~bob/x" }), "invalid-path");
    expectFallback(await turn({ workdir: "~/Projects/foo\u0000x" }), "invalid-path");
    // A fresh task: on t1 a blank turn would reuse the stored request (§9).
    const blank = (await service.resolveForTask({ taskId: "t20", workdir: "   " })).resolution;
    expect(blank).toMatchObject({ cwd: path.join(fx.W, "t20"), policyApplied: "managed", fallback: null });
  });

  it("21: an unknown policy falls back with its own message", async () => {
    const r = await turn({ policy: "yolo", workdir: "~/Projects/foo" });
    expectFallback(r, "unknown-policy");
    expect(r.policyRequested).toBe("yolo");
    expect(r.fallback?.message).toBe(
      `Working folder policy "yolo" is not supported. Using the managed folder "${M}" instead.`,
    );
  });

  it("22: a task id with a path in it is fatal and creates nothing", async () => {
    const before = await fs.readdir(fx.W);
    const error = await service.resolveForTask({ taskId: "../t" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkdirFatal);
    expect((error as WorkdirFatal).code).toBe("invalid-task-id");
    expect((error as WorkdirFatal).message).toBe("Working folder error: invalid-task-id.");
    expect(await fs.readdir(fx.W)).toEqual(before);
    expect(await exists(path.join(fx.E, "t"))).toBe(false);
    for (const bad of ["0", "-3", "", "a b", "x".repeat(129), 0, -1]) {
      await expect(service.resolveForTask({ taskId: bad })).rejects.toMatchObject({
        code: "invalid-task-id",
      });
    }
    expect((await service.resolveForTask({ taskId: 42 })).resolution.cwd).toBe(path.join(fx.W, "42"));
  });

  it("23: a managed folder that is a link is fatal", async () => {
    await fs.symlink(h("Outside"), path.join(fx.W, "t9"));
    await expect(service.resolveForTask({ taskId: "t9" })).rejects.toMatchObject({
      code: "managed-unavailable",
      message: "Working folder error: managed-unavailable.",
    });
  });

  it("24: LOCAL_WORKDIR_ALLOWED_ROOTS items are trimmed, blanks dropped, and bad ones refused with warnings", async () => {
    const s = await fx.service({
      env: { LOCAL_WORKDIR_ALLOWED_ROOTS: " ~/Projects , ,/does/not/exist,relative/dir,~/.ssh" },
    });
    const roots = await s.roots();
    expect(roots.filter((r) => r.status === "active").map((r) => r.realpath)).toEqual([fx.W, h("Projects")]);
    expect(roots.filter((r) => r.status === "refused").map((r) => [r.given, r.reason])).toEqual([
      ["/does/not/exist", "does not exist"],
      ["relative/dir", "not an absolute path"],
      ["~/.ssh", "protected folder: a credentials folder"],
    ]);
    const warnings = s.warnings().join("\n");
    expect(warnings).toContain("does not exist");
    expect(warnings).toContain("not an absolute path");
    expect(warnings).toContain("protected folder: a credentials folder");
    expect(fx.logs.join("\n")).toContain(
      'LOCAL_WORKDIR_ALLOWED_ROOTS item "/does/not/exist" refused: does not exist',
    );
  });

  it("26: a binding stored for another device is ignored", async () => {
    const other = await fx.service({ deviceId: "dev-2" });
    await other.resolveForTask({ taskId: "t1", workdir: "~/Projects/foo" });
    const r = await turn();
    expect(r).toMatchObject({ cwd: path.join(fx.W, "t1"), policyApplied: "managed", fallback: null });
    const bindings = await service.bindings();
    expect(bindings.map((b) => [b.device_id, b.cwd]).sort()).toEqual([
      ["dev-1", path.join(fx.W, "t1")],
      ["dev-2", h("Projects", "foo")],
    ]);
  });

  it("27: a folder replaced by a link before the spawn is re-checked and the run moves to the managed folder", async () => {
    const r = await turn({ workdir: "~/Projects/foo" });
    expect(r.cwd).toBe(h("Projects", "foo"));
    await fs.rm(h("Projects", "foo"), { recursive: true });
    await fs.symlink(h("Outside"), h("Projects", "foo"));
    const again = await service.recheckBeforeSpawn(r);
    expect(again.ok).toBe(false);
    if (again.ok || again.code !== "changed-before-start") throw new Error("expected changed-before-start");
    expect(again.fallback.cwd).toBe(path.join(fx.W, "t1"));
    expect(again.message).toBe(
      `Working folder "~/Projects/foo" can't be used: it changed just before the agent started and is no longer allowed. Using the managed folder "${M}" instead.`,
    );
    expect((await service.bindings())[0]).toMatchObject({
      cwd: path.join(fx.W, "t1"),
      policy_applied: "managed",
    });
  });
});

describe("workdir.md §12 repo bindings (28–31)", () => {
  beforeEach(async () => {
    const added = await service.addRepoBinding({
      repo: "github.com/acme/widget",
      branch: "main",
      dir: "~/Projects/widget",
    });
    expect(added.ok).toBe(true);
  });

  it("28: a repo_bound request finds the linked folder whatever the URL form and letter case", async () => {
    const r = await turn({
      policy: "repo_bound",
      gitUrl: "https://github.com/Acme/widget.git",
      branch: "main",
    });
    expect(r).toMatchObject({
      cwd: h("Projects", "widget"),
      policyApplied: "repo_bound",
      fallback: null,
      notices: [],
    });
  });

  it("29: a folder whose remotes no longer include the repository is refused", async () => {
    await writeWidgetRepo(h("Projects", "widget"), "git@github.com:evil/widget.git");
    const r = await turn({
      policy: "repo_bound",
      gitUrl: "https://github.com/Acme/widget.git",
      branch: "main",
    });
    expectFallback(r, "repo-remote-mismatch");
    expect(r.fallback?.message).toBe(
      `Working folder "~/Projects/widget" can't be used: its git remotes do not include github.com/acme/widget. Using the managed folder "${M}" instead.`,
    );
  });

  it("30: a folder on another branch is used, with a notice and no branch switch", async () => {
    await writeWidgetRepo(h("Projects", "widget"), "git@github.com:acme/widget.git", "dev");
    const r = await turn({
      policy: "repo_bound",
      gitUrl: "https://github.com/Acme/widget.git",
      branch: "main",
    });
    expect(r.cwd).toBe(h("Projects", "widget"));
    expect(r.notices).toEqual([
      "The folder linked to github.com/acme/widget is on branch dev, not main; Gatehouse does not switch branches.",
    ]);
    expect(await fs.readFile(h("Projects", "widget", ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/dev\n");
  });

  it("31: a repository with no linked folder falls back with the linking hint", async () => {
    const r = await turn({ policy: "repo_bound", gitUrl: "git@github.com:acme/other.git", branch: "main" });
    expectFallback(r, "repo-binding-missing");
    expect(r.fallback?.message).toBe(
      `No folder on this device is linked to github.com/acme/other (main). Using the managed folder "${M}" instead. Link one under Workdirs → Repositories in Gatehouse.`,
    );
  });

  it("a repo_bound request naming a checked workdir teaches a repo binding", async () => {
    await writeWidgetRepo(h("Projects", "bar"), "https://github.com/acme/bar");
    const r = await turn({
      policy: "repo_bound",
      workdir: "~/Projects/bar",
      gitUrl: "git@github.com:acme/bar.git",
      branch: "main",
    });
    expect(r).toMatchObject({ cwd: h("Projects", "bar"), policyApplied: "repo_bound" });
    expect(await service.repoBindings()).toContainEqual(
      expect.objectContaining({
        repo: "github.com/acme/bar",
        branch: "main",
        dir: h("Projects", "bar"),
        origin: "learned",
      }),
    );
  });

  it("a branch-less request matches only a `*` binding", async () => {
    const none = await turn({ policy: "repo_bound", gitUrl: "https://github.com/acme/widget" });
    expectFallback(none, "repo-binding-missing");
    expect(none.fallback?.message).toContain("github.com/acme/widget (*)");
    await service.addRepoBinding({ repo: "github.com/acme/widget", branch: "*", dir: "~/Projects/widget" });
    expect((await turn({ policy: "repo_bound", gitUrl: "https://github.com/acme/widget" })).cwd).toBe(
      h("Projects", "widget"),
    );
  });

  it("an unparseable git URL falls back without showing credentials", async () => {
    const r = await turn({ policy: "repo_bound", gitUrl: "https://x-token:abc@github.com:99999/acme/w" });
    expectFallback(r, "invalid-repo");
    expect(r.fallback?.message).toBe(
      `Git URL "https://github.com:99999/acme/w" is not understood. Using the managed folder "${M}" instead.`,
    );
    expect(r.fallback?.message).not.toContain("abc");
  });
});
