import { describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  hardenWebContents,
  isRendererUrl,
  isTrustedSender,
} from "../../../src/electron/security.js";
import { appPageUrl } from "../../../src/electron/app-protocol.js";
import { approvalWindowOptions, mainWindowOptions } from "../../../src/electron/windows.js";
import { FakeWebContents } from "./fake-electron.js";

const RENDERER = appPageUrl();

describe("window security", () => {
  it("both windows run the renderer isolated, sandboxed, without Node", () => {
    for (const options of [approvalWindowOptions("/p/preload.cjs"), mainWindowOptions("/p/preload.cjs")]) {
      expect(options.webPreferences).toMatchObject({
        preload: "/p/preload.cjs",
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        devTools: false,
      });
      expect(options.show).toBe(false);
    }
  });

  it("the approval window is small and always on top; the main window is larger and ordinary", () => {
    const approval = approvalWindowOptions("/p");
    const main = mainWindowOptions("/p");
    expect(approval.alwaysOnTop).toBe(true);
    expect(approval.width).toBeLessThan(main.width);
    expect(approval.height).toBeLessThan(main.height);
    expect(main.alwaysOnTop).toBeUndefined();
  });

  it("the CSP allows only the app's own scripts, styles and data: images", () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'",
    );
  });

  it("navigation, redirects and webviews are prevented", () => {
    const contents = new FakeWebContents();
    hardenWebContents(contents, () => undefined);
    expect(contents.attempt("will-navigate", "https://evil.example/")).toBe(true);
    expect(contents.attempt("will-navigate", `${RENDERER}#status`)).toBe(true);
    expect(contents.attempt("will-redirect")).toBe(true);
    expect(contents.attempt("will-attach-webview")).toBe(true);
  });

  it("window.open is denied; an http(s) link opens in the browser, anything else is dropped", () => {
    const opened: string[] = [];
    const contents = new FakeWebContents();
    hardenWebContents(contents, (url) => opened.push(url));
    expect(contents.windowOpenHandler?.({ url: "https://docs.example.com/x" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler?.({ url: "file:///etc/passwd" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler?.({ url: "javascript:alert(1)" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler?.({ url: "https://user:pw@example.com/" })).toEqual({ action: "deny" });
    expect(opened).toEqual(["https://docs.example.com/x"]);
  });

  it("only the app's own windows showing the app's renderer may call main", () => {
    const own = new Set([7]);
    const call = (id: number, url: string | null) => ({
      sender: { id },
      senderFrame: url === null ? null : { url },
    });
    expect(isTrustedSender(call(7, `${RENDERER}#approval`), own, RENDERER)).toBe(true);
    expect(isTrustedSender(call(7, RENDERER), own, RENDERER)).toBe(true);
    expect(isTrustedSender(call(8, RENDERER), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, "https://evil.example/index.html"), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, "file:///tmp/index.html"), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, "file:///opt/Gatehouse/renderer/dist/index.html"), own, RENDERER)).toBe(
      false,
    );
    expect(isTrustedSender(call(7, "app://gatehouse/other.html"), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, "app://evil/index.html"), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, "app://user@gatehouse/index.html"), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, `${RENDERER}?x=1`), own, RENDERER)).toBe(false);
    expect(isTrustedSender(call(7, null), own, RENDERER)).toBe(false);
    expect(isTrustedSender(null, own, RENDERER)).toBe(false);
    expect(isTrustedSender({}, own, RENDERER)).toBe(false);
  });

  it("renderer URLs compare by scheme, host and path, ignoring the hash", () => {
    expect(isRendererUrl(`${RENDERER}#settings`, RENDERER)).toBe(true);
    expect(isRendererUrl("not a url", RENDERER)).toBe(false);
  });
});
