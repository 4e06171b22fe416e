// Package downloads over HTTP (device-protocol.md §7.3), the I/O half of src/core/capabilities/
// download.ts: the device token only for the backend's own origin, manual redirects, a per-request
// timeout and a size limit enforced while reading. The sync engine gets it as a `PackageDownloader`.
import { msg } from "../core/capabilities/messages.js";
import {
  DEFAULT_DOWNLOAD_LIMITS,
  isHttp,
  sameOrigin,
  type DownloadLimits,
  type DownloadRequest,
  type DownloadResult,
  type PackageDownloader,
} from "../core/capabilities/download.js";

export interface HttpDownloadRequest extends DownloadRequest {
  fetch: typeof fetch;
}

/** The downloader the app uses: the platform's `fetch` unless another one is given (tests). */
export function httpPackageDownloader(fetchImpl: typeof fetch = fetch): PackageDownloader {
  return (request) => downloadPackage({ ...request, fetch: fetchImpl });
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

export async function downloadPackage(request: HttpDownloadRequest): Promise<DownloadResult> {
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
    return readLimitedBody(response, limits, request.signal, request.onProgress);
  }
}

async function readLimitedBody(
  response: Response,
  limits: DownloadLimits,
  cancel: AbortSignal | undefined,
  onProgress: DownloadRequest["onProgress"],
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
      onProgress?.(total, Number.isFinite(declared) && declared > 0 ? declared : null);
    }
  } catch (error) {
    if (cancel?.aborted) return { ok: false, error: msg.syncCancelled };
    return { ok: false, error: msg.downloadFailed(describeFetchError(error, limits.timeoutMs)) };
  }
  return { ok: true, bytes: Buffer.concat(chunks, total) };
}
