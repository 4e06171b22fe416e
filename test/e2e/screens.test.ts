// Every screen, in light and dark mode, with real data (a connected device after a sync, allowlist
// entries, audit records, roots, a pending approval): axe-core finds no moderate, serious or critical problem,
// and a screenshot of each is saved under test-results/screenshots/ (an artifact, not a comparison).
import fs from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { startTestBackend, type TestBackend } from "../../src/demo-backend/server.js";
import { startE2eApp, type E2eApp } from "../support/e2e-app.js";
import {
  accessibilityProblems,
  browserUnavailable,
  launchBrowser,
  openBoundPage,
  screenshot,
} from "../support/e2e-browser.js";
import { ensureRendererBuilt } from "../support/e2e-renderer.js";
import { serveStatic, type StaticServer } from "../support/e2e-server.js";
import { waitFor } from "../support/wait-for.js";
import { realProgram } from "../support/programs.js";

const skip = browserUnavailable();

/** How to know each screen has its data on it before it is checked and photographed. */
const SCREENS: Array<{ hash: string; ready: (page: Page) => Promise<unknown> }> = [
  { hash: "status", ready: (p) => p.getByText("Connected", { exact: true }).first().waitFor() },
  { hash: "allowlist", ready: (p) => p.getByRole("table", { name: /Allowlist entries/ }).waitFor() },
  { hash: "capabilities", ready: (p) => p.getByRole("list", { name: "Skills" }).waitFor() },
  { hash: "workdirs", ready: (p) => p.getByText("Added by you").waitFor() },
  { hash: "activity", ready: (p) => p.getByRole("table", { name: "Audit log" }).waitFor() },
  { hash: "settings", ready: (p) => p.getByRole("heading", { name: "Policy preset" }).waitFor() },
];

describe.skipIf(skip)("every screen", () => {
  let browser: Browser;
  let server: StaticServer;
  let backend: TestBackend;
  let app: E2eApp;

  beforeAll(async () => {
    server = await serveStatic(await ensureRendererBuilt());
    browser = await launchBrowser();
    backend = await startTestBackend({ installed: { skills: [1336, 1401], plugins: [9], mcps: [7] } });
    const ls = realProgram("ls");
    app = await startE2eApp({
      backend,
      approvals: {
        defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" },
        agents: {
          "*": {
            allowlist: [
              {
                id: "git-status",
                pattern: "/usr/bin/git",
                argPattern: "^status( |$)",
                source: "user",
                createdAt: 1,
              },
              {
                id: "ls-any",
                pattern: ls,
                source: "allow-always",
                lastUsedAt: Date.now() - 90_000,
                lastUsedCommand: "ls -la",
              },
              { id: "old", pattern: "/usr/bin/make", expiresAt: 1, source: "user" },
            ],
          },
        },
      },
      prepare: async (t) => {
        await fs.mkdir(path.join(t.home, "Projects"), { recursive: true });
        await fs.writeFile(
          t.paths.settings,
          JSON.stringify({ version: 1, workdir: { roots: ["~/Projects"] } }),
        );
      },
    });
    await waitFor(() => app.services.device?.state().state === "registered", { what: "registration" });
    await waitFor(() => backend.deviceIds().some((id) => (backend.device(id)?.syncAcks.length ?? 0) > 0), {
      what: "the sync",
      timeoutMs: 30_000,
    });
    // Some history for the activity screen: one command decided by a rule, one denied by nobody answering.
    await requestOnce(
      app.t.paths,
      "approval.request",
      { argv: ["ls", "-la"], cwd: app.t.home },
      { timeoutMs: 10_000 },
    );
    await requestOnce(
      app.t.paths,
      "approval.request",
      { argv: ["curl", "https://example.com"], cwd: app.t.home, timeoutMs: 200 },
      { timeoutMs: 10_000 },
    );
  });

  afterAll(async () => {
    await app?.close();
    await backend?.close();
    await browser?.close();
    await server?.close();
  });

  for (const scheme of ["light", "dark"] as const) {
    it(`in ${scheme} mode: no moderate or serious accessibility problem on any screen, and a screenshot of each`, async () => {
      const view = await openBoundPage(browser, app.router, `${server.url}/index.html#status`, {
        colorScheme: scheme,
      });
      const problems: Record<string, string[]> = {};
      try {
        for (const screen of SCREENS) {
          await view.page.evaluate((hash) => {
            (globalThis as unknown as { location: { hash: string } }).location.hash = `#${hash}`;
          }, screen.hash);
          await screen.ready(view.page);
          const found = await accessibilityProblems(view.page);
          if (found.length) problems[screen.hash] = found;
          await screenshot(view.page, `${screen.hash}-${scheme}`);
        }
        // The capability browser with a row selected, and the allowlist editor open.
        await view.page.evaluate(() => {
          (globalThis as unknown as { location: { hash: string } }).location.hash = "#capabilities";
        });
        await view.page.getByRole("list", { name: "Skills" }).getByRole("button").first().click();
        await view.page.getByRole("complementary", { name: "Details" }).getByRole("heading").waitFor();
        problems["capabilities-details"] = await accessibilityProblems(view.page);
        await screenshot(view.page, `capabilities-details-${scheme}`);
        await view.page.evaluate(() => {
          (globalThis as unknown as { location: { hash: string } }).location.hash = "#allowlist";
        });
        await view.page.getByRole("button", { name: "Add entry" }).click();
        await view.page.getByLabel("Program (pattern)").fill("bin/*");
        await view.page.getByText("pattern must be an absolute path or start with ~/").waitFor();
        await view.page.getByLabel("Command", { exact: true }).fill("ls -la | grep x > out.txt");
        await view.page.getByTestId("test-result").getByText("Asks you first").waitFor();
        problems["allowlist-editing"] = await accessibilityProblems(view.page);
        await screenshot(view.page, `allowlist-editing-${scheme}`);
      } finally {
        await view.close();
      }
      expect(view.problems).toEqual([]);
      expect(Object.fromEntries(Object.entries(problems).filter(([, list]) => list.length))).toEqual({});
    });

    it(`in ${scheme} mode: the approval window, empty and with a request waiting, has no moderate or serious accessibility problem`, async () => {
      const view = await openBoundPage(browser, app.router, `${server.url}/index.html#approval`, {
        colorScheme: scheme,
        viewport: { width: 560, height: 640 },
      });
      const problems: string[] = [];
      try {
        await view.page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
        problems.push(...(await accessibilityProblems(view.page)));
        await screenshot(view.page, `approval-empty-${scheme}`);
        const pending = requestOnce(
          app.t.paths,
          "approval.request",
          {
            command: `find . -name '*.log' -mtime +7 -exec rm {} \\; && echo "cleaned up $(date)" >> ~/cleanup.log`,
            cwd: app.t.home,
            agentId: "claude-code",
            sessionKey: "claude:5f2c",
            source: "claude-hook",
            reason: "Clean up old logs",
            timeoutMs: 60_000,
          },
          { timeoutMs: 60_000 },
        );
        await view.page.getByRole("dialog").waitFor();
        problems.push(...(await accessibilityProblems(view.page)));
        await screenshot(view.page, `approval-${scheme}`);
        await view.page.getByRole("button", { name: "Allow always…" }).click();
        await view.page.getByRole("button", { name: "Save and allow" }).waitFor();
        problems.push(...(await accessibilityProblems(view.page)));
        await screenshot(view.page, `approval-always-${scheme}`);
        await view.page.keyboard.press("Escape");
        await view.page.keyboard.press("Escape");
        const reply = await pending;
        expect(reply.status === "ok" && reply.body).toMatchObject({ decision: "deny", decidedBy: "user" });
        // The new approval states (issue 16): a dangerous request (red banner, Deny primary) and its
        // narrowed allow-always scope, at the normal size and at a small one.
        const danger = requestOnce(
          app.t.paths,
          "approval.request",
          { argv: ["rm", "-rf", "build"], cwd: app.t.home, agentId: "claude-code", timeoutMs: 60_000 },
          { timeoutMs: 60_000 },
        );
        await view.page.getByRole("region", { name: "Careful: this can do real harm" }).waitFor();
        problems.push(...(await accessibilityProblems(view.page)));
        await screenshot(view.page, `approval-danger-${scheme}`);
        await waitFor(
          async () =>
            (await view.page.getByRole("button", { name: "Allow always…" }).getAttribute("aria-disabled")) ===
            "false",
          { what: "Allow always to arm" },
        );
        await view.page.getByRole("button", { name: "Allow always…" }).click();
        await view.page.getByLabel("Expires").selectOption({ label: "In 1 day" });
        await view.page.getByLabel("Number of uses").selectOption({ label: "5 more runs" });
        problems.push(...(await accessibilityProblems(view.page)));
        await screenshot(view.page, `approval-scope-${scheme}`);
        await view.page.setViewportSize({ width: 380, height: 560 });
        await screenshot(view.page, `approval-scope-${scheme}-small`);
        await view.page.keyboard.press("Escape");
        await view.page.keyboard.press("Escape");
        await danger;
      } finally {
        await view.close();
      }
      expect(view.problems).toEqual([]);
      expect(problems).toEqual([]);
    });
  }
});
