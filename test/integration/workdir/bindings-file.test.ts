// workdir.md §9 and acceptance case 38: E/workdir-bindings.json survives corruption, killed
// writers, expiry and the LRU cap.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readJsonFile } from "../../../src/core/store/index.js";
import { WorkdirBindingsFileSchema, type TaskBinding } from "../../../src/core/workdir/index.js";
import { REPO_ROOT } from "../../support/cli.js";
import { waitFor } from "../../support/wait-for.js";
import { makeWorkdirFixture, T0, type WorkdirFixture } from "./fixture.js";

let fx: WorkdirFixture;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function binding(taskId: string, usedAt: number, extra: Partial<TaskBinding> = {}): TaskBinding {
  return {
    task_id: taskId,
    device_id: "dev-1",
    policy: "managed",
    requested: null,
    git_url: null,
    branch: null,
    cwd: `/nowhere/${taskId}`,
    policy_applied: "managed",
    fallback: null,
    created_at: usedAt,
    used_at: usedAt,
    ...extra,
  };
}

async function writeBindings(tasks: TaskBinding[]): Promise<void> {
  await fs.mkdir(fx.E, { recursive: true, mode: 0o700 });
  await fs.writeFile(fx.paths.workdirBindings, JSON.stringify({ version: 1, tasks, repos: [] }), {
    mode: 0o600,
  });
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

describe("the bindings file", () => {
  it("38: a corrupt file is renamed aside, the app starts with no bindings and shows a warning", async () => {
    await fs.mkdir(fx.E, { recursive: true, mode: 0o700 });
    await fs.writeFile(fx.paths.workdirBindings, "{");
    const service = await fx.service();
    expect(await service.bindings()).toEqual([]);
    const aside = `${fx.paths.workdirBindings}.corrupt-${T0}`;
    expect(await fs.readFile(aside, "utf8")).toBe("{");
    expect(service.warnings().join("\n")).toContain("workdir-bindings.json.corrupt-");
    await service.resolveForTask({ taskId: "t1" });
    const reread = await readJsonFile(fx.paths.workdirBindings, WorkdirBindingsFileSchema);
    expect(reread.status).toBe("ok");
  });

  it("a file written by the app is 0600", async () => {
    const service = await fx.service();
    await service.resolveForTask({ taskId: "t1" });
    expect((await fs.stat(fx.paths.workdirBindings)).mode & 0o777).toBe(0o600);
  });

  it("38: a writer killed after writing its temp file leaves the old content, and its lock is taken over", async () => {
    await writeBindings([binding("old", T0)]);
    const before = await fs.readFile(fx.paths.workdirBindings, "utf8");
    const newText = JSON.stringify({ version: 1, tasks: [binding("new", T0)], repos: [] });
    await fs.writeFile(
      path.join(fx.E, ".workdir-bindings.json.gatehouse-0123456789ab"),
      newText.slice(0, 40),
    );
    await fs.writeFile(
      `${fx.paths.workdirBindings}.lock`,
      `${await deadPid()}\n${(await import("node:os")).hostname()}\n`,
    );
    const temp = path.join(fx.E, ".workdir-bindings.json.gatehouse-0123456789ab");
    const service = await fx.service();
    expect(await fs.readFile(fx.paths.workdirBindings, "utf8")).toBe(before);
    expect((await service.bindings()).map((b) => b.task_id)).toEqual(["old"]);
    await service.resolveForTask({ taskId: "t1" });
    expect((await service.bindings()).map((b) => b.task_id).sort()).toEqual(["old", "t1"]);
    // The write took the lock every writer holds: a temp file found then is a killed writer's (issue 30).
    expect(await exists(temp)).toBe(false);
    // Start-up, which writes nothing, keeps a fresh one (it may be a live writer's) and removes an old one.
    await fs.writeFile(temp, newText.slice(0, 40));
    await fx.service();
    expect(await exists(temp)).toBe(true);
    fx.clock.t = Date.now() + 11 * 60 * 1000;
    await fx.service();
    expect(await exists(temp)).toBe(false);
  });

  it(
    "38: writers SIGKILLed in the middle of a write loop leave the old or the new content, never a partial file",
    { timeout: 300_000 },
    async () => {
      const moduleUrl = pathToFileURL(path.join(REPO_ROOT, "dist/src/core/workdir/io/bindings.js")).href;
      const script = `
      const { BindingsStore } = await import(process.env.BINDINGS_MODULE);
      const quiet = { debug() {}, info() {}, warn() {}, error() {}, addSecret() {}, child() { return quiet; } };
      const store = new BindingsStore(process.env.BINDINGS_FILE, { now: () => Date.now(), logger: quiet });
      for (let i = 1; ; i += 1) {
        const task = { task_id: "t" + i, device_id: "d", policy: "existing", requested: "x".repeat(20000 + (i % 7) * 30000),
          git_url: null, branch: null, cwd: "/c" + i, policy_applied: "existing", fallback: null, created_at: i, used_at: i };
        try {
          await store.update((current) => ({ value: { ...current, tasks: [task] }, result: undefined }));
        } catch (error) {
          // A writer killed between creating its lock and writing its pid leaves an ownerless lock
          // that is only broken once it is 30 s old: keep trying, as the app would on its next turn.
          if (error.name === "LockTimeoutError") { i -= 1; continue; }
          throw error;
        }
        process.stdout.write(i + "\\n");
      }`;
      await fs.mkdir(fx.E, { recursive: true, mode: 0o700 });
      for (const stopAfter of [3, 11, 17, 29, 40]) {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
          env: { ...process.env, BINDINGS_MODULE: moduleUrl, BINDINGS_FILE: fx.paths.workdirBindings },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
        const exited = new Promise((resolve) => child.on("exit", resolve));
        await waitFor(() => out.split("\n").filter(Boolean).length >= stopAfter, {
          what: `${stopAfter} writes`,
          timeoutMs: 90_000,
        });
        child.kill("SIGKILL");
        await exited;
        const lastReported = Math.max(...out.split("\n").filter(Boolean).map(Number));
        const read = await readJsonFile(fx.paths.workdirBindings, WorkdirBindingsFileSchema);
        if (read.status !== "ok")
          throw new Error(`partial or invalid file after SIGKILL: ${JSON.stringify(read)}`);
        const [task] = read.value.tasks;
        const i = task!.used_at;
        expect(i === lastReported || i === lastReported + 1).toBe(true);
        expect(task).toMatchObject({ task_id: `t${i}`, cwd: `/c${i}` });
        expect(task!.requested).toHaveLength(20000 + (i % 7) * 30000);
      }
      const service = await fx.service();
      // An ownerless lock left by the last kill is broken after 30 s (src/core/store/file-lock.ts).
      await waitFor(() => service.resolveForTask({ taskId: "after" }).then(() => true), {
        timeoutMs: 90_000,
        what: "a write after the killed writers",
      });
      expect((await service.bindings()).map((b) => b.task_id)).toContain("after");
    },
  );

  it("bindings unused for 90 days are dropped at start-up", async () => {
    const day = 24 * 60 * 60 * 1000;
    await writeBindings([binding("stale", T0 - 91 * day), binding("recent", T0 - 89 * day)]);
    const service = await fx.service();
    expect((await service.bindings()).map((b) => b.task_id)).toEqual(["recent"]);
  });

  it("at most 10,000 task bindings are kept, the least recently used go first", async () => {
    await writeBindings(Array.from({ length: 10_000 }, (_, i) => binding(`k${i}`, T0 - 10_000 + i)));
    const service = await fx.service();
    await service.resolveForTask({ taskId: "newest" });
    const ids = (await service.bindings()).map((b) => b.task_id);
    expect(ids).toHaveLength(10_000);
    expect(ids[0]).toBe("newest");
    expect(ids).not.toContain("k0");
    expect(ids).toContain("k1");
  });

  it("one binding per (task, device): a second device gets its own, the same device replaces", async () => {
    const a = await fx.service();
    const b = await fx.service({ deviceId: "dev-2" });
    await a.resolveForTask({ taskId: "t1", workdir: "~/Projects/foo" });
    await a.resolveForTask({ taskId: "t1", workdir: "~/Projects/bar" });
    await b.resolveForTask({ taskId: "t1" });
    const rows = (await a.bindings()).map((x) => [x.device_id, x.requested]).sort();
    expect(rows).toEqual([
      ["dev-1", "~/Projects/bar"],
      ["dev-2", null],
    ]);
  });
});
