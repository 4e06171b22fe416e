// The approval window at its minimum size, 440×400 (issue 32, Build 4), in a real browser against the real
// app: the arming note is one line and the countdown stays in view, the buttons do not move when they arm,
// nothing of the request shows below the button bar, and what the person reads can be scrolled into view
// above it. A command for which a standing rule would be unwise (rm -rf ~) offers "Allow once" only, says
// why, and main refuses an "allow always" for it whatever the renderer sends.
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { requestOnce } from "../../src/approval-server/client.js";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { accessibilityProblems, browserUnavailable, screenshot } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };
const SMALLEST = { width: 440, height: 400 };

describe.skipIf(skip)("the approval window at its minimum size", () => {
  const suite = browserSuite();

  function ask(a: E2eApp, body: Record<string, unknown>) {
    return requestOnce(
      a.t.paths,
      "approval.request",
      { cwd: a.t.home, sessionKey: "claude:5f2c", timeoutMs: 60_000, agentId: "claude-code", ...body },
      { timeoutMs: 60_000 },
    );
  }

  const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });
  const isArmed = async (page: Page, name: string) =>
    (await button(page, name).getAttribute("aria-disabled")) === "false";
  const boxes = async (page: Page) =>
    JSON.stringify(
      await Promise.all(
        ["Deny Esc", "Tell the agent why…", "Allow always…", "Allow once"].map((name) =>
          button(page, name).boundingBox(),
        ),
      ),
    );
  /** The window's geometry as the page lays it out. */
  const layout = (page: Page) =>
    page.evaluate(`(() => {
      const box = (selector) => document.querySelector(selector).getBoundingClientRect();
      const bar = box(".approval-buttons");
      const below = document.elementFromPoint(innerWidth / 2, innerHeight - 2);
      return {
        noteHeight: box(".approval-status").height,
        timeLeft: box(".approval-status .pill").top,
        barTop: bar.top,
        barBottom: bar.bottom,
        viewportHeight: innerHeight,
        belowIsBar: !!below && !!below.closest(".approval-buttons"),
      };
    })()`) as Promise<{
      noteHeight: number;
      timeLeft: number;
      barTop: number;
      barBottom: number;
      viewportHeight: number;
      belowIsBar: boolean;
    }>;

  it("the arming note is one line, the countdown is in view, the buttons stay put when they arm, and nothing shows below the bar", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval", { viewport: SMALLEST });
    const reply = ask(a, {
      command: `find . -name '*.log' -mtime +7 -exec rm {} \\; && echo "cleaned up $(date)" >> ~/cleanup.log`,
      reason: "Clean up old logs",
    });
    await page.getByRole("dialog").waitFor();
    const unarmed = await boxes(page);
    const first = await layout(page);
    // One line for the time left and the note, inside the bar (in view whatever is scrolled).
    expect(first.noteHeight).toBeLessThanOrEqual(22);
    expect(first.timeLeft).toBeGreaterThanOrEqual(first.barTop);
    await expect(page.locator(".approval-status").textContent()).resolves.toMatch(/^[01]:\d\d left/);
    await screenshot(page, "approval-smallest-unarmed");

    await waitFor(() => isArmed(page, "Allow once"), { what: "Allow once to arm" });
    expect(await boxes(page)).toBe(unarmed);

    // Half-way down: the bar sits on the window's bottom edge, with nothing of the request below it.
    await page.evaluate(`document.querySelector(".approval-window").scrollTop = 150`);
    const scrolled = await layout(page);
    expect(Math.abs(scrolled.barBottom - scrolled.viewportHeight)).toBeLessThanOrEqual(1);
    expect(scrolled.belowIsBar).toBe(true);
    // What the person reads comes into view above the bar, not under it.
    for (const text of ["If you do not answer in time", "Clean up old logs"]) {
      await page.evaluate(`document.querySelector(".approval-window").scrollTop = 0`);
      const shown = page.getByText(text);
      await shown.scrollIntoViewIfNeeded();
      const box = await shown.boundingBox();
      expect((box?.y ?? Infinity) + (box?.height ?? 0)).toBeLessThanOrEqual((await layout(page)).barTop);
    }
    await screenshot(page, "approval-smallest-scrolled");

    await page.keyboard.press("Escape");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });

  it("rm -rf ~ offers Allow once only and says why; an allow always sent anyway is refused and saves nothing", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval", { viewport: SMALLEST });
    const reply = ask(a, { command: "rm -rf ~" });
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain(
      `No “Allow always” for this request: it deletes your whole home folder (${a.t.home})`,
    );
    await waitFor(() => isArmed(page, "Allow once"), { what: "Allow once to arm" });
    expect(await button(page, "Allow always…").count()).toBe(0);
    const problems = await accessibilityProblems(page);
    await screenshot(page, "approval-smallest-allow-once-only");

    // What a renderer could send whatever the dialog shows: main answers it, through the real router.
    const refused = await page.evaluate(`(async () => {
      const listed = await window.gatehouse["prompts.list"]({});
      const id = listed.value.prompts[0].id;
      return (await window.gatehouse["prompts.decide"]({ id, decision: "allow-always" })).value;
    })()`);
    expect(refused).toEqual({
      ok: false,
      reason: expect.stringContaining(
        "Allow always is not offered for this request: it deletes your whole home folder",
      ),
    });
    const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
    expect(Object.values(file.agents).flatMap((agent) => agent?.allowlist ?? [])).toEqual([]);
    expect(a.services.broker.size).toBe(1);

    await page.keyboard.press("Escape");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
    expect(problems).toEqual([]);
  });
});
