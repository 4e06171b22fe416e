// Workdir settings in a real browser against the real workdir service (ui.md "Workdir settings").
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";

const skip = browserUnavailable();

describe.skipIf(skip)("workdir settings", () => {
  const suite = browserSuite();

  it("refuses ~/.ssh as a root with the reason, adds a real folder, and the check box shows a resolved path and a fallback reason", async () => {
    const app = await suite.startApp({
      prepare: async (t) => {
        await fs.mkdir(path.join(t.home, ".ssh"), { mode: 0o700 });
        await fs.mkdir(path.join(t.home, "Projects", "app"), { recursive: true });
        await fs.mkdir(path.join(t.home, "Elsewhere"));
      },
    });
    const a = app;
    const view = await suite.open(a, "workdirs");
    const { page } = view;
    const roots = page.getByRole("table", { name: "Allowed roots" });
    await roots.getByText("Workspace root").waitFor();
    await roots.getByText("always allowed").waitFor();

    const input = page.getByLabel("Add a root");
    await input.fill("~/.ssh");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const alert = page.locator("#new-root-problem");
    await alert.getByText(/^Not added: .+/).waitFor();
    const reason = (await alert.textContent()) ?? "";
    expect(reason.toLowerCase()).toMatch(/sensitive|protected|ssh/);
    const settingsBefore = await fs.readFile(a.t.paths.settings, "utf8").catch(() => "");
    expect(settingsBefore).not.toContain(".ssh");

    await input.fill("~/Projects");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("status").getByText("Added ~/Projects.").waitFor();
    const row = roots.locator("tr", { hasText: "~/Projects" });
    await row.getByText("Added by you").waitFor();
    await row.getByText(path.join(a.t.home, "Projects"), { exact: true }).waitFor();
    await row.getByText("active").waitFor();
    const settings = JSON.parse(await fs.readFile(a.t.paths.settings, "utf8"));
    expect(settings.workdir.roots).toEqual(["~/Projects"]);

    const check = page.getByTestId("check-result");
    await page.getByLabel("Path", { exact: true }).fill("~/Projects/app");
    await check.getByText(path.join(a.t.home, "Projects", "app"), { exact: true }).waitFor();
    await check.getByText(/can be used/).waitFor();

    await page.getByLabel("Path", { exact: true }).fill("~/Elsewhere");
    await check.getByText("Reason: outside-allowed-roots").waitFor();

    await page.getByRole("button", { name: "Remove root ~/Projects" }).click();
    await page.getByRole("status").getByText("Removed ~/Projects.").waitFor();
    expect(JSON.parse(await fs.readFile(a.t.paths.settings, "utf8")).workdir.roots).toEqual([]);
  });
});
