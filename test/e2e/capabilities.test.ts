// The capability browser in a real browser after a real sync from the test backend (ui.md "Capability
// browser"): skills, plugins and MCP servers with source badges and statuses, a conflict shown as such,
// search, and the details pane.
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startTestBackend } from "../../src/demo-backend/server.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();

describe.skipIf(skip)("capability browser", () => {
  const suite = browserSuite();

  it("lists the skills, plugins and MCP servers of a sync with source badges, shows a conflict as such, filters by search, and shows details", async () => {
    const backend = await startTestBackend({ installed: { skills: [1336, 1401], plugins: [9], mcps: [7] } });
    suite.later(() => backend.close());
    const b = backend;
    const app = await suite.startApp({
      backend: b,
      prepare: async (t) => {
        // The user's own `browser` skill sits where the Wegent `browser` skill would be linked.
        const mine = path.join(t.paths.claudeHome, "skills", "browser");
        await fs.mkdir(mine, { recursive: true });
        await fs.writeFile(
          path.join(mine, "SKILL.md"),
          "---\nname: browser\ndescription: My own browser helper\n---\nSteps.\n",
        );
      },
    });
    const a = app;
    await waitFor(() => b.deviceIds().some((id) => (b.device(id)?.syncAcks.length ?? 0) > 0), {
      what: "the sync after registration",
      timeoutMs: 30_000,
    });
    const view = await suite.open(a, "capabilities");
    const { page } = view;

    const skills = page.getByRole("tab", { name: /Skills/ });
    await skills.waitFor();
    const rows = page.getByRole("list", { name: "Skills" });
    // Linked for Claude Code (the winner) and for Codex (shadowed by it): the winner comes first.
    const imageGen = rows.getByRole("button", { name: /image-gen/ }).first();
    await imageGen.waitFor();
    expect(
      await rows
        .getByRole("button", { name: /image-gen/ })
        .nth(1)
        .textContent(),
    ).toContain("shadowed");
    expect(await imageGen.textContent()).toContain("Wegent-managed");
    expect(await imageGen.textContent()).toContain("synced");
    // Both sides of the conflict: the user's folder, left alone, and the Wegent skill that could not be synced.
    const mine = rows.getByRole("button", { name: /browser/ }).filter({ hasText: "local user" });
    expect(await mine.textContent()).toContain("conflict");
    const theirs = rows.getByRole("button", { name: /browser/ }).filter({ hasText: "Wegent-managed" });
    expect(await theirs.textContent()).toContain("conflict");
    await rows.getByRole("button", { name: /docs-lookup/ }).waitFor();
    expect(await rows.getByRole("button", { name: /docs-lookup/ }).textContent()).toContain("plugin");

    // The sync card says what failed, by name.
    await page.getByText("Runtime Skill path is occupied by a local user item").first().waitFor();

    // Details pane.
    await imageGen.click();
    const details = page.getByRole("complementary", { name: "Details" });
    await details.getByRole("heading", { name: /image-gen/ }).waitFor();
    await details.getByText("Generate images").waitFor();
    await details
      .getByText(/capabilities\/store\/skills/)
      .first()
      .waitFor();
    await mine.click();
    await details.getByText(/was not synced: Runtime Skill path is occupied by a local user item/).waitFor();

    // Search filters every tab; counts follow.
    await page.getByLabel("Search capabilities").fill("image");
    await waitFor(async () => (await rows.getByRole("button").count()) === 2, {
      what: "only image-gen left",
    });
    expect(await rows.getByRole("button", { name: /browser/ }).count()).toBe(0);
    await page.getByLabel("Search capabilities").fill("");

    await page.getByRole("tab", { name: /Plugins/ }).click();
    const plugins = page.getByRole("list", { name: "Plugins" });
    const context7 = plugins.getByRole("button", { name: /context7/ });
    await context7.waitFor();
    expect(await context7.textContent()).toContain("Wegent-managed");
    await context7.click();
    await details.getByText("Up-to-date library docs").waitFor();
    await details.getByText("docs-lookup").waitFor();

    await page.getByRole("tab", { name: /MCP servers/ }).click();
    const mcps = page.getByRole("list", { name: "MCP servers" });
    const docs = mcps.getByRole("button", { name: /docs/ });
    await docs.waitFor();
    await docs.click();
    await details.getByText("https://mcp.example.com/docs").first().waitFor();
    await details.getByText("Codex gets").waitFor();
  });
});
