// What a recursive delete would delete, in the person's words (issue 32): the affected folder is named,
// and the whole computer, a system folder, every home and a whole home folder are wide.
import { describe, expect, it } from "vitest";
import { deleteTargetOf } from "../../../src/core/policy/delete-targets.js";

const ctx = { home: "/home/ada", cwd: "/home/ada/src/app" };

describe("deleteTargetOf", () => {
  it.each([
    ["~", "your whole home folder (/home/ada)"],
    ["~/", "your whole home folder (/home/ada)"],
    ["$HOME", "your whole home folder (/home/ada)"],
    ['"$HOME"', "your whole home folder (/home/ada)"],
    ["${HOME}/", "your whole home folder (/home/ada)"],
    ["/home/ada", "your whole home folder (/home/ada)"],
    ["../..", "your whole home folder (/home/ada)"],
    ["~/*", "everything in your whole home folder (/home/ada)"],
    ['"$HOME"/*', "everything in your whole home folder (/home/ada)"],
    ["/", "every file on this computer (/)"],
    ["/*", "every file on this computer (/*)"],
    ["/etc", "the system folder /etc"],
    ["/usr/", "the system folder /usr"],
    ["/home", "every user's home folder (/home)"],
    ["/Users/bob", "the whole home folder of bob"],
  ])("a shell's %s is wide: %s", (word, words) => {
    expect(deleteTargetOf(word, ctx, true)).toMatchObject({ words, wide: true });
  });

  it.each([
    ["build", "/home/ada/src/app/build and everything in it"],
    ["./build/", "/home/ada/src/app/build and everything in it"],
    ["~/src/app/build", "/home/ada/src/app/build and everything in it"],
    ["dist/*", "everything in /home/ada/src/app/dist"],
    ["/tmp/x", "/tmp/x and everything in it"],
  ])("a folder of the task is named as a full path, not wide: %s", (word, words) => {
    expect(deleteTargetOf(word, ctx, true)).toMatchObject({ words, wide: false });
  });

  it("an argv's ~ is a name in the folder the command runs in, not the home", () => {
    expect(deleteTargetOf("~", ctx, false)).toEqual({
      words: "/home/ada/src/app/~ and everything in it",
      wide: false,
      folder: "/home/ada/src/app/~",
    });
  });

  it("a word known only when it runs is said as written, and not judged wide", () => {
    expect(deleteTargetOf("$TARGET", ctx, true)).toEqual({
      words: "$TARGET (known only when it runs)",
      wide: false,
      folder: null,
    });
    expect(deleteTargetOf("~bob", ctx, true).wide).toBe(false);
  });
});
