// Where the paths of an agent's file access lie (executor/file-access.ts), on a real file system in a
// temp home: each path as its runtime opens it (trimmed, `~`, `..` collapsed as text), then links
// followed; protected folders and Gatehouse's own data recognised in either form; both forms must be
// inside the task's folder.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileAccessKind } from "../../../src/core/policy/file-edit.js";
import type { AgentRuntime } from "../../../src/core/workdir/runtime-path.js";
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
  await fs.mkdir(path.join(folder, "a", "a", "a", "a"), { recursive: true });
  await fs.symlink(path.join("a", "a", "a", "a"), path.join(folder, "deep"));
});
afterAll(() => t.cleanup());

async function where(
  given: string,
  access: FileAccessKind = "write",
  workdir = folder,
  runtime: AgentRuntime = "claude",
) {
  const [target] = await resolveFileTargets(
    { paths: [given], access, workdir, runtime },
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
  });

  it("both forms must be inside: a link from outside into the folder is outside by its name", async () => {
    expect(await where(path.join(t.home, "link-in", "x.ts"))).toMatchObject({
      where: "outside",
      resolved: path.join(folder, "src", "x.ts"),
    });
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

  it("`..` after a missing folder is collapsed as text, as both runtimes do", async () => {
    expect(await where("missing/../../8/x")).toMatchObject({
      where: "outside",
      resolved: path.join(t.paths.defaultWorkspaceRoot, "8", "x"),
    });
    expect(await where("missing/../src/x.ts", "write", folder, "codex")).toMatchObject({ where: "inside" });
  });

  it("a path whose meaning is unclear is unresolved: a control character, a dangling link", async () => {
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

  it("a path with characters outside the conservative set needs a person, even where it stays inside", async () => {
    expect(await where("src/a\u200bb.ts", "write", folder, "codex")).toMatchObject({
      where: "unresolved",
      resolved: path.join(folder, "src", "a\u200bb.ts"),
      detail: "it holds U+200B, a character paths do not need",
    });
    expect((await where("src/\u202etxt.exe", "read")).where).toBe("unresolved");
  });
});

describe("issue 27 class 1: paths judged as the runtime opens them", () => {
  it("Claude Code: a Write to `\u2003~/.zshenv` is the home folder's .zshenv (trimmed) and needs a person", async () => {
    expect(await where("\u2003~/.zshenv")).toMatchObject({
      where: "unresolved",
      resolved: path.join(t.home, ".zshenv"),
      detail: "it holds U+2003, a character paths do not need",
    });
    // The same path written plainly is outside the folder, as before.
    expect((await where("~/.zshenv")).where).toBe("outside");
  });

  it("Claude Code: a Read of `\u2003<E>/exec-approvals.json` is Gatehouse's own data, refused without a person", async () => {
    expect((await where(`\u2003${t.paths.approvals}`, "read")).where).toBe("gatehouse-data");
    expect((await where(`\ufeff ~/.wegent-executor/exec-approvals.json\n`, "read")).where).toBe(
      "gatehouse-data",
    );
  });

  it("`deep/../../..` through a link deep → a/a/a/a lands where the text says, not where links lead", async () => {
    // Codex and Claude Code collapse `..` as text: folder/deep/../../.. is E itself.
    expect((await where("deep/../../../exec-approvals.json", "read", folder, "codex")).where).toBe(
      "gatehouse-data",
    );
    expect(await where("deep/../../../../Outside/f", "write", folder, "codex")).toMatchObject({
      where: "outside",
      resolved: path.join(t.home, "Outside", "f"),
    });
    expect((await where(path.join(folder, "deep", "..", "..", "8", "f"))).where).toBe("outside");
    // Down the link, `..` stays inside.
    expect(await where("deep/../x.txt", "write", folder, "codex")).toMatchObject({
      where: "inside",
      resolved: path.join(folder, "x.txt"),
    });
  });

  it("Codex: `~` is a folder name, not the home folder", async () => {
    expect(await where("~/.ssh/id_rsa", "write", folder, "codex")).toMatchObject({
      where: "inside",
      resolved: path.join(folder, "~", ".ssh", "id_rsa"),
    });
  });

  it("relative paths are taken from the base the runtime uses (its cwd or the call's workdir)", async () => {
    const [inside, outside] = await resolveFileTargets(
      {
        paths: ["x.ts", "../../8/y"],
        access: "write",
        workdir: folder,
        runtime: "codex",
        base: path.join(folder, "src"),
      },
      fileGatePlaces(t.paths, t.env, t.paths.defaultWorkspaceRoot),
    );
    expect(inside).toMatchObject({ where: "inside", resolved: path.join(folder, "src", "x.ts") });
    expect(outside).toMatchObject({
      where: "outside",
      resolved: path.join(t.paths.defaultWorkspaceRoot, "8", "y"),
    });
    const [fromHome] = await resolveFileTargets(
      { paths: ["notes.txt"], access: "write", workdir: folder, runtime: "claude", base: t.home },
      fileGatePlaces(t.paths, t.env, t.paths.defaultWorkspaceRoot),
    );
    expect(fromHome).toMatchObject({ where: "outside", resolved: path.join(t.home, "notes.txt") });
  });

  it("a path Claude Code would expand differently a second time is unresolved", async () => {
    expect(await where(`${folder}/a\u2003/b/..`)).toMatchObject({ where: "unresolved", resolved: null });
  });

  it("look-alikes of the attacks stay plain: spaces, accents, other scripts, a name with `~` in it", async () => {
    for (const name of [
      "dir with spaces/f.txt",
      "café/ü.md",
      "cafe\u0301.txt",
      "日本語.txt",
      "a~b/c~1.txt",
      " lead.txt",
    ])
      expect(await where(name, "write", folder, "codex"), name).toMatchObject({ where: "inside" });
    for (const name of [
      "dir with spaces/f.txt",
      "café/ü.md",
      "日本語.txt",
      " src/x.ts ",
      path.join(folder, "src", "y.ts"),
    ])
      expect(await where(name), name).toMatchObject({ where: "inside" });
  });
});
