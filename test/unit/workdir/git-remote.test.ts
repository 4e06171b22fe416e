// workdir.md §10 remote check: the repository files are read, git is never run.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  parseGitConfigRemotes,
  parseHeadBranch,
  readGitInfo,
} from "../../../src/core/workdir/io/git-remote.js";

describe("git config parsing", () => {
  it("reads every remote's url, with quotes, comments, continuations and the old section form", () => {
    const config = [
      "[core]",
      "\tbare = false",
      '[remote "origin"]',
      "\turl = git@github.com:acme/widget.git ; a comment",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[Remote "Upstream"]',
      '\tURL = "https://github.com/up/widget.git" # another',
      "\turl = https://mirror.example.com/\\",
      "up/widget",
      "[remote.legacy]",
      "\turl=ssh://host/legacy",
      '[url "https://evil.example/"]',
      "\tinsteadOf = https://github.com/",
      '[branch "main"]',
      "\tremote = origin",
    ].join("\n");
    expect(parseGitConfigRemotes(config)).toEqual([
      { name: "origin", url: "git@github.com:acme/widget.git" },
      { name: "Upstream", url: "https://github.com/up/widget.git" },
      { name: "Upstream", url: "https://mirror.example.com/up/widget" },
      { name: "legacy", url: "ssh://host/legacy" },
    ]);
  });

  it("reads the branch from HEAD, and nothing from a detached HEAD", () => {
    expect(parseHeadBranch("ref: refs/heads/feature/x\n")).toBe("feature/x");
    expect(parseHeadBranch("3f2a9c0e\n")).toBeNull();
  });
});

describe("reading a repository folder", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-git-"));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("says a folder without .git has no repository", async () => {
    expect(await readGitInfo(dir)).toEqual({ hasGit: false });
  });

  it("follows a worktree's gitdir file and commondir to the shared config", async () => {
    const main = path.join(dir, "main");
    await fs.mkdir(path.join(main, ".git", "worktrees", "wt"), { recursive: true });
    await fs.writeFile(
      path.join(main, ".git", "config"),
      '[remote "origin"]\n\turl = git@github.com:acme/widget.git\n',
    );
    await fs.writeFile(path.join(main, ".git", "HEAD"), "ref: refs/heads/main\n");
    await fs.writeFile(path.join(main, ".git", "worktrees", "wt", "HEAD"), "ref: refs/heads/topic\n");
    await fs.writeFile(path.join(main, ".git", "worktrees", "wt", "commondir"), "../..\n");
    const wt = path.join(dir, "wt");
    await fs.mkdir(wt);
    await fs.writeFile(path.join(wt, ".git"), `gitdir: ${path.join(main, ".git", "worktrees", "wt")}\n`);
    const info = await readGitInfo(wt);
    expect(info).toMatchObject({
      hasGit: true,
      branch: "topic",
      remotes: [{ name: "origin", url: "git@github.com:acme/widget.git" }],
      error: null,
    });
  });

  it("resolves a relative gitdir (submodules) against the folder", async () => {
    await fs.mkdir(path.join(dir, ".git", "modules", "sub"), { recursive: true });
    await fs.writeFile(
      path.join(dir, ".git", "modules", "sub", "config"),
      '[remote "origin"]\n\turl = https://h/o/sub\n',
    );
    await fs.mkdir(path.join(dir, "sub"));
    await fs.writeFile(path.join(dir, "sub", ".git"), "gitdir: ../.git/modules/sub\n");
    const info = await readGitInfo(path.join(dir, "sub"));
    expect(info).toMatchObject({ hasGit: true, remotes: [{ url: "https://h/o/sub" }], branch: null });
  });

  it("reports a .git file without a gitdir line as unreadable (the check then fails closed)", async () => {
    await fs.writeFile(path.join(dir, ".git"), "garbage\n");
    const info = await readGitInfo(dir);
    expect(info).toMatchObject({ hasGit: true, remotes: [] });
    if (info.hasGit) expect(info.error).toContain("gitdir");
  });
});
