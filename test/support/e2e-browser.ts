// Debian's Chromium driven by playwright-core for the browser tests: the built renderer is served with
// the app's CSP, and `window.gatehouse` is bound to the real IPC router in the test process (every call
// goes through `exposeFunction`; events are pushed into the page as they happen).
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHANNELS, EVENTS } from "../../src/ipc/contract.js";
import type { Router } from "../../src/ipc/router.js";
import { REPO_ROOT } from "./cli.js";
import { E2E_SENDER } from "./e2e-app.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null. */
export function browserUnavailable(): string | null {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing (install Debian's chromium package)`;
  return null;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface BoundPage {
  page: Page;
  /** Problems the page reported: console errors, uncaught exceptions, CSP violations. */
  problems: string[];
  close(): Promise<void>;
}

/** The init script: builds `window.gatehouse` (one method per channel + `on`) over the exposed function. */
function bridgeScript(channels: readonly string[]): string {
  return `(() => {
    const listeners = new Map();
    const api = {};
    for (const channel of ${JSON.stringify(channels)}) {
      api[channel] = (request) => window.__gatehouseInvoke(channel, request === undefined ? {} : request);
    }
    api.on = (event, listener) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
      return () => listeners.get(event).delete(listener);
    };
    window.__gatehouseEmit = (event, payload) => {
      for (const listener of [...(listeners.get(event) || [])]) listener(payload);
    };
    window.gatehouse = Object.freeze(api);
  })();`;
}

export async function openBoundPage(
  browser: Browser,
  router: Router,
  url: string,
  options: {
    colorScheme?: "light" | "dark";
    viewport?: { width: number; height: number };
    /** The person's time zone (IANA), as their system would give it to the window. */
    timezoneId?: string;
  } = {},
): Promise<BoundPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1180, height: 820 },
    colorScheme: options.colorScheme ?? "light",
    reducedMotion: "reduce",
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.exposeFunction("__gatehouseInvoke", (channel: string, payload: unknown) =>
    router.handle(channel, payload, E2E_SENDER),
  );
  await page.addInitScript(bridgeScript(CHANNELS));
  const unsubscribe = EVENTS.map((event) =>
    router.subscribe(event, (payload) => {
      page
        .evaluate(
          ([name, body]) =>
            (
              globalThis as unknown as { __gatehouseEmit?: (e: string, p: unknown) => void }
            ).__gatehouseEmit?.(name, body),
          [event, payload] as const,
        )
        .catch(() => undefined); // the page may be navigating or closed
    }),
  );
  await page.goto(url);
  return {
    page,
    problems,
    async close() {
      for (const stop of unsubscribe) stop();
      await context.close();
    },
  };
}

export const SCREENSHOT_DIR = path.join(REPO_ROOT, "test-results", "screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** axe-core's moderate, serious and critical violations on the current page (the rule, the impact, where). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const axe = fs.readFileSync(path.join(REPO_ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");
  // CSP forbids inline scripts for the page, but Playwright evaluates in the page's context directly.
  await page.evaluate(axe);
  const results = await page.evaluate(async () => {
    const page = globalThis as unknown as {
      axe: { run: (context: unknown, options: object) => Promise<unknown> };
      document: unknown;
    };
    return (await page.axe.run(page.document, { resultTypes: ["violations"] })) as {
      violations: Array<{
        id: string;
        impact: string | null;
        help: string;
        nodes: Array<{ target: string[]; failureSummary?: string }>;
      }>;
    };
  });
  return results.violations
    .filter((v) => v.impact === "moderate" || v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 5)
          .join(", ")}`,
    );
}
