// The capability browser in a real browser after a real sync from the test backend (ui.md "Capability
// browser"): skills, plugins and MCP servers with source badges and statuses, a conflict shown as such,
// search, and the details pane.
import fs from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startTestBackend } from "../../src/demo-backend/server.js";
import { snapshotTree } from "../integration/capabilities/sync-fixture.js";
import { accessibilityProblems, browserUnavailable, screenshot } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { pathProblems } from "../support/e2e-layout.js";
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

// Issue 16: actions on a conflict or a failed item, live progress with Cancel, empty states with a next
// step, and long paths cut in the middle; each new state checked by axe and photographed (light, dark,
// small).
describe.skipIf(skip)("capability browser: problems, progress and next steps", () => {
  const suite = browserSuite();
  const CANCELLED = "Capability sync was cancelled in Gatehouse before it changed anything";

  /** axe in both themes and a screenshot of each, then one at a small size; returns every problem found. */
  async function photograph(page: Page, name: string): Promise<string[]> {
    const found: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      found.push(...(await accessibilityProblems(page)).map((p) => `${scheme}: ${p}`));
      await screenshot(page, `${name}-${scheme}`);
    }
    const size = page.viewportSize();
    await page.setViewportSize({ width: 480, height: 760 });
    found.push(...(await accessibilityProblems(page)).map((p) => `small: ${p}`));
    await screenshot(page, `${name}-small`);
    await page.emulateMedia({ colorScheme: "light" });
    if (size) await page.setViewportSize(size);
    return found;
  }

  const focused = (page: Page): Promise<string> =>
    page.evaluate<string>(
      "(() => { const el = document.activeElement; return el ? el.tagName + ':' + (el.getAttribute('aria-label') ?? el.getAttribute('aria-labelledby') ?? el.textContent ?? '') : ''; })()",
    );

  /** Moves focus with Tab until `locator` has it (the keyboard path a person takes); fails after 80 presses. */
  async function tabTo(page: Page, locator: Locator): Promise<void> {
    for (let i = 0; i < 80; i++) {
      if (await locator.evaluate((el) => el === el.ownerDocument.activeElement)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error("Tab never reached the element");
  }

  it("a conflict shows both paths, never offers to touch the user's item, opens only folders it showed, and a requested sync installs the skill once the user moved theirs (keyboard only)", async () => {
    const backend = await startTestBackend({ installed: { skills: [1336, 1401], plugins: [9], mcps: [7] } });
    suite.later(() => backend.close());
    const mineDir = { path: "" };
    const a = await suite.startApp({
      backend,
      prepare: async (t) => {
        mineDir.path = path.join(t.paths.claudeHome, "skills", "browser");
        await fs.mkdir(mineDir.path, { recursive: true });
        await fs.writeFile(
          path.join(mineDir.path, "SKILL.md"),
          "---\nname: browser\ndescription: My own browser helper\n---\nSteps.\n",
        );
      },
    });
    await waitFor(() => backend.deviceIds().some((id) => (backend.device(id)?.syncAcks.length ?? 0) > 0), {
      what: "the sync after registration",
      timeoutMs: 30_000,
    });
    const { page } = await suite.open(a, "capabilities");
    const sync = page.getByRole("region", { name: "Sync" });
    // The card leads with words, not a digest: the digest is behind "Sync details".
    await sync.getByText(/1 item of 4 needs attention/).waitFor();
    expect(await sync.locator(".sync-headline").textContent()).not.toMatch(/sha256/);
    expect(await sync.getByText(/^sha256:/).isVisible()).toBe(false);

    const showBoth = sync.getByRole("button", { name: "Show both paths of browser" });
    await tabTo(page, showBoth);
    await page.keyboard.press("Enter");
    const box = page.getByRole("region", { name: /Conflict: your own item is where browser would go/ });
    await box.waitFor();
    await waitFor(async () => (await focused(page)).includes("problem-heading"), {
      what: "focus on the conflict",
    });
    const storeDir = path.join(a.t.paths.capabilityStore, "skills", "1336-default-browser");
    const both = box.getByRole("list", { name: "Both paths" });
    await expect(both.textContent()).resolves.toContain(mineDir.path);
    await expect(both.textContent()).resolves.toContain(storeDir);
    await expect(both.textContent()).resolves.toContain("Yours, where Claude Code looks (left as it is)");
    await expect(both.textContent()).resolves.toContain("Gatehouse's copy would go here");
    // Nothing in it would overwrite, delete or replace the user's item.
    const buttons = await box.getByRole("button").allTextContents();
    expect(buttons.filter((b) => /delete|remove|overwrite|replace|trash/i.test(b))).toEqual([]);
    expect(await photograph(page, "capabilities-conflict")).toEqual([]);

    // Open folder, by keyboard: the user's folder opens in the file manager.
    const open = box.getByRole("button", { name: `Open folder: ${mineDir.path}` });
    await tabTo(page, open);
    await page.keyboard.press("Enter");
    await waitFor(() => a.host.opened.includes(mineDir.path), { what: "the folder to open" });
    // A path the screen did not show is refused, even when the page asks for it directly.
    const refused = await page.evaluate(() =>
      (
        globalThis as unknown as {
          gatehouse: Record<string, (r: unknown) => Promise<{ ok: boolean; reason?: string }>>;
        }
      ).gatehouse["capabilities.openFolder"]!({ path: "/etc" }),
    );
    expect(refused).toEqual({
      ok: true,
      value: { ok: false, reason: expect.stringMatching(/only opens folders this screen showed/) },
    });
    expect(a.host.opened).toEqual([mineDir.path]);
    expect(a.host.revealed).toEqual([]);

    // The user moves their folder away, then applies the last sync again (the last payload is re-run).
    await fs.rename(mineDir.path, path.join(a.t.home, "browser-mine"));
    const again = box.getByRole("button", { name: "Apply the last sync again" });
    await tabTo(page, again);
    await page.keyboard.press("Enter");
    await page
      .getByRole("status")
      .getByText(/Applying the last sync the backend sent again/)
      .waitFor();
    await sync.getByText(/All 4 items synced/).waitFor({ timeout: 30_000 });
    expect(await fs.readFile(path.join(mineDir.path, "SKILL.md"), "utf8")).toContain(
      "Drive a headless browser",
    );
    expect(await fs.readFile(path.join(a.t.home, "browser-mine", "SKILL.md"), "utf8")).toContain(
      "My own browser helper",
    );
  });

  it("a running sync shows the item, bytes and packages ready; Cancel (keyboard) stops it with nothing changed and says so", async () => {
    const backend = await startTestBackend({ installed: { skills: [], plugins: [], mcps: [] } });
    suite.later(() => backend.close());
    const a = await suite.startApp({ backend });
    await waitFor(() => backend.deviceIds().some((id) => (backend.device(id)?.syncAcks.length ?? 0) > 0), {
      what: "the (empty) sync after registration",
      timeoutMs: 30_000,
    });
    const { page } = await suite.open(a, "capabilities");
    const sync = page.getByRole("region", { name: "Sync" });

    // Connected, nothing synced: what to do, and a button that applies the last (empty) sync again.
    await sync.getByText(/Connected, but the backend has sent no skills/).waitFor();
    expect(await photograph(page, "capabilities-empty-connected")).toEqual([]);
    await sync.getByRole("button", { name: "Apply the last sync again" }).click();
    await page
      .getByRole("status")
      .getByText(/Applying the last sync the backend sent again/)
      .waitFor();
    // The re-run is a sync like any other (revision 2); wait until it has finished, record included.
    await waitFor(() => a.services.capabilities?.lastResult()?.record?.revision === 2, {
      what: "the requested sync to finish",
    });

    // image-gen's package: 300 kB go out, then the server stalls (a slow download).
    const deviceId = backend.deviceIds()[0]!;
    backend.packages!.serve("/api/v1/kinds/skills/42/download?namespace=default", Buffer.alloc(600_000, 7), {
      stall: true,
      stallAfter: 300_000,
    });
    /** Everything a sync may touch: the runtimes' folders and Gatehouse's capability folder. */
    const touched = async () =>
      Promise.all(
        [a.t.paths.claudeHome, a.t.paths.codexHome, a.t.paths.capabilitiesDir].map((dir) =>
          snapshotTree(dir),
        ),
      );
    const before = await touched();
    const ack = backend.syncCapabilities(
      deviceId,
      backend.syncPayload(deviceId, { skills: [1401], plugins: [], mcps: [] }, "merge"),
    );
    const text = sync.getByTestId("sync-progress-text");
    await waitFor(
      async () =>
        /Downloading image-gen — \d+\.\d kB · 0 of 1 package ready/.test((await text.textContent()) ?? ""),
      {
        what: "the download's bytes",
        timeoutMs: 30_000,
      },
    );
    expect(await sync.getByRole("progressbar", { name: "Capability sync progress" }).isVisible()).toBe(true);
    expect(await photograph(page, "capabilities-sync-progress")).toEqual([]);

    const cancel = sync.getByRole("button", { name: "Cancel sync" });
    await tabTo(page, cancel);
    await page.keyboard.press("Enter");
    await expect(ack).resolves.toEqual({ success: false, error: CANCELLED });
    await page.getByRole("status").getByText("Sync cancelled: nothing was changed.").first().waitFor();
    await waitFor(async () => (await text.count()) === 0, { what: "the progress to go" });
    expect(await touched()).toEqual(before);
    expect(await photograph(page, "capabilities-sync-cancelled")).toEqual([]);
  });

  it("without a backend the next step is Settings; a search that finds nothing offers to clear it (keyboard only)", async () => {
    const a = await suite.startApp({
      prepare: async (t) => {
        const mine = path.join(t.paths.claudeHome, "skills", "notes");
        await fs.mkdir(mine, { recursive: true });
        await fs.writeFile(
          path.join(mine, "SKILL.md"),
          "---\nname: notes\ndescription: My notes\n---\nSteps.\n",
        );
      },
    });
    const { page } = await suite.open(a, "capabilities");
    const sync = page.getByRole("region", { name: "Sync" });
    await sync.getByText(/Gatehouse is not connected to a backend/).waitFor();
    expect(await photograph(page, "capabilities-empty-no-backend")).toEqual([]);

    const search = page.getByLabel("Search capabilities");
    await search.focus();
    await page.keyboard.type("zzz-nothing");
    const clear = page.getByRole("button", { name: "Clear the search" });
    await page.getByText("Nothing matches “zzz-nothing”.").waitFor();
    expect(await photograph(page, "capabilities-empty-search")).toEqual([]);
    await tabTo(page, clear);
    await page.keyboard.press("Enter");
    await waitFor(async () => (await search.inputValue()) === "", { what: "the search to clear" });
    await expect(focused(page)).resolves.toMatch(/^INPUT/);
    await page.getByRole("list", { name: "Skills" }).getByRole("button", { name: /notes/ }).waitFor();

    const settings = sync.getByRole("button", { name: "Open Settings" });
    await tabTo(page, settings);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Policy preset" }).waitFor();
    expect(page.url()).toMatch(/#settings$/);
  });

  it("a long path is shown whole, not cut at either end, and wraps only after a separator in a narrow window", async () => {
    const backend = await startTestBackend({ installed: { skills: [1336], plugins: [], mcps: [] } });
    suite.later(() => backend.close());
    const a = await suite.startApp({
      backend,
      prepare: async (t) => {
        const mine = path.join(t.paths.claudeHome, "skills", "browser");
        await fs.mkdir(mine, { recursive: true });
        await fs.writeFile(path.join(mine, "SKILL.md"), "---\nname: browser\ndescription: Mine\n---\n");
      },
    });
    await waitFor(() => backend.deviceIds().some((id) => (backend.device(id)?.syncAcks.length ?? 0) > 0), {
      what: "the sync",
      timeoutMs: 30_000,
    });
    const { page } = await suite.open(a, "capabilities", { viewport: { width: 480, height: 760 } });
    await page.getByRole("button", { name: "Show both paths of browser" }).click();
    const box = page.getByRole("region", { name: /Conflict/ });
    const storeDir = path.join(a.t.paths.capabilityStore, "skills", "1336-default-browser");
    const shown = box.locator(`.path[data-path="${storeDir}"]`);
    await shown.waitFor();
    await expect(shown.textContent()).resolves.toBe(storeDir);
    // It takes more than one line at this width, each line ending at a separator.
    const lines = (await shown.evaluate((el) => {
      const tops = new Map<number, string>();
      for (const name of el.querySelectorAll(".path-name")) {
        const rects = [...name.getClientRects()];
        if (rects.length !== 1) return null;
        const top = Math.round(rects[0]!.top);
        tops.set(top, (tops.get(top) ?? "") + (name.textContent ?? ""));
      }
      return [...tops.values()];
    })) as string[] | null;
    expect(lines).not.toBeNull();
    expect(lines!.length).toBeGreaterThan(1);
    expect(lines!.join("")).toBe(storeDir);
    expect(lines!.slice(0, -1).filter((line) => !line.endsWith("/"))).toEqual([]);
    expect(await pathProblems(page)).toEqual([]);
    expect(await photograph(page, "capabilities-path-wrapped")).toEqual([]);
  });
});
