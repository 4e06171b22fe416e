// What the capability browser says about a failed or conflicting item (issue 32, Build 6): the step
// that failed, the item, the HTTP status, and what to do — never "stopped at the conflict" for a
// download that failed.
import { describe, expect, it } from "vitest";
import { msg } from "../../../src/core/capabilities/messages.js";
import {
  APPLY_AGAIN,
  conflictAdvice,
  failureAdvice,
  mcpProblem,
} from "../../../src/ipc/capability-problems.js";

describe("what a failed item's problem says", () => {
  it("an HTTP 500 download names the download, the status and the item, and says to apply the last sync again later", () => {
    const text = failureAdvice("browser", msg.httpStatus(500));
    expect(text).toContain("The download of browser's package failed");
    expect(text).toContain("HTTP 500");
    expect(text).toContain(`"${APPLY_AGAIN}" in a while`);
    expect(text).not.toMatch(/conflict/i);
  });

  it("a refused or missing package sends the person to Wegent for a new sync, since applying the same links again cannot help", () => {
    expect(failureAdvice("browser", msg.httpStatus(403))).toMatch(
      /HTTP 403.*Sync this device again from the Wegent web page/,
    );
    expect(failureAdvice("browser", msg.httpStatus(404))).toMatch(/HTTP 404: the package is not there/);
  });

  it("a network failure, a checksum mismatch and any other reason each say what happened and what to do", () => {
    expect(failureAdvice("docs", msg.downloadFailed("connect ECONNREFUSED"))).toMatch(
      /download of docs's package failed \(connect ECONNREFUSED\).*backend can be reached/,
    );
    expect(failureAdvice("docs", msg.checksumMismatch("skill", "aa", "bb"))).toMatch(/checksum differs/);
    expect(failureAdvice("docs", msg.missingSkillMd)).toMatch(
      /^docs was not installed: Skill package is missing SKILL.md\./,
    );
  });

  it("a conflict says the user's item is never touched, and an MCP conflict does not claim the item is gone", () => {
    expect(conflictAdvice("browser", true)).toContain("never overwrites or deletes your item");
    expect(conflictAdvice("browser", false)).toContain("Your item is not there any more");
    expect(mcpProblem("docs", "occupied", true).whatToDo).not.toContain("not there any more");
    expect(mcpProblem("docs", msg.httpStatus(502), false)).toMatchObject({ kind: "failed", paths: [] });
  });
});
