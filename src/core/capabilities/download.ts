// Package downloads (device-protocol.md §7.3): URL building, the device token only for the backend's
// own origin, manual redirects, a per-request timeout and a size limit enforced while reading.
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
  fetch: typeof fetch;
  limits?: Partial<DownloadLimits>;
  /** Cancels the download (the runner is stopping). */
  signal?: AbortSignal;
}

/** `/api/v1/kinds/skills/{id}/download?namespace=<namespace>`, the namespace form-encoded. */
export function defaultSkillDownloadPath(skillId: number, namespace: string): string {
  return `/api/v1/kinds/skills/${skillId}/download?${new URLSearchParams({ namespace }).toString()}`;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

function isHttp(url: URL): boolean {
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

function backendOrigin(backendUrl: string | null): URL | null {
  if (!backendUrl?.trim()) return null;
  try {
    return new URL(backendUrl.trim());
  } catch {
    return null;
  }
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") {
    return timeoutMs >= 1000 && timeoutMs % 1000 === 0
      ? `timed out after ${timeoutMs / 1000} s`
      : `timed out after ${timeoutMs} ms`;
  }
  const cause = err?.cause;
  if (cause?.code) return cause.message ? `${cause.code} (${cause.message})` : cause.code;
  return cause?.message ?? err?.message ?? String(error);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function downloadPackage(request: DownloadRequest): Promise<DownloadResult> {
  const limits = { ...DEFAULT_DOWNLOAD_LIMITS, ...request.limits };
  const backend = backendOrigin(request.backendUrl);
  let current = request.url;
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = {};
    if (request.token && backend && sameOrigin(current, backend)) {
      headers.authorization = `Bearer ${request.token}`;
    }
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    let response: Response;
    try {
      response = await request.fetch(current, { headers, redirect: "manual", signal });
    } catch (error) {
      if (request.signal?.aborted) return { ok: false, error: msg.syncCancelled };
      return { ok: false, error: msg.downloadFailed(describeFetchError(error, limits.timeoutMs)) };
    }
    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      if (!location) return { ok: false, error: msg.httpStatus(response.status) };
      if (hop >= limits.maxRedirects) return { ok: false, error: msg.downloadFailed("too many redirects") };
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        return { ok: false, error: msg.invalidUrl("the redirect location is not a valid URL") };
      }
      if (!isHttp(next))
        return { ok: false, error: msg.invalidUrl(`redirect to unsupported scheme ${next.protocol}`) };
      current = next;
      continue;
    }
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, error: msg.httpStatus(response.status) };
    }
    return readLimitedBody(response, limits, request.signal);
  }
}

async function readLimitedBody(
  response: Response,
  limits: DownloadLimits,
  cancel: AbortSignal | undefined,
): Promise<DownloadResult> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: msg.tooLargeDownload };
  }
  if (!response.body) return { ok: true, bytes: Buffer.alloc(0) };
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, error: msg.tooLargeDownload };
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } catch (error) {
    if (cancel?.aborted) return { ok: false, error: msg.syncCancelled };
    return { ok: false, error: msg.downloadFailed(describeFetchError(error, limits.timeoutMs)) };
  }
  return { ok: true, bytes: Buffer.concat(chunks, total) };
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
