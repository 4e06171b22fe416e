// Command cwds (device-protocol.md §6.5, exec-policy.md "Running"): a given cwd is a requested
// workdir under `existing`; an empty one is the session's bound workdir, else W.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkdirService } from "../../../src/core/workdir/index.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

let fx: WorkdirFixture;
let service: WorkdirService;
beforeEach(async () => {
  fx = await makeWorkdirFixture();
  service = await fx.service();
});
afterEach(async () => {
  await fx.cleanup();
});

describe("resolveForSession", () => {
  it("a given cwd inside a root is used", async () => {
    const r = await service.resolveForSession("device", "~/Projects/link-in");
    expect(r).toMatchObject({
      cwd: path.join(fx.H, "Projects", "foo"),
      fallback: null,
      policyApplied: "existing",
    });
  });

  it("a refused cwd falls back to W with the fallback message", async () => {
    const r = await service.resolveForSession("device", "~/Projects/link-out");
    expect(r.cwd).toBe(fx.W);
    expect(r.fallback).toEqual({
      code: "symlink-escape",
      message:
        'Working folder "~/Projects/link-out" can\'t be used: it leads through a link to a place outside the allowed folders. Using the managed folder "~/.wegent-executor/workspace" instead.',
    });
  });

  it("a missing cwd is reported as missing and never created, even inside W", async () => {
    expect((await service.resolveForSession("device", "~/Projects/missing")).fallback?.code).toBe(
      "missing-directory",
    );
    const inW = await service.resolveForSession("device", "scratch");
    expect(inW.fallback?.code).toBe("missing-directory");
    expect(await fs.stat(path.join(fx.W, "scratch")).catch(() => null)).toBeNull();
  });

  it("an empty cwd in a task session is the task's bound workdir", async () => {
    await service.resolveForTask({ taskId: "7", workdir: "~/Projects/bar" });
    const r = await service.resolveForSession("task:7");
    expect(r).toMatchObject({ cwd: path.join(fx.H, "Projects", "bar"), fallback: null });
  });

  it("an empty cwd without a binding is W", async () => {
    expect((await service.resolveForSession("task:8")).cwd).toBe(fx.W);
    expect((await service.resolveForSession("device", "  ")).cwd).toBe(fx.W);
  });

  it("a bound workdir that no longer passes the checks falls back to W", async () => {
    await service.resolveForTask({ taskId: "7", workdir: "~/Projects/bar" });
    await fs.rm(path.join(fx.H, "Projects", "bar"), { recursive: true });
    await fs.symlink(path.join(fx.H, "Outside"), path.join(fx.H, "Projects", "bar"));
    const r = await service.resolveForSession("task:7");
    expect(r.cwd).toBe(fx.W);
    expect(r.fallback?.code).toBe("changed-before-start");
  });

  it("a session resolution passes its own re-check", async () => {
    const r = await service.resolveForSession("device", "~/Projects/foo");
    expect(await service.recheckBeforeSpawn(r)).toEqual({
      ok: true,
      cwd: path.join(fx.H, "Projects", "foo"),
    });
    const w = await service.resolveForSession("device");
    expect(await service.recheckBeforeSpawn(w)).toEqual({ ok: true, cwd: fx.W });
  });
});
