// The hooks every browser test file shares: one renderer server and one browser per file, and after
// each test the page (which must have reported no problems), the app and anything else the test
// started are closed, newest first.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { startE2eApp, type E2eApp, type E2eAppOptions } from "./e2e-app.js";
import { launchBrowser, openBoundPage, type BoundPage } from "./e2e-browser.js";
import { ensureRendererBuilt } from "./e2e-renderer.js";
import { serveStatic, type StaticServer } from "./e2e-server.js";

export interface BrowserSuite {
  readonly browser: Browser;
  readonly server: StaticServer;
  /** Starts the app for this test; closed after it. */
  startApp(options?: E2eAppOptions): Promise<E2eApp>;
  /** Opens the renderer at `#screen` bound to the app; closed after the test, which fails on page problems. */
  open(app: E2eApp, screen: string, options?: Parameters<typeof openBoundPage>[3]): Promise<BoundPage>;
  /** Something else to close after this test. */
  later(close: () => Promise<unknown>): void;
}

export function browserSuite(): BrowserSuite {
  let browser: Browser | undefined;
  let server: StaticServer | undefined;
  let views: BoundPage[] = [];
  let closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    server = await serveStatic(await ensureRendererBuilt());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(async () => {
    const [opened, toClose] = [views, closers];
    views = [];
    closers = [];
    const problems = opened.flatMap((view) => view.problems);
    for (const close of toClose.reverse()) await close();
    expect(problems).toEqual([]);
  });

  const suite: BrowserSuite = {
    get browser() {
      if (!browser) throw new Error("the browser starts in beforeAll");
      return browser;
    },
    get server() {
      if (!server) throw new Error("the renderer server starts in beforeAll");
      return server;
    },
    async startApp(options) {
      const app = await startE2eApp(options);
      closers.push(() => app.close());
      return app;
    },
    async open(app, screen, options) {
      const view = await openBoundPage(
        suite.browser,
        app.router,
        `${suite.server.url}/index.html#${screen}`,
        options,
      );
      views.push(view);
      closers.push(() => view.close());
      return view;
    },
    later(close) {
      closers.push(close);
    },
  };
  return suite;
}
