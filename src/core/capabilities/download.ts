// Package downloads (device-protocol.md §7.3), the pure half: URL building, the origin rule for the
// device token, limits and checksums. The HTTP client that follows redirects by hand, times out and
// enforces the size limit while reading is a service outside core (src/device/package-download.ts),
// handed to the sync engine as a `PackageDownloader`.
import { createHash } from "node:crypto";
import { msg, type PackageKind } from "./messages.js";

export interface DownloadLimits {
  /** Per request, headers and body (default 120 s). */
  timeoutMs: number;
  /** Largest accepted body (default 200 MiB). */
  maxBytes: number;
  /** Redirects followed (default 5). */
  maxRedirects: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  timeoutMs: 120_000,
  maxBytes: 200 * 1024 * 1024,
  maxRedirects: 5,
};

export type UrlResult = { ok: true; url: URL } | { ok: false; error: string };
export type DownloadResult = { ok: true; bytes: Buffer } | { ok: false; error: string };

export interface DownloadRequest {
  url: URL;
  /** The backend URL; Authorization goes only to its origin. */
  backendUrl: string | null;
  /** The device token, without a `Bearer` prefix. */
  token: string | null;
  limits?: Partial<DownloadLimits>;
  /** Cancels the download (the runner is stopping, or the person pressed Cancel). */
  signal?: AbortSignal;
  /** Called as bytes arrive: received so far, and the declared size when the server gave one. */
  onProgress?: (received: number, total: number | null) => void;
}

/** Fetches one package within its limits; expected failures are values, with a message for the backend. */
export type PackageDownloader = (request: DownloadRequest) => Promise<DownloadResult>;

/** `/api/v1/kinds/skills/{id}/download?namespace=<namespace>`, the namespace form-encoded. */
export function defaultSkillDownloadPath(skillId: number, namespace: string): string {
  return `/api/v1/kinds/skills/${skillId}/download?${new URLSearchParams({ namespace }).toString()}`;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

export function isHttp(url: URL): boolean {
  return url.protocol === "http:" || url.protocol === "https:";
}

/**
 * Absolute http(s) URLs are used as given; a relative path is joined to the backend URL keeping its
 * path prefix (`https://h/prefix` + `/api/x` → `https://h/prefix/api/x`); other schemes are refused.
 */
export function resolvePackageUrl(pathOrUrl: string, backendUrl: string | null): UrlResult {
  const text = pathOrUrl.trim();
  const scheme = SCHEME.exec(text)?.[1];
  if (scheme !== undefined) {
    if (!/^https?$/i.test(scheme))
      return { ok: false, error: msg.invalidUrl(`unsupported scheme ${scheme}:`) };
    try {
      return { ok: true, url: new URL(text) };
    } catch {
      return { ok: false, error: msg.invalidUrl("not a valid URL") };
    }
  }
  if (text.startsWith("//"))
    return { ok: false, error: msg.invalidUrl("a URL without a scheme is not allowed") };
  const base = backendUrl?.trim();
  if (!base) return { ok: false, error: msg.invalidUrl("the backend URL is not configured") };
  let url: URL;
  try {
    url = new URL(`${base.replace(/\/+$/, "")}/${text.replace(/^\/+/, "")}`);
  } catch {
    return { ok: false, error: msg.invalidUrl("the backend URL is not a valid URL") };
  }
  if (!isHttp(url)) return { ok: false, error: msg.invalidUrl(`unsupported scheme ${url.protocol}`) };
  return { ok: true, url };
}

/** Same scheme, host and port, default ports filled in (WHATWG `origin` already drops them). */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

export function sha256Checksum(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The item's `checksum` must equal `sha256:<hex>` of the raw bytes exactly; null when it does. */
export function checksumError(
  kind: PackageKind,
  expected: string | undefined,
  bytes: Uint8Array,
): string | null {
  if (expected === undefined) return null;
  const got = sha256Checksum(bytes);
  return got === expected ? null : msg.checksumMismatch(kind, expected, got);
}
