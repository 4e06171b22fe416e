// The screenshot harness (issue 32, Build 6): every screen and state of both windows — the main
// window's screens with their details, editors, problems and empty states, and the approval window's
// states (empty, a timed-out notice, a request, the allow-always scope editor, deny with a reason, the
// risk banner, elevated mode) — at the window's typical and minimum size (src/electron/windows.ts), in
// light and dark mode, with real data from the real app and backend. On each: axe-core finds no
// moderate, serious or critical problem, paths are whole and break only after a separator, and every
// table row's actions are in view, no table is wider than its box at the typical size, and no drop-down
// cuts its choice. A screenshot of each is saved under test-results/screenshots/ (an
// artifact, not a comparison). One browser and one app for all of it: each state is set up once and
// then shot in the four size × theme combinations.
import fs from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { startTestBackend, TestBackend } from "../../src/demo-backend/server.js";
import { approvalWindowOptions, mainWindowOptions } from "../../src/electron/windows.js";
import { startE2eApp, type E2eApp } from "../support/e2e-app.js";
import {
  accessibilityProblems,
  browserUnavailable,
  launchBrowser,
  openBoundPage,
  screenshot,
  type BoundPage,
} from "../support/e2e-browser.js";
import {
  actionProblems,
  pathProblems,
  selectProblems,
  shownPaths,
  tableOverflow,
} from "../support/e2e-layout.js";
import { ensureRendererBuilt } from "../support/e2e-renderer.js";
import { serveStatic, type StaticServer } from "../support/e2e-server.js";
import { waitFor } from "../support/wait-for.js";
import { realProgram } from "../support/programs.js";

const skip = browserUnavailable();

type Size = { name: string; width: number; height: number };

/** The typical and the minimum size of a window, as the app opens it. */
function sizesOf(options: {
  width?: number;
  height?: number;
  minWidth?: number;
  minHeight?: number;
}): Size[] {
  return [
    { name: "typical", width: options.width ?? 0, height: options.height ?? 0 },
    { name: "minimum", width: options.minWidth ?? 0, height: options.minHeight ?? 0 },
  ];
}
const MAIN_SIZES = sizesOf(mainWindowOptions(""));
const APPROVAL_SIZES = sizesOf(approvalWindowOptions(""));
const SCHEMES = ["light", "dark"] as const;

/** A long, deep path: it must wrap at its slashes at the minimum size, never inside a name. */
const LONG_TOOL = "/opt/vendor-toolchains/cross-compilers/2026.11-stable/bin/arm-none-eabi-gcc-wrapper";

interface Shot {
  /** Checks and screenshots per size and theme: the problems found, by `state-size-theme`. */
  problems: Record<string, string[]>;
}

/** Checks the state on the page at every size and theme, and photographs each. */
async function shootState(page: Page, name: string, sizes: Size[], shot: Shot, expectPaths: string[] = []) {
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      const key = `${name}-${size.name}-${scheme}`;
      const found = [
        ...(await accessibilityProblems(page)),
        ...(await pathProblems(page)),
        ...(await actionProblems(page)),
        ...(await selectProblems(page)),
      ];
      // At the usual size every table fits its box; at the minimum one may scroll sideways in its region.
      if (size.name === "typical") found.push(...(await tableOverflow(page)));
      const shown = await shownPaths(page);
      for (const p of expectPaths) if (!shown.includes(p)) found.push(`the path ${p} is not shown whole`);
      if (found.length) shot.problems[key] = found;
      await screenshot(page, key);
    }
  }
}

async function go(page: Page, hash: string) {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = `#${h}`;
  }, hash);
}

describe.skipIf(skip)("every screen and state, at both sizes and in both themes", () => {
  let browser: Browser;
  let server: StaticServer;
  let backend: TestBackend;
  let app: E2eApp;
  let longRoot: string;

  beforeAll(async () => {
    server = await serveStatic(await ensureRendererBuilt());
    browser = await launchBrowser();
    backend = await startTestBackend({ installed: { skills: [1336, 1401], plugins: [9], mcps: [7] } });
    // image-gen's package download fails with HTTP 500: a failed item, next to browser's conflict.
    backend.packages!.serve(TestBackend.skillDownloadPath(42, "default"), Buffer.alloc(0), { status: 500 });
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
              {
                id: "long",
                pattern: LONG_TOOL,
                argPattern: "^(-c|--compile-only) [A-Za-z0-9_./-]+\\.c$",
                cwd: "~/Projects/embedded-firmware-monorepo/**",
                source: "user",
                usesLeft: 12,
              },
              { id: "old", pattern: "/usr/bin/make", expiresAt: 1, source: "user" },
            ],
          },
        },
      },
      prepare: async (t) => {
        longRoot = path.join(t.home, "Projects", "client-engagements", "northwind-traders", "firmware");
        await fs.mkdir(longRoot, { recursive: true });
        await fs.writeFile(
          t.paths.settings,
          JSON.stringify({ version: 1, workdir: { roots: ["~/Projects", longRoot] } }),
        );
        // The user's own `browser` skill where the Wegent one would go: a conflict.
        const mine = path.join(t.paths.claudeHome, "skills", "browser");
        await fs.mkdir(mine, { recursive: true });
        await fs.writeFile(path.join(mine, "SKILL.md"), "---\nname: browser\ndescription: Mine\n---\n");
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
      { argv: ["ls", "-la"], cwd: longRoot },
      { timeoutMs: 10_000 },
    );
    await requestOnce(
      app.t.paths,
      "approval.request",
      { argv: ["curl", "https://example.com"], cwd: app.t.home, timeoutMs: 200 },
      { timeoutMs: 10_000 },
    );
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await backend?.close();
    await browser?.close();
    await server?.close();
  });

  it("the main window: each screen, item details, problems, editors and empty states have no accessibility problem, whole paths and actions in view", async () => {
    const view: BoundPage = await openBoundPage(browser, app.router, `${server.url}/index.html#status`, {
      viewport: MAIN_SIZES[0],
    });
    const shot: Shot = { problems: {} };
    const { page } = view;
    const sizes = MAIN_SIZES;
    try {
      await page.getByText("Connected", { exact: true }).first().waitFor();
      await shootState(page, "status", sizes, shot, [app.t.paths.executorHome]);

      await go(page, "allowlist");
      await page.getByRole("table", { name: /Allowlist entries/ }).waitFor();
      await shootState(page, "allowlist", sizes, shot, [LONG_TOOL]);
      await page.getByRole("button", { name: "Add entry" }).click();
      await page.getByLabel("Program (pattern)").fill("bin/*");
      await page.getByLabel("Arguments (regular expression)").fill("(");
      await page.getByLabel("Only in folders matching").fill("Projects");
      await page.getByTestId("entry-problems").getByText("3 problems").waitFor();
      await shootState(page, "allowlist-editor-errors", sizes, shot);
      await page.getByLabel("Program (pattern)").fill("/opt/not-installed-yet/bin/tool");
      await page.getByLabel("Arguments (regular expression)").fill("");
      await page.getByLabel("Only in folders matching").fill("");
      await page
        .getByText(/^Warning: There is no program at \/opt\/not-installed-yet\/bin\/tool today/)
        .waitFor();
      await shootState(page, "allowlist-editor-warning", sizes, shot);
      await page.getByRole("button", { name: "Cancel" }).click();
      await page
        .getByRole("navigation", { name: "Agents" })
        .getByRole("button", { name: /^codex/ })
        .click();
      await page.getByText(/^No entries yet/).waitFor();
      await shootState(page, "allowlist-empty", sizes, shot);

      await go(page, "capabilities");
      await page.getByRole("list", { name: "Skills" }).waitFor();
      await shootState(page, "capabilities", sizes, shot);
      await page.getByRole("button", { name: "Show both paths of browser" }).click();
      await page.getByRole("region", { name: /Conflict/ }).waitFor();
      await shootState(page, "capabilities-conflict", sizes, shot);
      await page.getByRole("button", { name: "Show details of image-gen" }).click();
      const failed = page.getByRole("region", { name: "image-gen failed to sync" });
      await failed
        .getByText(/The download of image-gen's package failed: the backend answered HTTP 500/)
        .waitFor();
      await shootState(page, "capabilities-failed", sizes, shot);
      for (const tab of ["Plugins", "MCP servers"]) {
        await page.getByRole("tab", { name: new RegExp(`^${tab}`) }).click();
        await page.getByRole("list", { name: tab }).getByRole("button").first().click();
        await page.getByRole("complementary", { name: "Details" }).getByRole("heading").first().waitFor();
        await shootState(page, `capabilities-${tab === "Plugins" ? "plugin" : "mcp"}`, sizes, shot);
      }

      await go(page, "workdirs");
      await page.getByText("Added by you").first().waitFor();
      await shootState(page, "workdirs", sizes, shot, [longRoot]);

      await go(page, "activity");
      await page.getByRole("table", { name: "Audit log" }).waitFor();
      await shootState(page, "activity", sizes, shot, [longRoot]);
      await page.getByLabel("Search commands").fill("no-such-command-anywhere");
      await page.getByText("Nothing matches the filters.").waitFor();
      await shootState(page, "activity-empty", sizes, shot);

      await go(page, "settings");
      await page.getByRole("heading", { name: "Policy preset" }).waitFor();
      await shootState(page, "settings", sizes, shot);
    } finally {
      await view.close();
    }
    expect(view.problems).toEqual([]);
    expect(shot.problems).toEqual({});
  }, 300_000);

  it("the approval window: empty, a timed-out notice, a request, allow-always, deny with a reason, the risk banner and elevated mode have no accessibility problem and whole paths", async () => {
    const view = await openBoundPage(browser, app.router, `${server.url}/index.html#approval`, {
      viewport: APPROVAL_SIZES[0],
    });
    const shot: Shot = { problems: {} };
    const { page } = view;
    const sizes = APPROVAL_SIZES;
    const ask = (body: Record<string, unknown>) =>
      requestOnce(
        app.t.paths,
        "approval.request",
        { cwd: longRoot, agentId: "claude-code", sessionKey: "claude:5f2c", timeoutMs: 120_000, ...body },
        { timeoutMs: 120_000 },
      );
    const armed = (name: string) =>
      waitFor(
        async () =>
          (await page.getByRole("button", { name, exact: true }).getAttribute("aria-disabled")) === "false",
        { what: `${name} to arm` },
      );
    try {
      await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
      await shootState(page, "approval-empty", sizes, shot);

      const timedOut = await ask({ argv: ["uname", "-a"], timeoutMs: 300 });
      expect(timedOut.status === "ok" && timedOut.body).toMatchObject({ decision: "timeout" });
      await page.getByText(/timed out before you answered/).waitFor();
      await shootState(page, "approval-notice", sizes, shot);

      const pending = ask({
        command: `find . -name '*.log' -mtime +7 -exec rm {} \\; && echo "cleaned up $(date)" >> ~/cleanup.log`,
        source: "claude-hook",
        reason: "Clean up old logs",
      });
      await page.getByRole("dialog").waitFor();
      await shootState(page, "approval-request", sizes, shot, [longRoot]);
      await armed("Allow always…");
      await page.getByRole("button", { name: "Allow always…" }).click();
      await page.getByRole("button", { name: "Save and allow" }).waitFor();
      await shootState(page, "approval-allow-always", sizes, shot);
      await page.keyboard.press("Escape");
      await page.getByRole("button", { name: "Tell the agent why…" }).click();
      await page
        .getByRole("textbox", { name: /^Tell the agent why, or what to do instead/ })
        .fill("Use `make clean-logs` instead: it keeps this week's logs.");
      await shootState(page, "approval-deny-reason", sizes, shot);
      await page.getByRole("button", { name: "Deny and tell the agent" }).click();
      const denied = await pending;
      expect(denied.status === "ok" && denied.body).toMatchObject({ decision: "deny", decidedBy: "user" });

      const danger = ask({ argv: ["rm", "-rf", "build"] });
      await page.getByRole("region", { name: "Careful: this can do real harm" }).waitFor();
      await shootState(page, "approval-risk", sizes, shot);
      await page.keyboard.press("Escape");
      await danger;

      await app.services.approvals.elevate("*", Date.now() + 10 * 60_000, "test");
      const bar = page.getByRole("region", { name: "Elevated mode" });
      await bar.waitFor();
      await shootState(page, "approval-elevated", sizes, shot);
      await bar.getByRole("button", { name: "End elevated mode" }).click();
      await waitFor(async () => (await bar.count()) === 0, { what: "elevated mode to end" });
    } finally {
      await view.close();
    }
    expect(view.problems).toEqual([]);
    expect(shot.problems).toEqual({});
  }, 300_000);
});
