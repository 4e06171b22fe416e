// Issue 32, Build 2, in a real browser against the real app: a person who denies may tell the agent why.
// The reason typed in the dialog reaches the asking client in the decision (what the agent's hook turns
// into the reason its model reads: test/integration/approval-server/deny-reason.test.ts) and the audit line.
import { describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("deny with a reason", () => {
  const suite = browserSuite();

  it("the reason typed when denying reaches the client in the decision and the audit line, on one line", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = requestOnce(
      a.t.paths,
      "approval.request",
      { argv: ["git", "push", "--force"], cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000 },
      { timeoutMs: 60_000 },
    );
    await page.getByRole("dialog").waitFor();
    await page.getByRole("button", { name: "Tell the agent why…" }).click();
    const field = page.getByRole("textbox", { name: /^Tell the agent why, or what to do instead/ });
    // Focus is in the box: typing goes there.
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe("deny-reason");
    await field.fill("Never force-push.\nOpen a pull request instead.");
    await page.getByRole("button", { name: "Deny and tell the agent" }).click();

    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "deny",
      decidedBy: "user",
      denyReason: "Never force-push. Open a pull request instead.",
    });
    const line = await waitFor(
      async () => (await a.services.audit.read({ limit: 5 })).find((r) => r.event === "decision"),
      { what: "the decision's audit line" },
    );
    expect(line.denyReason).toBe("Never force-push. Open a pull request instead.");
  });

  it("Esc in the reason box goes back without deciding; Esc again denies without a reason", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = requestOnce(
      a.t.paths,
      "approval.request",
      { argv: ["uname", "-a"], cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000 },
      { timeoutMs: 60_000 },
    );
    await page.getByRole("dialog").waitFor();
    await page.getByRole("button", { name: "Tell the agent why…" }).click();
    await page.getByRole("textbox", { name: /^Tell the agent why, or what to do instead/ }).fill("not now");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Tell the agent why…" }).waitFor();
    expect(a.services.broker.size).toBe(1);
    await page.keyboard.press("Escape");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
    expect(answer.status === "ok" && answer.body.denyReason).toBeUndefined();
  });
});
