import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checksumError,
  defaultSkillDownloadPath,
  resolvePackageUrl,
  sameOrigin,
  sha256Checksum,
} from "../../../src/core/capabilities/download.js";
import { downloadPackage } from "../../../src/device/package-download.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";

const url = (text: string, base: string | null) => {
  const r = resolvePackageUrl(text, base);
  return r.ok ? r.url.href : r.error;
};

describe("package URLs (device-protocol.md §7.3)", () => {
  it("builds the default skill path with the namespace form-encoded", () => {
    expect(defaultSkillDownloadPath(101, "default")).toBe(
      "/api/v1/kinds/skills/101/download?namespace=default",
    );
    expect(defaultSkillDownloadPath(7, "team a&x=y#z")).toBe(
      "/api/v1/kinds/skills/7/download?namespace=team+a%26x%3Dy%23z",
    );
  });

  it("joins a relative path to the backend URL keeping its path prefix", () => {
    expect(url("/api/x?y=1", "https://h.example/prefix")).toBe("https://h.example/prefix/api/x?y=1");
    expect(url("api/x", "https://h.example/prefix///")).toBe("https://h.example/prefix/api/x");
    expect(url("/api/x", "https://h.example")).toBe("https://h.example/api/x");
  });

  it("uses absolute http(s) URLs as given and refuses other schemes", () => {
    expect(url("https://bucket.s3.example/p.zip?sig=abc", "https://h.example")).toBe(
      "https://bucket.s3.example/p.zip?sig=abc",
    );
    expect(url("HTTP://Bucket.example/p.zip", null)).toBe("http://bucket.example/p.zip");
    expect(url("file:///etc/passwd", "https://h.example")).toBe(
      "Invalid capability URL: unsupported scheme file:",
    );
    expect(url("ftp://x/y", "https://h.example")).toBe("Invalid capability URL: unsupported scheme ftp:");
    expect(url("//evil.example/x", "https://h.example")).toMatch(/^Invalid capability URL: /);
    expect(url("/api/x", null)).toMatch(/^Invalid capability URL: /);
  });

  it("compares origins with default ports filled in", () => {
    expect(sameOrigin(new URL("https://h.example/a"), new URL("https://H.example:443/b"))).toBe(true);
    expect(sameOrigin(new URL("http://h.example/a"), new URL("http://h.example:80"))).toBe(true);
    expect(sameOrigin(new URL("http://h.example/a"), new URL("https://h.example"))).toBe(false);
    expect(sameOrigin(new URL("https://h.example:8443/a"), new URL("https://h.example"))).toBe(false);
  });

  it("checks the raw bytes' sha256 against the item's checksum exactly", () => {
    const bytes = Buffer.from("package");
    const good = sha256Checksum(bytes);
    expect(checksumError("plugin", undefined, bytes)).toBeNull();
    expect(checksumError("plugin", good, bytes)).toBeNull();
    expect(checksumError("plugin", "sha256:00", bytes)).toBe(
      `Plugin checksum mismatch: expected sha256:00, got ${good}`,
    );
    expect(checksumError("skill", "sha256:00", bytes)).toBe(
      `Skill checksum mismatch: expected sha256:00, got ${good}`,
    );
  });
});

describe("package downloads against a real HTTP server", () => {
  let server: PackageServer;
  beforeEach(async () => (server = await startPackageServer({ prefix: "/wegent" })));
  afterEach(async () => server.close());

  const get = (path: string, extra: Partial<Parameters<typeof downloadPackage>[0]> = {}) => {
    const resolved = resolvePackageUrl(path, server.backendUrl);
    if (!resolved.ok) throw new Error(resolved.error);
    return downloadPackage({
      url: resolved.url,
      backendUrl: server.backendUrl,
      token: server.token,
      fetch,
      ...extra,
    });
  };

  it("sends the device token to the backend's own origin and downloads the package", async () => {
    server.serve("/api/p.zip", Buffer.from("zip-bytes"));
    expect(await get("/api/p.zip")).toEqual({ ok: true, bytes: Buffer.from("zip-bytes") });
    expect(server.requests).toEqual([
      {
        origin: "backend",
        method: "GET",
        path: "/wegent/api/p.zip",
        authorization: `Bearer ${server.token}`,
      },
    ]);
  });

  it("never sends the token to another origin, directly or after a redirect", async () => {
    server.serve("/p.zip?sig=1", Buffer.from("presigned"), { origin: "presigned" });
    server.serve("/api/redirected", Buffer.alloc(0), { redirectTo: `${server.presignedOrigin}/p.zip?sig=1` });
    expect(await get(`${server.presignedOrigin}/p.zip?sig=1`)).toEqual({
      ok: true,
      bytes: Buffer.from("presigned"),
    });
    expect(await get("/api/redirected")).toEqual({ ok: true, bytes: Buffer.from("presigned") });
    const presigned = server.requests.filter((r) => r.origin === "presigned");
    expect(presigned).toHaveLength(2);
    for (const r of presigned) expect(r.authorization).toBeNull();
    expect(server.requests.find((r) => r.path === "/wegent/api/redirected")?.authorization).toBe(
      `Bearer ${server.token}`,
    );
  });

  it("follows at most 5 redirects", async () => {
    for (let i = 0; i < 6; i++)
      server.serve(`/api/r${i}`, Buffer.alloc(0), {
        redirectTo: `/wegent/api/r${i + 1}`,
        redirectStatus: 307,
      });
    server.serve("/api/r5", Buffer.from("five"));
    server.serve("/api/r6", Buffer.from("six"));
    expect(await get("/api/r0", { limits: { maxRedirects: 5 } })).toEqual({
      ok: true,
      bytes: Buffer.from("five"),
    });
    server.serve("/api/r5", Buffer.alloc(0), { redirectTo: "/wegent/api/r6" });
    expect(await get("/api/r0")).toEqual({
      ok: false,
      error: "Capability package download failed: too many redirects",
    });
  });

  it("reports non-2xx statuses, a refused token and network errors with the contract's wording", async () => {
    server.serve("/api/gone", Buffer.alloc(0), { status: 410 });
    server.serve("/api/p.zip", Buffer.from("x"));
    expect(await get("/api/gone")).toEqual({
      ok: false,
      error: "Capability package download failed with HTTP 410",
    });
    expect(await get("/api/missing")).toEqual({
      ok: false,
      error: "Capability package download failed with HTTP 404",
    });
    expect(await get("/api/p.zip", { token: "wrong" })).toEqual({
      ok: false,
      error: "Capability package download failed with HTTP 401",
    });
    const spare = http.createServer();
    await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
    const port = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    const closed = resolvePackageUrl(`http://127.0.0.1:${port}/x.zip`, null);
    if (!closed.ok) throw new Error(closed.error);
    const refused = await downloadPackage({ url: closed.url, backendUrl: null, token: null, fetch });
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(/^Capability package download failed: ECONNREFUSED/),
    });
  });

  it("gives up on a stalled response after the per-request timeout", async () => {
    server.serve("/api/slow", Buffer.from("slow body"), { stall: true });
    expect(await get("/api/slow", { limits: { timeoutMs: 300 } })).toEqual({
      ok: false,
      error: "Capability package download failed: timed out after 300 ms",
    });
  });

  it("refuses a body over the limit, declared or counted while reading", async () => {
    server.serve("/api/big", Buffer.alloc(2048, 1));
    server.serve("/api/big-chunked", Buffer.alloc(2048, 1), { chunked: true });
    expect(await get("/api/big", { limits: { maxBytes: 1024 } })).toEqual({
      ok: false,
      error: "Capability package is too large",
    });
    expect(await get("/api/big-chunked", { limits: { maxBytes: 1024 } })).toEqual({
      ok: false,
      error: "Capability package is too large",
    });
    expect(await get("/api/big-chunked", { limits: { maxBytes: 2048 } })).toMatchObject({ ok: true });
  });
});
