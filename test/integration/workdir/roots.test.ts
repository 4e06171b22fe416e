// workdir.md §2: where W comes from and when it is refused, settings roots re-checked at every
// load, merging by real path, and the case-insensitivity probe.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

let fx: WorkdirFixture;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe("the workspace root W", () => {
  it("comes from LOCAL_WORKSPACE_ROOT, is created 0700, and takes relative requests", async () => {
    const service = await fx.service({ env: { LOCAL_WORKSPACE_ROOT: "~/ws" } });
    expect(service.workspaceRoot).toBe(path.join(fx.H, "ws"));
    expect((await fs.stat(path.join(fx.H, "ws"))).mode & 0o777).toBe(0o700);
    const { resolution } = await service.resolveForTask({ taskId: "t1", projectWorkspacePath: "acme" });
    expect(resolution.cwd).toBe(path.join(fx.H, "ws", "acme"));
    const managed = await service.resolveForTask({ taskId: "t2" });
    expect(managed.resolution.cwd).toBe(path.join(fx.H, "ws", "t2"));
  });

  it("else comes from local_workspace_root in E/device-config.json", async () => {
    await fs.mkdir(fx.E, { recursive: true });
    await fs.writeFile(
      fx.paths.deviceConfig,
      JSON.stringify({ device_id: "dev-9", local_workspace_root: "~/cfg-ws" }),
    );
    const service = await fx.service();
    expect(service.workspaceRoot).toBe(path.join(fx.H, "cfg-ws"));
  });

  it("a protected LOCAL_WORKSPACE_ROOT is refused: E/workspace is used and the reason is shown", async () => {
    const service = await fx.service({ env: { LOCAL_WORKSPACE_ROOT: "~/.ssh/ws" } });
    expect(service.workspaceRoot).toBe(fx.W);
    expect(service.warnings()).toContain(
      "LOCAL_WORKSPACE_ROOT refused: protected folder: a credentials folder",
    );
    expect((await service.roots())[0]).toMatchObject({
      source: "workspace",
      realpath: fx.W,
      reason: "LOCAL_WORKSPACE_ROOT refused: protected folder: a credentials folder",
    });
    expect(await fs.stat(path.join(fx.H, ".ssh", "ws")).catch(() => null)).toBeNull();
  });

  it("a LOCAL_WORKSPACE_ROOT that cannot be created is refused", async () => {
    const service = await fx.service({ env: { LOCAL_WORKSPACE_ROOT: "~/Projects/notes.txt/ws" } });
    expect(service.workspaceRoot).toBe(fx.W);
    expect(service.warnings()[0]).toMatch(/^LOCAL_WORKSPACE_ROOT refused: /);
  });

  it("W equal to E is refused: it would hand agents Gatehouse's own data", async () => {
    const service = await fx.service({ env: { LOCAL_WORKSPACE_ROOT: "~/.wegent-executor" } });
    expect(service.workspaceRoot).toBe(fx.W);
    expect(service.warnings()).toContain(
      "LOCAL_WORKSPACE_ROOT refused: protected folder: Gatehouse's own data",
    );
  });

  it("with W outside E, all of E is protected", async () => {
    const service = await fx.service({ env: { LOCAL_WORKSPACE_ROOT: "~/ws" } });
    const r = await service.resolveForTask({ taskId: "t1", workdir: "~/.wegent-executor/workspace/x" });
    expect(r.resolution.fallback?.code).toBe("sensitive-directory");
  });
});

describe("settings and env roots", () => {
  it("a settings root that has become invalid stays in the settings but is inactive, with its reason", async () => {
    const service = await fx.service();
    expect((await service.addRoot("~/Work")).ok).toBe(true);
    await fs.rm(path.join(fx.H, "Work"), { recursive: true });
    const work = (await service.roots()).find((r) => r.source === "settings");
    expect(work).toMatchObject({ given: "~/Work", status: "refused", reason: "does not exist" });
    const settings = JSON.parse(await fs.readFile(fx.paths.settings, "utf8")) as {
      workdir: { roots: string[] };
    };
    expect(settings.workdir.roots).toEqual(["~/Work"]);
  });

  it("roots that share a real path are merged", async () => {
    await fs.mkdir(fx.E, { recursive: true });
    await fs.symlink(path.join(fx.H, "Projects"), path.join(fx.H, "Projects-link"));
    await fs.writeFile(
      fx.paths.settings,
      JSON.stringify({ version: 1, workdir: { roots: ["~/Projects-link"] } }),
    );
    const service = await fx.service();
    const roots = await service.roots();
    expect(roots.map((r) => [r.source, r.status, r.reason])).toEqual([
      ["workspace", "active", null],
      ["env", "active", null],
      ["settings", "merged", "same folder as ~/Projects"],
    ]);
  });

  it("an invalid settings file leaves the settings roots unused, with a warning, and is not overwritten", async () => {
    await fs.mkdir(fx.E, { recursive: true });
    await fs.writeFile(fx.paths.settings, "{ not json");
    const service = await fx.service();
    expect(service.warnings().join("\n")).toContain("settings.json is invalid");
    const added = await service.addRoot("~/Work");
    expect(added.ok).toBe(false);
    expect(await fs.readFile(fx.paths.settings, "utf8")).toBe("{ not json");
  });

  it.skipIf(process.platform === "darwin" || process.platform === "win32")(
    "the case probe finds a case-sensitive file system case-sensitive",
    async () => {
      const service = await fx.service();
      expect((await service.roots()).map((r) => r.case_insensitive)).toEqual([false, false]);
    },
  );

  it("a settings root whose folder is a link to a protected folder is refused on its real path", async () => {
    const service = await fx.service();
    await fs.symlink(path.join(fx.H, ".ssh"), path.join(fx.H, "innocent"));
    expect(await service.addRoot("~/innocent")).toEqual({
      ok: false,
      reason: "protected folder: a credentials folder",
    });
  });
});

describe.skipIf(process.platform === "win32" || process.getuid?.() === 0)("access (step 8)", () => {
  it("a folder Gatehouse may not open is unreadable", async () => {
    const service = await fx.service();
    const locked = path.join(fx.H, "Projects", "locked");
    await fs.mkdir(path.join(locked, "sub"), { recursive: true });
    await fs.chmod(locked, 0o000);
    try {
      const a = await service.resolveForTask({ taskId: "t1", workdir: "~/Projects/locked" });
      expect(a.resolution.fallback?.code).toBe("unreadable");
      const b = await service.resolveForTask({ taskId: "t2", workdir: "~/Projects/locked/sub" });
      expect(b.resolution.fallback?.code).toBe("unreadable");
    } finally {
      await fs.chmod(locked, 0o700);
    }
  });
});
