// A tiny static HTTP server for the built renderer, sending the same CSP the Electron shell sends, so
// the browser tests catch anything (inline styles, eval, remote content) the real app would block.
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { CONTENT_SECURITY_POLICY } from "../../src/electron/security.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
};

export interface StaticServer {
  url: string;
  /** CSP violations the page reported (there should be none). */
  close(): Promise<void>;
}

export async function serveStatic(root: string): Promise<StaticServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
      const file = path.join(root, pathname === "/" ? "index.html" : pathname);
      if (!file.startsWith(root + path.sep) && file !== path.join(root, "index.html")) {
        res.writeHead(403).end();
        return;
      }
      try {
        const body = await fs.readFile(file);
        res.writeHead(200, {
          "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
          "content-security-policy": CONTENT_SECURITY_POLICY,
          "cache-control": "no-store",
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
