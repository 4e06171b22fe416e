// A small real HTTP server that serves capability packages the way a Wegent backend does: routes on
// the backend origin need `Authorization: Bearer <token>`; a second origin plays presigned object
// storage (no auth, and it records whether a token leaked to it). Redirects, error statuses and
// stalled responses are configurable; every request is logged for assertions.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type PackageOrigin = "backend" | "presigned";

export interface PackageRouteOptions {
  /** Require the device token (default: true on the backend origin, false on the presigned one). */
  auth?: boolean;
  /** Answer with this status and no body. */
  status?: number;
  /** Redirect here (absolute URL, or a path on the same origin) with `redirectStatus` (default 302). */
  redirectTo?: string;
  redirectStatus?: number;
  /** Send headers, then never finish the body (for timeout tests). */
  stall?: boolean;
  /** With `stall`: how many bytes of the body go out before it stalls (default 1). */
  stallAfter?: number;
  /** Send no Content-Length (chunked), so a size limit must be enforced while reading. */
  chunked?: boolean;
}

export interface PackageRequest {
  origin: PackageOrigin;
  method: string;
  /** Path with query string, as received. */
  path: string;
  authorization: string | null;
}

export interface PackageServer {
  /** The backend URL, including `prefix` when one was given (`http://127.0.0.1:<port>/prefix`). */
  backendUrl: string;
  /** The presigned-storage origin (`http://127.0.0.1:<port>`). */
  presignedOrigin: string;
  token: string;
  /** Serves `body` at `path` (path + query, without the prefix) on an origin. */
  serve(path: string, body: Buffer, options?: PackageRouteOptions & { origin?: PackageOrigin }): void;
  requests: PackageRequest[];
  /** Package bodies sent in full (2xx with a body) since start or the last `resetLog`. */
  downloads(): number;
  resetLog(): void;
  close(): Promise<void>;
}

interface Route extends PackageRouteOptions {
  body: Buffer;
}

export async function startPackageServer(
  options: { token?: string; prefix?: string } = {},
): Promise<PackageServer> {
  const token = options.token ?? "device-token-0123456789";
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const routes: Record<PackageOrigin, Map<string, Route>> = { backend: new Map(), presigned: new Map() };
  const requests: PackageRequest[] = [];
  let downloads = 0;
  const stalled = new Set<http.ServerResponse>();

  const handler = (origin: PackageOrigin) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? "/";
    const authorization = req.headers.authorization ?? null;
    requests.push({ origin, method: req.method ?? "GET", path: url, authorization });
    const key = origin === "backend" && prefix && url.startsWith(prefix) ? url.slice(prefix.length) : url;
    const route =
      origin === "backend" && prefix && !url.startsWith(prefix) ? undefined : routes[origin].get(key);
    if (!route) {
      res.writeHead(404).end("not found");
      return;
    }
    if ((route.auth ?? origin === "backend") && authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"detail":"Not authenticated"}');
      return;
    }
    if (route.redirectTo) {
      res.writeHead(route.redirectStatus ?? 302, { location: route.redirectTo }).end();
      return;
    }
    if (route.status) {
      res.writeHead(route.status).end();
      return;
    }
    if (route.stall) {
      res.writeHead(200, { "content-type": "application/zip" });
      res.write(route.body.subarray(0, route.stallAfter ?? 1));
      stalled.add(res);
      return;
    }
    const headers: Record<string, string | number> = { "content-type": "application/zip" };
    if (!route.chunked) headers["content-length"] = route.body.length;
    res.writeHead(200, headers);
    res.end(route.body, () => downloads++);
  };

  const listen = async (server: http.Server) => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const backend = http.createServer(handler("backend"));
  const presigned = http.createServer(handler("presigned"));
  const backendOrigin = await listen(backend);
  const presignedOrigin = await listen(presigned);

  return {
    backendUrl: `${backendOrigin}${prefix}`,
    presignedOrigin,
    token,
    serve(path, body, { origin = "backend", ...rest } = {}) {
      routes[origin].set(path, { body, ...rest });
    },
    requests,
    downloads: () => downloads,
    resetLog() {
      requests.length = 0;
      downloads = 0;
    },
    async close() {
      for (const res of stalled) res.destroy();
      for (const server of [backend, presigned]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
