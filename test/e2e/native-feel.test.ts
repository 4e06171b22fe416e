// Issue 16 "Native feel" in a real browser against the real app: at small sizes the sidebar folds behind
// a button (keyboard-operable, aria-expanded), and choosing a section folds it again.
import { describe, expect, it } from "vitest";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";

const skip = browserUnavailable();

describe.skipIf(skip)("native feel", () => {
  const suite = browserSuite();

  it("in a small window the sections fold behind a button that opens them, and choosing one folds them again", async () => {
    const a = await suite.startApp();
    const { page } = await suite.open(a, "status", { viewport: { width: 480, height: 640 } });
    const toggle = page.getByRole("button", { name: /^Sections: Status/ });
    await toggle.waitFor();
    await expect(toggle.getAttribute("aria-expanded")).resolves.toBe("false");
    await expect(page.getByRole("button", { name: "Allowlist", exact: true }).isVisible()).resolves.toBe(
      false,
    );
    await toggle.focus();
    await page.keyboard.press("Enter");
    const hide = page.getByRole("button", { name: "Hide sections" });
    await expect(hide.getAttribute("aria-expanded")).resolves.toBe("true");
    await page.getByRole("button", { name: "Allowlist", exact: true }).click();
    await page.getByRole("heading", { name: "Allowlist", level: 1 }).waitFor();
    await page.getByRole("button", { name: /^Sections: Allowlist/ }).waitFor();
    await expect(page.getByRole("button", { name: "Status", exact: true }).isVisible()).resolves.toBe(false);
  });

  it("in a normal window the sections are always shown and there is no fold button", async () => {
    const a = await suite.startApp();
    const { page } = await suite.open(a, "status", { viewport: { width: 1000, height: 700 } });
    await page.getByRole("button", { name: "Allowlist", exact: true }).waitFor();
    await expect(page.getByRole("button", { name: /^Sections:/ }).isVisible()).resolves.toBe(false);
  });
});
