// The test backend's HTTP API (FastAPI-style JSON, `{"detail": …}` for errors):
//   POST /api/local-executor/devices/{device_id}/capabilities/sync
//   GET  /api/v1/kinds/skills/{skill_id}/download?namespace=…   (package download, bearer auth)
//   GET  /api/plugins/installed/{installed_plugin_id}/download  (package download, bearer auth)
// Package downloads are passed through to package-server.ts, which checks the token.
//   GET  /api/attachments/{id}/executor-download               (a task's attachment, bearer auth)
//   GET  /api/health
import http from "node:http";
import type { TestBackend } from "./server.js";

export const LEGACY_MCP_IDS_DETAIL =
  "MCP capability sync is temporarily disabled for server-key IDs; use InstalledMCP IDs";

const MAX_BODY = 1_000_000;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function authorised(backend: TestBackend, req: http.IncomingMessage): boolean {
  const header = req.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim() === backend.token;
}

async function readBody(req: http.IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function validationError(loc: Array<string | number>, msg: string, type: string): unknown {
  return { detail: [{ type, loc, msg }] };
}

function idList(value: unknown): number[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => Number.isInteger(v))) return null;
  return value as number[];
}

export async function handleRestRequest(
  backend: TestBackend,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", backend.url);
  const method = req.method ?? "GET";

  if (method === "GET" && url.pathname === "/api/health") return send(res, 200, { status: "ok" });

  const attachment = /^\/api\/attachments\/(\d+)\/executor-download$/.exec(url.pathname);
  if (method === "GET" && attachment) {
    if (!authorised(backend, req)) return send(res, 401, { detail: "Not authenticated" });
    const file = backend.attachments.get(Number(attachment[1]));
    if (!file) return send(res, 404, { detail: "Attachment not found" });
    backend.attachmentDownloads.push(Number(attachment[1]));
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.length });
    res.end(file);
    return;
  }

  if (
    method === "GET" &&
    (url.pathname.startsWith("/api/v1/kinds/skills/") || url.pathname.startsWith("/api/plugins/"))
  ) {
    return proxyPackage(backend, req, res);
  }

  const sync = /^\/api\/local-executor\/devices\/([^/]+)\/capabilities\/sync$/.exec(url.pathname);
  if (sync) {
    if (method !== "POST") return send(res, 405, { detail: "Method Not Allowed" });
    if (!authorised(backend, req)) return send(res, 401, { detail: "Not authenticated" });
    return capabilitySync(backend, decodeURIComponent(sync[1] ?? ""), req, res);
  }

  send(res, 404, { detail: "Not Found" });
}

async function capabilitySync(
  backend: TestBackend,
  deviceId: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const text = await readBody(req);
  if (text === null) return send(res, 413, { detail: "Request body too large" });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, 422, validationError(["body"], "JSON decode error", "json_invalid"));
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return send(res, 422, validationError(["body"], "Input should be a valid dictionary", "dict_type"));
  }
  const b = body as Record<string, unknown>;
  if ("mcp_ids" in b) return send(res, 422, { detail: LEGACY_MCP_IDS_DETAIL });
  const mode = b.mode ?? "merge";
  if (mode !== "merge" && mode !== "replace") {
    return send(
      res,
      422,
      validationError(["body", "mode"], "Input should be 'merge' or 'replace'", "literal_error"),
    );
  }
  const ids = {
    skills: idList(b.installed_skill_ids),
    plugins: idList(b.installed_plugin_ids),
    mcps: idList(b.installed_mcp_ids),
  };
  for (const [key, list] of [
    ["installed_skill_ids", ids.skills],
    ["installed_plugin_ids", ids.plugins],
    ["installed_mcp_ids", ids.mcps],
  ] as const) {
    if (list === null)
      return send(
        res,
        422,
        validationError(["body", key], "Input should be a list of integers", "list_type"),
      );
  }
  const wanted = { skills: ids.skills ?? [], plugins: ids.plugins ?? [], mcps: ids.mcps ?? [] };
  const catalogue = backend.catalogue;
  for (const id of wanted.skills) {
    if (!catalogue.skills.some((s) => s.installed_skill_id === id)) {
      return send(res, 404, { detail: `Installed skill ${id} not found` });
    }
  }
  for (const id of wanted.plugins) {
    if (!catalogue.plugins.some((p) => p.installed_plugin_id === id)) {
      return send(res, 404, { detail: `Installed plugin ${id} not found` });
    }
  }
  for (const id of wanted.mcps) {
    if (!catalogue.mcps.some((m) => m.installed_mcp_id === id)) {
      return send(res, 404, { detail: `Installed MCP ${id} not found` });
    }
  }
  if (!backend.isOnline(deviceId)) return send(res, 409, { detail: `Device ${deviceId} is offline` });

  // The installed set the backend pushes after every registration follows what the user synced.
  backend.installed =
    mode === "replace"
      ? wanted
      : {
          skills: [...new Set([...backend.installed.skills, ...wanted.skills])],
          plugins: [...new Set([...backend.installed.plugins, ...wanted.plugins])],
          mcps: [...new Set([...backend.installed.mcps, ...wanted.mcps])],
        };
  try {
    const ack = await backend.syncCapabilities(
      deviceId,
      backend.syncPayload(deviceId, wanted, mode),
      180_000,
    );
    send(res, 200, ack);
  } catch (error) {
    send(res, 504, { detail: `Device did not answer the capability sync: ${(error as Error).message}` });
  }
}

/** Passes a package download through to the package server's backend origin, headers included. */
function proxyPackage(
  backend: TestBackend,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const packages = backend.packages;
  if (!packages) {
    send(res, 503, { detail: "Package storage is not running" });
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const upstream = http.request(
      `${packages.backendUrl}${req.url ?? "/"}`,
      {
        method: "GET",
        headers: req.headers.authorization ? { authorization: req.headers.authorization } : {},
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", resolve);
        answer.on("error", () => resolve());
      },
    );
    upstream.on("error", (error) => {
      if (!res.headersSent) send(res, 502, { detail: `Package storage failed: ${error.message}` });
      resolve();
    });
    upstream.end();
  });
}
