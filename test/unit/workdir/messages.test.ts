// workdir.md §7 message templates and the `~` display.
import { describe, expect, it } from "vitest";
import {
  branchNotice,
  changedNotice,
  fallbackMessage,
  fatalMessage,
  sanitiseForMessage,
  shownPath,
  tildify,
} from "../../../src/core/workdir/messages.js";

const M = "~/.wegent-executor/workspace/t1";

describe("the ~ display", () => {
  it("writes the home part of an absolute path as ~, keeping the rest as received", () => {
    expect(tildify("/home/a/Projects/foo", "/home/a", "linux")).toBe("~/Projects/foo");
    expect(tildify("/home/a", "/home/a", "linux")).toBe("~");
    expect(tildify("/home/a/../b", "/home/a", "linux")).toBe("~/../b");
    expect(tildify("/home/ab/x", "/home/a", "linux")).toBe("/home/ab/x");
    expect(tildify("/home/A/x", "/home/a", "linux")).toBe("/home/A/x");
    expect(tildify("projects/acme", "/home/a", "linux")).toBe("projects/acme");
    expect(tildify("/x", "/", "linux")).toBe("/x");
  });

  it("ignores case and accepts both separators on Windows", () => {
    expect(tildify("c:\\users\\alice\\Projects\\foo", "C:\\Users\\alice", "win32")).toBe("~\\Projects\\foo");
    expect(tildify("C:/Users/alice/Projects/foo", "C:\\Users\\alice", "win32")).toBe("~/Projects/foo");
  });

  it("escapes control characters and cuts very long paths", () => {
    expect(sanitiseForMessage("a\u0000b\nc")).toBe("a\\u0000b\\u000ac");
    expect(shownPath("x".repeat(1000), "/h", "linux")).toHaveLength(301);
  });
});

describe("fallback messages", () => {
  const parts = { shown: "~/p", managed: M };
  const problems: Record<string, string> = {
    "invalid-path": "it is not a valid path on this device",
    "symlink-escape": "it leads through a link to a place outside the allowed folders",
    "sensitive-directory": "it is a protected folder",
    "missing-directory": "it does not exist on this device",
    "not-a-directory": "it is not a folder",
    unreadable: "Gatehouse is not allowed to open it",
    "changed-before-start": "it changed just before the agent started and is no longer allowed",
  };
  for (const [code, problem] of Object.entries(problems)) {
    it(`${code} uses the template with its problem`, () => {
      expect(fallbackMessage(code as never, parts)).toBe(
        `Working folder "~/p" can't be used: ${problem}. Using the managed folder "${M}" instead.`,
      );
    });
  }

  it("outside-allowed-roots ends with the hint", () => {
    expect(fallbackMessage("outside-allowed-roots", parts)).toBe(
      `Working folder "~/p" can't be used: it is not inside an allowed folder. Using the managed folder "${M}" instead. Add it under Workdirs in Gatehouse to allow it.`,
    );
  });

  it("repo-remote-mismatch names the repository key", () => {
    expect(fallbackMessage("repo-remote-mismatch", { ...parts, repoKey: "github.com/acme/widget" })).toBe(
      `Working folder "~/p" can't be used: its git remotes do not include github.com/acme/widget. Using the managed folder "${M}" instead.`,
    );
  });

  it("unknown-policy, invalid-repo and repo-binding-missing have their own full messages", () => {
    expect(fallbackMessage("unknown-policy", { ...parts, policy: "yolo" })).toBe(
      `Working folder policy "yolo" is not supported. Using the managed folder "${M}" instead.`,
    );
    expect(fallbackMessage("invalid-repo", { ...parts, url: "not a url" })).toBe(
      `Git URL "not a url" is not understood. Using the managed folder "${M}" instead.`,
    );
    expect(
      fallbackMessage("repo-binding-missing", { ...parts, repoKey: "github.com/acme/other", branch: "main" }),
    ).toBe(
      `No folder on this device is linked to github.com/acme/other (main). Using the managed folder "${M}" instead. Link one under Workdirs → Repositories in Gatehouse.`,
    );
  });

  it("notices and the fatal error text", () => {
    expect(branchNotice("github.com/acme/widget", "dev", "main")).toBe(
      "The folder linked to github.com/acme/widget is on branch dev, not main; Gatehouse does not switch branches.",
    );
    expect(changedNotice("~/Projects/foo", "~/Projects/bar")).toBe(
      'Working folder changed from "~/Projects/foo" to "~/Projects/bar"; starting a new agent session.',
    );
    expect(fatalMessage("invalid-task-id")).toBe("Working folder error: invalid-task-id.");
  });
});
