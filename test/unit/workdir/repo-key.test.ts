// workdir.md §10 repository keys, acceptance case 32.
import { describe, expect, it } from "vitest";
import { redactGitUrl, repoKeyFromInput, repoKeyFromUrl } from "../../../src/core/workdir/io/repo-key.js";

const noRealpath = () => null;

describe("repository keys", () => {
  it("32: credentials, port, case, trailing / and .git are removed from every URL form", () => {
    for (const url of [
      "https://x-token:abc@GitHub.com:443/Acme/Widget.git/",
      "ssh://git@github.com:22/acme/widget",
      "git@github.com:acme/widget.git",
      "https://github.com/Acme/widget.git",
      "http://github.com/acme/widget",
      "git://github.com/acme/widget.git",
      "ssh://github.com/acme/widget.git/",
      "git+ssh://git@github.com/acme/widget",
      "github.com:acme/widget",
    ]) {
      expect(repoKeyFromUrl(url), url).toEqual({ ok: true, key: "github.com/acme/widget" });
    }
  });

  it("32: anything else is not understood", () => {
    for (const url of [
      "not a url",
      "",
      "   ",
      "ftp://github.com/acme/widget",
      "https://github.com/",
      "https://github.com/acme/../widget",
      "https://github.com/acme/%2e%2e/widget",
      "git@github.com:acme/../widget",
      "relative/path",
      "https://x-token:abc@github.com:99999/acme/w",
      "git@github.com:",
    ]) {
      expect(repoKeyFromUrl(url), url).toEqual({ ok: false });
    }
  });

  it("keeps nested paths (GitLab groups)", () => {
    expect(repoKeyFromUrl("git@gitlab.example.com:Group/Sub/Repo.git")).toEqual({
      ok: true,
      key: "gitlab.example.com/group/sub/repo",
    });
  });

  it("gives local repositories a file: key with their real path", () => {
    const realpath = (p: string) => (p === "/home/a/link" ? "/data/repo" : null);
    expect(repoKeyFromUrl("/home/a/link", { realpath })).toEqual({ ok: true, key: "file:/data/repo" });
    expect(repoKeyFromUrl("file:///home/a/link", { realpath })).toEqual({ ok: true, key: "file:/data/repo" });
    expect(repoKeyFromUrl("/srv/git/x.git", { realpath: noRealpath })).toEqual({
      ok: true,
      key: "file:/srv/git/x.git",
    });
    expect(repoKeyFromUrl("/srv/work/x/.git", { realpath: noRealpath })).toEqual({
      ok: true,
      key: "file:/srv/work/x",
    });
    expect(repoKeyFromUrl("~/repos/x", { home: "/home/a", realpath: noRealpath })).toEqual({
      ok: true,
      key: "file:/home/a/repos/x",
    });
    expect(repoKeyFromUrl("../up", { baseDir: "/home/a/proj", realpath: noRealpath })).toEqual({
      ok: true,
      key: "file:/home/a/up",
    });
    expect(repoKeyFromUrl("../up", { realpath: noRealpath })).toEqual({ ok: false });
  });

  it("reads a Windows drive path as a local repository, not an scp host", () => {
    expect(repoKeyFromUrl("C:\\src\\widget", { platform: "win32", realpath: noRealpath })).toEqual({
      ok: true,
      key: "file:C:\\src\\widget",
    });
  });

  it("accepts a typed key as well as a URL where a person names a repository", () => {
    expect(repoKeyFromInput("github.com/Acme/widget")).toEqual({ ok: true, key: "github.com/acme/widget" });
    expect(repoKeyFromInput("git@github.com:acme/widget.git")).toEqual({
      ok: true,
      key: "github.com/acme/widget",
    });
    expect(repoKeyFromInput("file:/data/repo")).toEqual({ ok: true, key: "file:/data/repo" });
  });

  it("removes credentials from a URL shown in a message", () => {
    expect(redactGitUrl("https://x-token:abc@GitHub.com:443/Acme/Widget.git/")).toBe(
      "https://GitHub.com:443/Acme/Widget.git/",
    );
    expect(redactGitUrl("https://a@b:c@host/x")).toBe("https://host/x");
    expect(redactGitUrl("not a url")).toBe("not a url");
  });
});
