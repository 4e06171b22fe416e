// workdir.md §1 inputs and §9 binding rules as pure functions.
import { describe, expect, it } from "vitest";
import {
  findRepoBinding,
  pruneTaskBindings,
  upsertTaskBinding,
  type RepoBinding,
  type TaskBinding,
} from "../../../src/core/workdir/io/bindings.js";
import { defaultPolicy, requestFields, validTaskId } from "../../../src/core/workdir/io/resolver.js";
import { effectiveRequest } from "../../../src/core/workdir/io/service.js";

function task(id: string, usedAt: number, device = "d1", extra: Partial<TaskBinding> = {}): TaskBinding {
  return {
    task_id: id,
    device_id: device,
    policy: "existing",
    requested: "~/Projects/foo",
    git_url: null,
    branch: null,
    cwd: "/c",
    policy_applied: "existing",
    fallback: null,
    created_at: usedAt,
    used_at: usedAt,
    ...extra,
  };
}

describe("task ids (§1)", () => {
  it("accepts 1–128 letters, digits, _ and -, and numbers as strings", () => {
    expect(validTaskId("t1")).toBe("t1");
    expect(validTaskId(123)).toBe("123");
    expect(validTaskId("a_b-C")).toBe("a_b-C");
    expect(validTaskId("x".repeat(128))).toBe("x".repeat(128));
  });

  it("refuses paths, blanks, 0, negative integers and everything else", () => {
    for (const bad of [
      "../t",
      "",
      " t",
      "t/1",
      "x".repeat(129),
      "0",
      "00",
      "-1",
      "-42",
      0,
      -7,
      1.5,
      null,
      {},
      "t\u0000",
    ]) {
      expect(validTaskId(bad), String(bad)).toBeNull();
    }
  });
});

describe("request fields (§1)", () => {
  it("prefers workdir over project_workspace_path and treats blanks as absent", () => {
    expect(requestFields({ workdir: " ~/a ", projectWorkspacePath: "b" })).toMatchObject({
      requested: "~/a",
    });
    expect(requestFields({ workdir: "  ", projectWorkspacePath: "b" })).toMatchObject({ requested: "b" });
    expect(requestFields({ policy: " ", gitUrl: "", branch: null })).toEqual({
      requested: null,
      policy: null,
      gitUrl: null,
      branch: null,
    });
  });

  it("reads a request that names a workdir without a policy as existing", () => {
    expect(defaultPolicy({ requested: "x", policy: null, gitUrl: null, branch: null })).toBe("existing");
    expect(defaultPolicy({ requested: null, policy: null, gitUrl: null, branch: null })).toBe("managed");
    expect(defaultPolicy({ requested: "x", policy: "managed", gitUrl: null, branch: null })).toBe("managed");
  });
});

describe("reuse on each turn (§9)", () => {
  const stored = task("t1", 1, "d1", {
    policy: "repo_bound",
    requested: null,
    git_url: "https://h/o/r",
    branch: "main",
  });

  it("a turn naming nothing reuses the stored request", () => {
    expect(effectiveRequest({ requested: null, policy: null, gitUrl: null, branch: null }, stored)).toEqual({
      requested: null,
      policy: "repo_bound",
      gitUrl: "https://h/o/r",
      branch: "main",
    });
  });

  it("a turn naming only git fields takes the stored policy", () => {
    expect(
      effectiveRequest({ requested: null, policy: null, gitUrl: "https://h/o/r", branch: "dev" }, stored),
    ).toMatchObject({
      policy: "repo_bound",
      branch: "dev",
    });
  });

  it("a turn naming a workdir is existing; with nothing stored and nothing named it is managed", () => {
    expect(
      effectiveRequest({ requested: "~/x", policy: null, gitUrl: null, branch: null }, stored).policy,
    ).toBe("existing");
    expect(
      effectiveRequest({ requested: null, policy: null, gitUrl: null, branch: null }, undefined).policy,
    ).toBe("managed");
  });

  it("keeps one binding per (task, device)", () => {
    const tasks = upsertTaskBinding(
      [task("t1", 1, "d1"), task("t1", 1, "d2")],
      task("t1", 5, "d1", { cwd: "/new" }),
    );
    expect(tasks.map((t) => [t.device_id, t.cwd])).toEqual([
      ["d2", "/c"],
      ["d1", "/new"],
    ]);
  });

  it("drops bindings older than the age limit and keeps the most recently used under the cap", () => {
    const tasks = [task("a", 10), task("b", 50), task("c", 30), task("d", 40)];
    expect(pruneTaskBindings(tasks, { now: 100, maxAgeMs: 60 }).map((t) => t.task_id)).toEqual(["b", "d"]);
    expect(pruneTaskBindings(tasks, { now: 100, cap: 2 }).map((t) => t.task_id)).toEqual(["b", "d"]);
    expect(pruneTaskBindings(tasks, { now: 100 })).toHaveLength(4);
  });
});

describe("repo binding lookup (§5, §10)", () => {
  const repos: RepoBinding[] = [
    { repo: "h/o/r", branch: "main", dir: "/main", origin: "settings", created_at: 0 },
    { repo: "h/o/r", branch: "*", dir: "/any", origin: "settings", created_at: 0 },
  ];

  it("prefers the exact branch, then *; a missing branch matches only *", () => {
    expect(findRepoBinding(repos, "h/o/r", "main")?.dir).toBe("/main");
    expect(findRepoBinding(repos, "h/o/r", "dev")?.dir).toBe("/any");
    expect(findRepoBinding(repos, "h/o/r", null)?.dir).toBe("/any");
    expect(findRepoBinding(repos.slice(0, 1), "h/o/r", null)).toBeUndefined();
    expect(findRepoBinding(repos, "h/o/other", "main")).toBeUndefined();
  });
});
