// Allowing with the mouse, in a real browser against the real app (issue 32): a click on an armed allowing
// button counts, also when that click is what gives the button focus (focus by keyboard restarts arming,
// the focus a press gives an armed button does not), and arming never moves a button: a button that moved
// between press and release would lose the click (the browser sends it to what is under the pointer then).
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserUnavailable } from "../support/e2e-browser.js";
import { ASK_ME, askApproval, dialogButton, isArmed } from "../support/e2e-approval.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

describe.skipIf(skip)("allowing with the mouse", () => {
  const suite = browserSuite();

  const ask = askApproval;
  const button = dialogButton;
  const box = async (page: Page, name: string) => JSON.stringify(await button(page, name).boundingBox());

  it("a click on an armed Allow always… opens the scope editor although that click is what focuses it, and a click on Save and allow saves", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval", { viewport: { width: 560, height: 640 } });
    const reply = ask(a, { argv: ["git", "push", "--force"] });
    await page.getByRole("dialog").waitFor();
    await waitFor(() => isArmed(page, "Allow always…"), { what: "Allow always… to arm" });
    // Focus is on the command, not on the button: the press gives it focus.
    await button(page, "Allow always…").click();
    await page.getByRole("heading", { name: /^Add to the allowlist of/ }).waitFor();
    await waitFor(() => isArmed(page, "Save and allow"), { what: "Save and allow to arm" });
    await button(page, "Save and allow").click();
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-always",
      decidedBy: "user",
    });
  });

  it("arming never moves a button: not when it arms, not when focus by keyboard restarts it", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval", { viewport: { width: 560, height: 640 } });
    const reply = ask(a, { argv: ["git", "push", "--force"] });
    await page.getByRole("dialog").waitFor();
    const unarmed = { always: await box(page, "Allow always…"), once: await box(page, "Allow once") };
    expect(await isArmed(page, "Allow once")).toBe(false);
    await waitFor(() => isArmed(page, "Allow once"), { what: "Allow once to arm" });
    expect({ always: await box(page, "Allow always…"), once: await box(page, "Allow once") }).toEqual(
      unarmed,
    );
    await button(page, "Allow once").focus();
    await waitFor(async () => !(await isArmed(page, "Allow once")), { what: "focus to restart arming" });
    expect({ always: await box(page, "Allow always…"), once: await box(page, "Allow once") }).toEqual(
      unarmed,
    );
    await page.keyboard.press("Escape");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });
});
