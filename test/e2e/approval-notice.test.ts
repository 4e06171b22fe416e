// Issue 32, item 4, in a real browser against the real app: the notice that a request timed out is about
// that request only. It stays while the dialog is empty, and is gone once the next, unrelated request is
// shown (it would otherwise sit on top of a request it says nothing about).
import { describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("the timed-out notice", () => {
  const suite = browserSuite();

  function ask(a: E2eApp, body: Record<string, unknown>) {
    return requestOnce(
      a.t.paths,
      "approval.request",
      { cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000, ...body },
      { timeoutMs: 60_000 },
    );
  }

  it("a timed-out notice is shown while the dialog is empty and is gone when the next, unrelated request arrives", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const first = await ask(a, { argv: ["uname", "-a"], timeoutMs: 1_500 });
    expect(first.status === "ok" && first.body).toMatchObject({ decision: "timeout" });
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    await page.getByText('The request "uname -a" timed out before you answered: it is denied.').waitFor();

    const next = ask(a, { argv: ["git", "status"] });
    await page.getByRole("dialog", { name: "Allow this command?" }).waitFor();
    await expect(page.getByLabel("Command", { exact: true }).textContent()).resolves.toBe("git status");
    await expect(page.locator("body").textContent()).resolves.not.toContain("timed out before you answered");
    await expect(page.locator("body").textContent()).resolves.not.toContain(
      "A different request is shown now",
    );

    await page.keyboard.press("Escape");
    const denied = await next;
    expect(denied.status === "ok" && denied.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });
});
