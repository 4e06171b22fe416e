// workdir.md §9 "Reuse on each turn" and "Changing the workdir closes the agent session":
// acceptance cases 17 and 25, driven the way the executor drives the service.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TaskWorkdir, TaskWorkdirRequest, WorkdirService } from "../../../src/core/workdir/index.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

/**
 * A fake agent runtime (a real Claude Code / Codex conversation cannot run here): it records the
 * order of session starts, resumes and closes, and holds the resume id tied to a session's folder.
 */
class FakeAgentRuntime {
  readonly calls: string[] = [];
  session: { cwd: string; resumeId: string } | null = null;
  private next = 1;

  start(cwd: string): void {
    this.session = { cwd, resumeId: `resume-${this.next++}` };
    this.calls.push(`start ${cwd}`);
  }

  resume(): void {
    this.calls.push(`resume ${this.session?.resumeId}`);
  }

  close(): void {
    this.calls.push(`close ${this.session?.cwd}`);
    this.session = null; // the resume id goes with it: it is tied to the old folder
  }
}

/** What the executor does with a turn: resolve (binding written), close on change, re-check, start. */
async function runTurn(
  service: WorkdirService,
  runtime: FakeAgentRuntime,
  request: Partial<TaskWorkdirRequest>,
): Promise<TaskWorkdir> {
  const result = await service.resolveForTask({ taskId: "t1", ...request });
  if (result.changed && runtime.session) runtime.close();
  const checked = await service.recheckBeforeSpawn(result.resolution);
  if (!checked.ok) throw new Error(`re-check refused: ${checked.code}`);
  if (runtime.session) runtime.resume();
  else runtime.start(checked.cwd);
  return result;
}

let fx: WorkdirFixture;
let service: WorkdirService;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
  service = await fx.service();
});
afterEach(async () => {
  await fx.cleanup();
});

describe("turns of one task", () => {
  it("25: a turn without a workdir reuses the binding; a new workdir closes the old session before the new one starts", async () => {
    const runtime = new FakeAgentRuntime();
    const foo = path.join(fx.H, "Projects", "foo");
    const bar = path.join(fx.H, "Projects", "bar");

    const t1 = await runTurn(service, runtime, { workdir: "~/Projects/foo" });
    expect(t1.changed).toBeNull();
    let bindings = await service.bindings();
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toMatchObject({
      task_id: "t1",
      device_id: "dev-1",
      policy: "existing",
      requested: "~/Projects/foo",
      cwd: foo,
      policy_applied: "existing",
      fallback: null,
      created_at: fx.clock.t,
      used_at: fx.clock.t,
    });
    const created = fx.clock.t;

    fx.clock.t += 60_000;
    const t2 = await runTurn(service, runtime, {});
    expect(t2.resolution.cwd).toBe(foo);
    expect(t2.changed).toBeNull();
    expect(t2.resolution.notices).toEqual([]);
    bindings = await service.bindings();
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toMatchObject({ cwd: foo, created_at: created, used_at: fx.clock.t });

    fx.clock.t += 60_000;
    const t3 = await runTurn(service, runtime, { workdir: "~/Projects/bar" });
    expect(t3.changed).toEqual({ from: foo, to: bar });
    expect(t3.resolution.notices).toEqual([
      'Working folder changed from "~/Projects/foo" to "~/Projects/bar"; starting a new agent session.',
    ]);
    expect(runtime.calls).toEqual([`start ${foo}`, "resume resume-1", `close ${foo}`, `start ${bar}`]);
    expect(runtime.session?.resumeId).toBe("resume-2");
    bindings = await service.bindings();
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toMatchObject({ requested: "~/Projects/bar", cwd: bar, created_at: fx.clock.t });
  });

  it("17: adding a root lets the next turn reuse the refused request; removing it sends the task back, with a close each time", async () => {
    const runtime = new FakeAgentRuntime();
    const managed = path.join(fx.W, "t1");
    const app = path.join(fx.H, "Work", "app");

    const t1 = await runTurn(service, runtime, { workdir: "~/Work/app" });
    expect(t1.resolution.fallback?.code).toBe("outside-allowed-roots");
    expect(t1.resolution.cwd).toBe(managed);

    expect((await service.addRoot("~/Work")).ok).toBe(true);
    const t2 = await runTurn(service, runtime, {});
    expect(t2.resolution).toMatchObject({ cwd: app, policyApplied: "existing", fallback: null });
    expect(t2.changed).toEqual({ from: managed, to: app });
    expect(t2.resolution.notices).toEqual([
      'Working folder changed from "~/.wegent-executor/workspace/t1" to "~/Work/app"; starting a new agent session.',
    ]);

    expect((await service.removeRoot("~/Work")).ok).toBe(true);
    const t3 = await runTurn(service, runtime, {});
    expect(t3.resolution.fallback?.code).toBe("outside-allowed-roots");
    expect(t3.resolution.cwd).toBe(managed);
    expect(t3.changed).toEqual({ from: app, to: managed });

    expect(runtime.calls).toEqual([
      `start ${managed}`,
      `close ${managed}`,
      `start ${app}`,
      `close ${app}`,
      `start ${managed}`,
    ]);
  });

  it("a settings root added by another process (the CLI) is picked up at the next turn", async () => {
    const other = await fx.service();
    expect((await other.addRoot("~/Work")).ok).toBe(true);
    const r = await service.resolveForTask({ taskId: "t1", workdir: "~/Work/app" });
    expect(r.resolution.cwd).toBe(path.join(fx.H, "Work", "app"));
  });

  it("a turn that names only git fields keeps the stored binding's policy", async () => {
    await service.addRepoBinding({
      repo: "github.com/acme/widget",
      branch: "main",
      dir: "~/Projects/widget",
    });
    await service.resolveForTask({
      taskId: "t1",
      policy: "repo_bound",
      gitUrl: "git@github.com:acme/widget.git",
      branch: "main",
    });
    const next = await service.resolveForTask({
      taskId: "t1",
      gitUrl: "git@github.com:acme/widget.git",
      branch: "main",
    });
    expect(next.resolution).toMatchObject({
      policyApplied: "repo_bound",
      cwd: path.join(fx.H, "Projects", "widget"),
    });
  });

  it("git credentials never reach the bindings file", async () => {
    await service.resolveForTask({
      taskId: "t1",
      policy: "repo_bound",
      gitUrl: "https://x-token:s3cret@github.com/acme/widget.git",
      branch: "main",
    });
    const text = await fs.readFile(fx.paths.workdirBindings, "utf8");
    expect(text).not.toContain("s3cret");
    expect(text).toContain("https://github.com/acme/widget.git");
  });

  it("removing a binding sends the next empty turn to the managed folder", async () => {
    await service.resolveForTask({ taskId: "t1", workdir: "~/Projects/foo" });
    expect(await service.removeBinding("t1")).toBe(true);
    expect(await service.removeBinding("t1")).toBe(false);
    const r = await service.resolveForTask({ taskId: "t1" });
    expect(r.resolution.cwd).toBe(path.join(fx.W, "t1"));
    expect(r.changed).toBeNull();
  });

  it("compares cwds with the root's case rule for the executor's live sessions", async () => {
    const foo = path.join(fx.H, "Projects", "foo");
    expect(service.isSameCwd(foo, `${foo}/`)).toBe(true);
    expect(service.isSameCwd(foo, path.join(fx.H, "Projects", "bar"))).toBe(false);
  });

  it("listeners hear about binding and root changes", async () => {
    const heard: string[] = [];
    const stop = service.onChange((change) => heard.push(change));
    await service.resolveForTask({ taskId: "t1" });
    await service.addRoot("~/Work");
    stop();
    await service.removeRoot("~/Work");
    expect(heard).toContain("bindings");
    expect(heard).toContain("roots");
    expect(heard.filter((c) => c === "roots")).toHaveLength(1);
  });
});
