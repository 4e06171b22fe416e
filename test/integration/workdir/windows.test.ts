// workdir.md §12 cases 33–37, which only exist on Windows (reported as skipped elsewhere; their
// pure text rules are also unit-tested on every platform in test/unit/workdir).
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkdirService } from "../../../src/core/workdir/index.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

describe.skipIf(process.platform !== "win32")("Windows-only acceptance cases", () => {
  let fx: WorkdirFixture;
  let service: WorkdirService;
  beforeEach(async () => {
    fx = await makeWorkdirFixture();
    service = await fx.service();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("33: forward slashes, the \\\\?\\ prefix and any letter case give the same on-disk folder", async () => {
    const foo = await fs.realpath(path.join(fx.H, "Projects", "foo"));
    const spellings = [
      path.join(fx.H, "Projects", "foo").replace(/\\/g, "/"),
      `\\\\?\\${path.join(fx.H, "Projects", "foo")}`,
      path
        .join(fx.H, "projects", "FOO")
        .toLowerCase()
        .replace(/^[a-z]:/, (d) => d.toLowerCase()),
    ];
    for (const workdir of spellings) {
      const { resolution } = await service.resolveForTask({ taskId: "t1", workdir });
      expect(resolution.cwd, workdir).toBe(foo);
      expect(resolution.fallback, workdir).toBeNull();
    }
  });

  it("34: a junction into C:\\Windows\\System32 is a protected folder", async () => {
    const systemRoot = process.env.SystemRoot ?? "C:\\Windows";
    await fs.symlink(path.join(systemRoot, "System32"), path.join(fx.H, "Projects", "j"), "junction");
    const { resolution } = await service.resolveForTask({ taskId: "t1", workdir: "~\\Projects\\j" });
    expect(resolution.fallback?.code).toBe("sensitive-directory");
  });

  it("35: device paths, drive-relative and rooted paths, streams, reserved names and trailing dots are invalid", async () => {
    const projects = path.join(fx.H, "Projects");
    for (const workdir of [
      "C:foo",
      "\\foo",
      "\\\\.\\C:\\x",
      `${projects}\\foo:secret`,
      `${projects}\\CON`,
      `${projects}\\nul.txt`,
      `${path.join(fx.H, ".ssh")}.`,
    ]) {
      const { resolution } = await service.resolveForTask({ taskId: "t1", workdir });
      expect(resolution.fallback?.code, workdir).toBe("invalid-path");
    }
  });

  it("36: an 8.3 short name that resolves to Program Files is a protected folder", async () => {
    const { resolution } = await service.resolveForTask({ taskId: "t1", workdir: "C:\\PROGRA~1\\App" });
    expect(resolution.fallback?.code).toBe("sensitive-directory");
  });

  it("37: roots on a network share match whatever the case, siblings stay outside, admin shares are refused", async (context) => {
    const shared = path.join(fx.H, "share");
    await fs.mkdir(path.join(shared, "code", "app"), { recursive: true });
    await fs.mkdir(path.join(shared, "codex"), { recursive: true });
    try {
      execFileSync("net", ["share", `gh-test=${shared}`, "/grant:everyone,FULL"], { stdio: "ignore" });
    } catch {
      context.skip(); // creating a share needs an elevated prompt
      return;
    }
    try {
      expect((await service.addRoot("\\\\localhost\\gh-test\\code")).ok).toBe(true);
      const inside = await service.resolveForTask({
        taskId: "t1",
        workdir: "\\\\LOCALHOST\\GH-TEST\\code\\app",
      });
      expect(inside.resolution.fallback).toBeNull();
      expect(inside.resolution.cwd.toLowerCase()).toContain("code\\app");
      const sibling = await service.resolveForTask({
        taskId: "t2",
        workdir: "\\\\localhost\\gh-test\\codex",
      });
      expect(sibling.resolution.fallback?.code).toBe("outside-allowed-roots");
      expect(await service.addRoot("\\\\localhost\\C$\\code")).toEqual({
        ok: false,
        reason: "protected folder: a system folder",
      });
    } finally {
      execFileSync("net", ["share", "gh-test", "/delete", "/y"], { stdio: "ignore" });
    }
  });
});
