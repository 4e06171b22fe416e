import { describe, expect, it } from "vitest";
import { displayCommand } from "../../../src/executor/command-text.js";

describe("command text", () => {
  it("shows a shell string as written", () => {
    expect(displayCommand({ command: "git log | grep fix" })).toBe("git log | grep fix");
  });

  it("quotes argv words so that pasting them into a shell runs the same words", () => {
    expect(displayCommand({ argv: ["echo", "it's", "a b", "", "plain-word"] })).toBe(
      `echo 'it'\\''s' 'a b' '' plain-word`,
    );
  });
});
