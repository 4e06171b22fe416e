// The shell's security rules (architecture.md "Electron shell"): hardened web preferences, the CSP,
// no navigation and no new windows, external links only after an http(s) check, and IPC only from the
// app's own windows showing the app's own renderer.
import { externalUrl } from "../ipc/external-url.js";
import type { WebContentsLike, WindowOptions } from "./electron-api.js";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'";

export function webPreferences(preload: string, developer = false): WindowOptions["webPreferences"] {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    devTools: developer,
  };
}

/**
 * The app's page (`app://gatehouse/index.html`, app-protocol.ts) with any hash: the only page allowed to
 * call main. `rendererUrl` is that page's URL without a hash.
 */
export function isRendererUrl(url: string, rendererUrl: string): boolean {
  let page: URL;
  let expected: URL;
  try {
    page = new URL(url);
    expected = new URL(rendererUrl);
  } catch {
    return false;
  }
  return (
    page.protocol === expected.protocol &&
    page.host === expected.host &&
    page.pathname === expected.pathname &&
    page.search === "" &&
    page.username === "" &&
    page.password === "" &&
    page.port === ""
  );
}

/** Whether an IPC call comes from one of the app's own windows showing the app's renderer. */
export function isTrustedSender(
  event: unknown,
  ownWebContentsIds: ReadonlySet<number>,
  rendererUrl: string,
): boolean {
  if (typeof event !== "object" || event === null) return false;
  const e = event as { sender?: { id?: unknown }; senderFrame?: { url?: unknown } | null };
  const id = e.sender?.id;
  const url = e.senderFrame?.url;
  return (
    typeof id === "number" &&
    ownWebContentsIds.has(id) &&
    typeof url === "string" &&
    isRendererUrl(url, rendererUrl)
  );
}

/** No navigation, no new windows, no webviews; http(s) links from the page open in the browser. */
export function hardenWebContents(contents: WebContentsLike, openExternal: (url: string) => void): void {
  contents.on("will-navigate", (event) => event.preventDefault());
  contents.on("will-redirect", (event) => event.preventDefault());
  contents.on("will-attach-webview", (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const checked = externalUrl(url);
    if (checked.ok) openExternal(checked.url);
    return { action: "deny" };
  });
}
