// Where the device dials (device-protocol.md §2): base URL rules and the Socket.IO target.

export interface SocketTarget {
  /** The normalised base URL (trimmed, no trailing `/`, ws→http, wss→https). */
  base: string;
  /** `<origin of base>/local-executor`: what `io()` is given. */
  namespaceUrl: string;
  /** The Engine.IO path: `/socket.io` when the base has no path, else the base's path unchanged. */
  path: string;
  host: string;
  port: number;
}

export type SocketTargetResult = { ok: true; target: SocketTarget } | { ok: false; error: string };

/** Trims, removes trailing `/`, maps `ws://` → `http://` and `wss://` → `https://`. */
export function normaliseBaseUrl(raw: string): string {
  let base = raw.trim().replace(/\/+$/, "");
  if (/^ws:\/\//i.test(base)) base = `http://${base.slice(5)}`;
  else if (/^wss:\/\//i.test(base)) base = `https://${base.slice(6)}`;
  return base;
}

export function socketTarget(input: {
  socketUrl: string | null;
  backendUrl: string | null;
}): SocketTargetResult {
  const raw = input.socketUrl?.trim() || input.backendUrl?.trim() || "";
  if (!raw) return { ok: false, error: "Backend URL is not configured" };
  const base = normaliseBaseUrl(raw);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { ok: false, error: `Backend URL is not a valid URL: ${base}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      error: `Backend URL must start with http://, https://, ws:// or wss:// (got ${base})`,
    };
  }
  const path = url.pathname === "" || url.pathname === "/" ? "/socket.io" : url.pathname;
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return {
    ok: true,
    target: {
      base,
      namespaceUrl: `${url.origin}/local-executor`,
      path,
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port,
    },
  };
}

/** Checks a URL the user types (`gatehouse login --backend`): the same rules as dialling. */
export function checkBackendUrl(raw: string): { ok: true; url: string } | { ok: false; error: string } {
  const result = socketTarget({ socketUrl: null, backendUrl: raw });
  return result.ok ? { ok: true, url: result.target.base } : result;
}
