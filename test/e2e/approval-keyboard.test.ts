// Issue 32, Build 1, in a real browser against the real app: allowing by keyboard needs a fresh key press on
// an allowing button that armed while it had focus. Enter, Enter on "Allow always…" opens the scope editor
// (focus in it) and saves nothing; a key held down from before arming, auto-repeating or released after
// it, allows nothing; a burst of Enter presses that began before arming allows nothing.
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { ASK_ME, askApproval, dialogButton, isArmed } from "../support/e2e-approval.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

describe.skipIf(skip)("allowing by keyboard", () => {
  const suite = browserSuite();

  const ask = askApproval;
  const button = dialogButton;
  const waitArmed = (page: Page, name: string) =>
    waitFor(() => isArmed(page, name), { what: `${name} to arm` });

  /** The focused element as `TAG:text` (evaluated in the page). */
  const focused = (page: Page) =>
    page.evaluate(
      "(() => { const el = document.activeElement; return el ? el.tagName + ':' + el.textContent : ''; })()",
    );

  async function savedEntries(a: E2eApp) {
    const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
    return Object.values(file.agents).flatMap((agent) => agent?.allowlist ?? []);
  }

  it("Enter, Enter on an armed Allow always… opens the scope editor with focus in it and saves nothing; Save and allow arms on its own and then saves by keyboard", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = ask(a, { argv: ["rm", "-rf", "build"] });
    await page.getByRole("dialog").waitFor();
    await button(page, "Allow always…").focus();
    await waitArmed(page, "Allow always…");

    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    const editor = page.getByRole("heading", { name: /^Add to the allowlist of/ });
    await editor.waitFor();
    await expect(focused(page)).resolves.toMatch(/^H2:Add to the allowlist of/);
    expect(await isArmed(page, "Save and allow")).toBe(false);
    // Tabbing straight to the save button and pressing Enter: it armed anew when it got focus.
    await button(page, "Save and allow").focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    expect(a.services.broker.size).toBe(1);
    expect(await savedEntries(a)).toEqual([]);

    // A deliberate press once the editor has been read saves what it shows.
    await waitArmed(page, "Save and allow");
    await page.keyboard.press("Enter");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-always",
      decidedBy: "user",
    });
    expect((await savedEntries(a)).map((e) => e.argPattern)).toEqual(["^-rf build$"]);
  });

  it("a key held down from before arming allows nothing: not its auto-repeat after arming, not its release", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = ask(a, { argv: ["git", "push", "--force"] });
    await page.getByRole("dialog").waitFor();
    await button(page, "Allow once").focus();

    // Enter goes down before arming and auto-repeats well after it.
    await page.keyboard.down("Enter");
    await waitArmed(page, "Allow once");
    for (let i = 0; i < 5; i += 1) await page.keyboard.down("Enter"); // repeat: true
    await page.keyboard.up("Enter");
    expect(a.services.broker.size).toBe(1);

    // Space activates a button on release: one pressed before arming and released after it counts not.
    await page.getByLabel("Command", { exact: true }).focus();
    await button(page, "Allow once").focus();
    await waitFor(async () => !(await isArmed(page, "Allow once")), { what: "focus to restart arming" });
    await page.keyboard.down("Space");
    await waitArmed(page, "Allow once");
    await page.keyboard.down("Space");
    await page.keyboard.up("Space");
    expect(a.services.broker.size).toBe(1);
    await expect(page.getByRole("dialog").textContent()).resolves.toContain("git push --force");

    // The same button takes a click once armed: the request was answerable all along.
    await button(page, "Allow once").click();
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "user",
    });
  });

  it("Enter pressed over and over from before arming allows nothing, however long the burst goes on after it", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = ask(a, { argv: ["git", "push", "--force"] });
    await page.getByRole("dialog").waitFor();
    await button(page, "Allow once").focus();
    let pressesAfterArming = 0;
    while (pressesAfterArming < 10) {
      const armed = await isArmed(page, "Allow once");
      await page.keyboard.press("Enter");
      if (armed) pressesAfterArming += 1;
    }
    expect(a.services.broker.size).toBe(1);
    await page.keyboard.press("Escape");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });
});
