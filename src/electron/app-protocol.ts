// The app's own scheme for the renderer (issue 17): windows load `app://gatehouse/index.html` instead of
// file://, and this handler serves only the regular files inside the built renderer folder. Anything
// else — `..` (plain or percent-encoded), an encoded `/` or `\`, an absolute or drive path, a hidden
// file, a symbolic link leading out of the folder, another host — is refused. Every response carries
// the CSP (webRequest headers do not reach custom schemes).
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { CONTENT_SECURITY_POLICY } from "./security.js";

export const APP_SCHEME = "app";
export const APP_HOST = "gatehouse";
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX = "index.html";

/**
 * Passed to `protocol.registerSchemesAsPrivileged` before `ready`: a standard, secure origin (so
 * `'self'` in the CSP means the bundle and module scripts load), nothing that bypasses the CSP, no
 * service workers.
 */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
  bypassCSP: false,
  allowServiceWorkers: false,
  stream: false,
} as const;

/** The page a window loads: `app://gatehouse/index.html#<screen>`. */
export function appPageUrl(hash?: string): string {
  return `${APP_ORIGIN}/${APP_INDEX}${hash ? `#${hash}` : ""}`;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export type AppFileResult =
  { ok: true; file: string; contentType: string } | { ok: false; status: 400 | 403 | 404; reason: string };

const realpath = promisify(fs.realpath);
const stat = promisify(fs.stat);
const readFile = promisify(fs.readFile);

function refuse(status: 400 | 403 | 404, reason: string): AppFileResult {
  return { ok: false, status, reason };
}

/** The path segments of an `app://gatehouse/…` URL, decoded one by one, or why the URL is refused. */
export function appPathSegments(
  url: string,
): { ok: true; segments: string[] } | { ok: false; reason: string } {
  const prefix = `${APP_ORIGIN}/`;
  if (!url.toLowerCase().startsWith(prefix)) return { ok: false, reason: `not under ${prefix}` };
  const rawPath = url.slice(prefix.length).split(/[?#]/, 1)[0] ?? "";
  if (rawPath === "") return { ok: true, segments: [APP_INDEX] };
  const segments: string[] = [];
  for (const raw of rawPath.split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { ok: false, reason: "a malformed percent-escape" };
    }
    if (segment === "") return { ok: false, reason: "an empty path segment (absolute or doubled /)" };
    // An encoded separator, a drive letter or a control character would mean something else on disk.
    if (/[/\\:]/.test(segment)) return { ok: false, reason: "a path separator or drive inside a segment" };
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    if (/[\u0000-\u001f\u007f]/.test(segment)) return { ok: false, reason: "a control character" };
    if (segment === "." || segment === "..") return { ok: false, reason: "a . or .. segment" };
    if (segment.startsWith(".")) return { ok: false, reason: "a hidden file" };
    segments.push(segment);
  }
  return { ok: true, segments };
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** The file inside `root` that `url` names, after following links, or why it is refused. */
export async function resolveAppFile(url: string, root: string): Promise<AppFileResult> {
  const parsed = appPathSegments(url);
  if (!parsed.ok) return refuse(400, parsed.reason);
  const contentType = CONTENT_TYPES[path.extname(parsed.segments.at(-1) ?? "").toLowerCase()];
  if (!contentType) return refuse(404, "not a file type the renderer has");
  const candidate = path.join(root, ...parsed.segments);
  if (!isInside(root, candidate)) return refuse(403, "outside the renderer folder");
  let realRoot: string;
  let realFile: string;
  try {
    realRoot = await realpath(root);
    realFile = await realpath(candidate);
  } catch {
    return refuse(404, "no such file");
  }
  if (!isInside(realRoot, realFile)) return refuse(403, "a link leading outside the renderer folder");
  try {
    if (!(await stat(realFile)).isFile()) return refuse(404, "not a file");
  } catch {
    return refuse(404, "no such file");
  }
  return { ok: true, file: realFile, contentType };
}

const COMMON_HEADERS = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};

/** The `protocol.handle` handler serving the built renderer in `root`. */
export function appProtocolHandler(
  root: string,
  onRefused?: (url: string, reason: string) => void,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response(null, { status: 405, headers: { ...COMMON_HEADERS, Allow: "GET, HEAD" } });
    }
    const found = await resolveAppFile(request.url, root);
    if (!found.ok) {
      onRefused?.(request.url, found.reason);
      return new Response(null, { status: found.status, headers: COMMON_HEADERS });
    }
    const body = request.method === "HEAD" ? null : await readFile(found.file);
    return new Response(body, {
      status: 200,
      headers: { ...COMMON_HEADERS, "Content-Type": found.contentType },
    });
  };
}
