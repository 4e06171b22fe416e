// workdir.md §12 cases that only exist on macOS (reported as skipped elsewhere).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkdirService } from "../../../src/core/workdir/index.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

describe.skipIf(process.platform !== "darwin")("macOS-only acceptance cases", () => {
  let fx: WorkdirFixture;
  let service: WorkdirService;
  beforeEach(async () => {
    fx = await makeWorkdirFixture();
    service = await fx.service();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("14: the firmlink form under /System/Volumes/Data is refused as a system folder", async () => {
    const real = await fs.realpath(path.join(fx.H, "Projects", "foo"));
    const { resolution } = await service.resolveForTask({
      taskId: "t1",
      workdir: `/System/Volumes/Data${real}`,
    });
    expect(resolution.fallback?.code).toBe("sensitive-directory");
    expect(resolution.cwd).toBe(path.join(fx.W, "t1"));
  });

  it("15 (macOS): on a case-insensitive volume the wrong letter case resolves to the on-disk folder", async () => {
    const projects = (await service.roots()).find((r) => r.source === "env");
    const { resolution } = await service.resolveForTask({ taskId: "t1", workdir: "~/projects/FOO" });
    if (projects?.case_insensitive) {
      expect(resolution).toMatchObject({
        cwd: path.join(fx.H, "Projects", "foo"),
        policyApplied: "existing",
      });
    } else {
      expect(resolution.fallback?.code).toBe("outside-allowed-roots");
    }
  });
});
