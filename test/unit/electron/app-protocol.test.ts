// The app's scheme (app://gatehouse/) against real files in a temp folder: the built renderer is
// served with the CSP; every way out of that folder is refused, and a secret beside it never leaves.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  APP_SCHEME_PRIVILEGES,
  appPageUrl,
  appPathSegments,
  appProtocolHandler,
  resolveAppFile,
} from "../../../src/electron/app-protocol.js";
import { CONTENT_SECURITY_POLICY } from "../../../src/electron/security.js";

let base: string;
let root: string;
const SECRET = "token=s3cret-outside-the-bundle";

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-protocol-"));
  root = path.join(base, "renderer", "dist");
  fs.mkdirSync(path.join(root, "assets"), { recursive: true });
  fs.writeFileSync(path.join(root, "index.html"), "<!doctype html><title>Gatehouse</title>");
  fs.writeFileSync(path.join(root, "assets", "index-abc.js"), "export const ok = 1;");
  fs.writeFileSync(path.join(root, "assets", "index-abc.css"), "body{}");
  fs.writeFileSync(path.join(root, "assets", "my file.js"), "export {};");
  fs.writeFileSync(path.join(base, "secret.txt"), SECRET);
  fs.writeFileSync(path.join(base, "renderer", "secret.js"), SECRET);
  // A sibling folder whose name starts like the bundle's: a prefix check would let it through.
  fs.mkdirSync(path.join(base, "renderer", "dist-evil"));
  fs.writeFileSync(path.join(base, "renderer", "dist-evil", "x.js"), SECRET);
  fs.writeFileSync(path.join(root, ".env.js"), SECRET);
  fs.symlinkSync(path.join(base, "secret.txt"), path.join(root, "assets", "leak.txt"));
  fs.symlinkSync(base, path.join(root, "up"));
  fs.symlinkSync(path.join(root, "assets", "index-abc.js"), path.join(root, "alias.js"));
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

const handler = () => appProtocolHandler(root);
const get = (url: string, method = "GET") => handler()(new Request(url, { method }));

describe("the app:// scheme", () => {
  it("serves the built renderer with its type, the CSP and nosniff", async () => {
    const page = await get(appPageUrl("approval"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await page.text()).toContain("<title>Gatehouse</title>");

    const script = await get("app://gatehouse/assets/index-abc.js?v=1");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toBe("export const ok = 1;");
    expect((await get("app://gatehouse/assets/index-abc.css")).headers.get("content-type")).toContain(
      "text/css",
    );
    expect((await get("app://gatehouse/assets/my%20file.js")).status).toBe(200);
    expect((await get("app://gatehouse/")).status).toBe(200);
  });

  it("a link that stays inside the bundle is followed", async () => {
    const alias = await get("app://gatehouse/alias.js");
    expect(alias.status).toBe(200);
    expect(await alias.text()).toBe("export const ok = 1;");
  });

  it("refuses every way out of the bundle, and the secret beside it never appears", async () => {
    const attempts = [
      "app://gatehouse/../secret.txt",
      "app://gatehouse/../../secret.txt",
      "app://gatehouse/assets/../../secret.js",
      "app://gatehouse/%2e%2e/secret.js",
      "app://gatehouse/..%2fsecret.js",
      "app://gatehouse/..%2F..%2Fsecret.txt",
      "app://gatehouse/%2e%2e%2f%2e%2e%2fsecret.txt",
      "app://gatehouse/..%5csecret.js",
      "app://gatehouse/assets%2f..%2f..%2fsecret.js",
      "app://gatehouse/%252e%252e/secret.js",
      "app://gatehouse//etc/passwd",
      `app://gatehouse/${encodeURIComponent(path.join(base, "secret.txt"))}`,
      `app://gatehouse/${path.join(base, "secret.txt").replace(/^\//, "")}`,
      "app://gatehouse/C:/Windows/win.ini",
      "app://gatehouse/assets/leak.txt",
      "app://gatehouse/up/secret.txt",
      "app://gatehouse/up/renderer/secret.js",
      "app://gatehouse/.env.js",
      "app://gatehouse/index.html%00.js",
      "app://gatehouse/%E0%A4%A",
      "app://gatehouse/../dist-evil/x.js",
      "app://evil/index.html",
      "app://gatehouse.evil/index.html",
      "file:///etc/passwd",
    ];
    for (const url of attempts) {
      const response = await get(url);
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(await response.text(), url).not.toContain("s3cret");
    }
  });

  it("says why the raw URL is refused before touching the disk", () => {
    expect(appPathSegments("app://gatehouse/..%2fsecret.js")).toEqual({
      ok: false,
      reason: "a path separator or drive inside a segment",
    });
    expect(appPathSegments("app://gatehouse/a/../b.js")).toEqual({ ok: false, reason: "a . or .. segment" });
    expect(appPathSegments("app://gatehouse//etc/passwd")).toMatchObject({ ok: false });
    expect(appPathSegments("app://other/index.html")).toMatchObject({ ok: false });
    expect(appPathSegments("app://gatehouse/assets/x.js#frag")).toEqual({
      ok: true,
      segments: ["assets", "x.js"],
    });
  });

  it("a link out of the bundle is refused as such, and a missing file is a 404", async () => {
    expect(await resolveAppFile("app://gatehouse/assets/leak.txt", root)).toEqual({
      ok: false,
      status: 403,
      reason: "a link leading outside the renderer folder",
    });
    expect(await resolveAppFile("app://gatehouse/assets/none.js", root)).toMatchObject({
      ok: false,
      status: 404,
    });
    expect(await resolveAppFile("app://gatehouse/assets", root)).toMatchObject({ ok: false, status: 404 });
  });

  it("only GET and HEAD are answered; HEAD has no body", async () => {
    expect((await get(appPageUrl(), "POST")).status).toBe(405);
    const head = await get(appPageUrl(), "HEAD");
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("the scheme is a secure standard origin that cannot bypass the CSP or run service workers", () => {
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({
      standard: true,
      secure: true,
      bypassCSP: false,
      allowServiceWorkers: false,
    });
  });
});
