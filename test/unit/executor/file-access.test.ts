// Where the paths of an agent's file access lie (executor/file-access.ts), on a real file system in a
// temp home: links followed, `..` taken the way the OS takes it, protected folders and Gatehouse's own
// data recognised in either form.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileAccessKind } from "../../../src/core/policy/file-edit.js";
import { fileGatePlaces, resolveFileTargets } from "../../../src/executor/file-access.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let folder: string;
beforeAll(async () => {
  t = await makeTempHome("gh-file-access-");
  folder = path.join(t.paths.defaultWorkspaceRoot, "7");
  await fs.mkdir(path.join(folder, "src"), { recursive: true });
  await fs.mkdir(path.join(t.home, "Outside"), { recursive: true });
  await fs.mkdir(path.join(t.home, ".ssh"), { recursive: true });
  await fs.mkdir(path.join(t.paths.defaultWorkspaceRoot, "8"), { recursive: true });
  await fs.writeFile(t.paths.approvals, "{}");
  await fs.symlink(path.join(t.home, "Outside"), path.join(folder, "link-out"));
  await fs.symlink(path.join(folder, "src"), path.join(t.home, "link-in"));
  await fs.symlink(path.join(t.home, ".ssh"), path.join(folder, "keys"));
  await fs.symlink(path.join(t.home, ".profile-new"), path.join(folder, "dangling"));
});
afterAll(() => t.cleanup());

async function where(given: string, access: FileAccessKind = "write", workdir = folder) {
  const [target] = await resolveFileTargets(
    { paths: [given], access, workdir },
    fileGatePlaces(t.paths, t.env, t.paths.defaultWorkspaceRoot),
  );
  return target!;
}

describe("resolveFileTargets", () => {
  it("a file in the task's folder, relative or absolute, existing or not, is inside", async () => {
    expect(await where("src/new.ts")).toMatchObject({
      where: "inside",
      resolved: path.join(folder, "src/new.ts"),
    });
    expect((await where(path.join(folder, "a", "b", "c.txt"))).where).toBe("inside");
    expect((await where(path.join(t.home, "link-in", "x.ts"))).where).toBe("inside"); // a link into the folder
  });

  it("`..` out of the folder, a link out of it and another task's folder are outside", async () => {
    expect(await where("../8/x.txt")).toMatchObject({
      where: "outside",
      resolved: path.join(t.paths.defaultWorkspaceRoot, "8", "x.txt"),
    });
    expect(await where("link-out/x.txt")).toMatchObject({
      where: "outside",
      resolved: path.join(t.home, "Outside", "x.txt"),
    });
    expect((await where("~/.bashrc")).where).toBe("outside");
  });

  it("credentials folders are protected, also reached through a link inside the folder", async () => {
    expect(await where("~/.ssh/id_rsa", "read")).toMatchObject({
      where: "protected",
      detail: "a credentials folder",
    });
    expect(await where("keys/id_rsa", "read")).toMatchObject({
      where: "protected",
      detail: "a credentials folder",
    });
  });

  it("Gatehouse's own data is recognised, but the workspace inside it is not", async () => {
    expect((await where(t.paths.approvals, "read")).where).toBe("gatehouse-data");
    expect((await where("../../exec-approvals.json", "read")).where).toBe("gatehouse-data");
    expect((await where(path.join(t.paths.runtimeDir, "7", "mcp.json"), "read")).where).toBe(
      "gatehouse-data",
    );
    expect((await where(path.join(t.paths.defaultWorkspaceRoot, "8", "x"), "read")).where).toBe("outside");
  });

  it("git internals and agent settings in the folder are sensitive to write, not to read", async () => {
    expect(await where(".git/hooks/pre-commit")).toMatchObject({ where: "sensitive-inside", detail: ".git" });
    expect(await where("sub/.CLAUDE/settings.json")).toMatchObject({
      where: "sensitive-inside",
      detail: ".CLAUDE",
    });
    expect((await where(".codex/config.toml")).where).toBe("sensitive-inside");
    expect((await where(".git/config", "read")).where).toBe("inside");
    expect((await where(".gitignore")).where).toBe("inside");
  });

  it("a path whose meaning is unclear is unresolved: `..` after a missing folder, a control character", async () => {
    expect(await where("missing/../../8/x")).toMatchObject({ where: "unresolved", resolved: null });
    expect((await where("bad\u0007name")).where).toBe("unresolved");
    // Writing through a link to a missing file would create that file outside the folder.
    expect(await where("dangling")).toMatchObject({
      where: "unresolved",
      detail: "a link to a place that does not exist",
    });
  });

  it("a task folder that is the home folder or missing makes nothing inside", async () => {
    expect((await where(path.join(t.home, "Outside", "x"), "write", t.home)).where).toBe("outside");
    expect((await where("x", "write", path.join(t.home, "gone"))).where).toBe("outside");
  });
});
