// Issue 16 "Status and settings" in a real browser against the real app: Status opens with the protection
// mode, an invalid approvals file leads every screen, "Trust this machine" takes a confirmation, and a
// plain-http backend is called out.
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("protection on Status and Settings", () => {
  const suite = browserSuite();

  async function defaults(a: E2eApp) {
    return ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8"))).defaults;
  }

  it("Status opens with the protection mode in plain words, and warns when an unanswered request runs anyway", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "status");
    const protection = page.getByRole("region", { name: "Protection" });
    await protection.getByText("Ask me: the allowlist runs, anything else waits for you").waitFor();
    await expect(protection.textContent()).resolves.toContain(
      "If nobody answers in time, the command is denied.",
    );
    // The first section of the screen.
    await expect(page.getByRole("heading", { level: 2 }).first().textContent()).resolves.toBe("Protection");

    await a.services.approvals.update((file) => ({
      ...file,
      defaults: { security: "allowlist", ask: "on-miss", askFallback: "full" },
    }));
    await protection.getByText("If nobody answers an approval in time, the command runs anyway").waitFor();
    await protection.getByRole("button", { name: "Change the preset" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  });

  it("a fresh install shows the preset it is in, Locked, on Status and Settings alike, with nothing that says otherwise", async () => {
    const a = await suite.startApp();
    expect(await defaults(a)).toBeUndefined();
    const { page } = await suite.open(a, "status");
    const protection = page.getByRole("region", { name: "Protection" });
    await protection.getByText("Locked: nothing runs", { exact: true }).waitFor();
    const said = (await protection.textContent()) ?? "";
    expect(said).toContain("Never run commands.");
    expect(said).toContain("Never: nothing runs, so nothing is asked.");
    expect(said).toContain("Gatehouse starts locked: nothing runs until you choose a preset.");
    expect(said).not.toMatch(/Custom settings|Ask me when|If nobody answers/);

    await protection.getByRole("button", { name: "Change the preset" }).click();
    const locked = page.getByRole("radio", { name: /^Locked/ });
    await waitFor(() => locked.isChecked(), { what: "Locked to show as chosen" });
    expect(await page.getByText("The defaults are customised").count()).toBe(0);

    // Choosing a preset is the person's step: Status follows it.
    await page.getByRole("radio", { name: /^Ask me/ }).click();
    await waitFor(async () => (await defaults(a))?.security === "allowlist", { what: "Ask me in the file" });
    const status = (await suite.open(a, "status")).page.getByRole("region", { name: "Protection" });
    await status.getByText("Ask me: the allowlist runs, anything else waits for you").waitFor();
    expect(await status.textContent()).not.toContain("Gatehouse starts locked");
  });

  it("an invalid approvals file is announced at the top of every screen with its path and a way to it", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "activity");
    await page.getByRole("heading", { name: "Activity", level: 1 }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await fs.writeFile(a.t.paths.approvals, "{ this is not json");
    const banner = page.getByRole("alert");
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain(
      "The approvals file is invalid: every command is denied until it is fixed.",
    );
    await expect(banner.textContent()).resolves.toContain(a.t.paths.approvals);
    // Before the screen's own heading.
    const first = await page.evaluate(
      "document.querySelector('.top-banner').compareDocumentPosition(document.querySelector('h1')) & Node.DOCUMENT_POSITION_FOLLOWING",
    );
    expect(first).toBeTruthy();
    await banner.getByRole("button", { name: "Open Allowlist" }).click();
    await page.getByRole("heading", { name: "Allowlist", level: 1 }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(1);
    await page
      .getByRole("link", { name: "Status" })
      .or(page.getByRole("button", { name: "Status" }))
      .click();
    await page.getByRole("region", { name: "Protection" }).getByText("Every command is denied").waitFor();
  });

  it("Trust this machine takes a second, deliberate step; Cancel changes nothing", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "settings");
    const trust = page.getByRole("radio", { name: /Trust this machine/ });
    await trust.click();
    const confirm = page.getByRole("group", { name: "Confirm Trust this machine" });
    await confirm.waitFor();
    await expect(confirm.textContent()).resolves.toContain("run without asking you");
    expect(await trust.isChecked()).toBe(false);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(await confirm.count()).toBe(0);
    expect((await defaults(a))?.security).toBe("allowlist");

    await trust.click();
    await confirm.getByRole("button", { name: "Trust this machine" }).click();
    await waitFor(async () => (await defaults(a))?.security === "full", {
      what: "the trust preset in the file",
    });
    await waitFor(() => trust.isChecked(), { what: "the trust preset to show as chosen" });
  });

  it("a backend URL over plain http is called out before it is saved, a local one is not", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "settings");
    const url = page.getByLabel("Backend URL");
    await url.fill("http://backend.example.com");
    await page.getByText("This backend is reached over plain http://").waitFor();
    await url.fill("http://localhost:8080");
    await waitFor(
      async () => (await page.getByText("This backend is reached over plain http://").count()) === 0,
      {
        what: "the warning to go",
      },
    );
    await url.fill("https://backend.example.com");
    expect(await page.getByText("This backend is reached over plain http://").count()).toBe(0);
  });
});
