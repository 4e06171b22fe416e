// electron-builder.yml (issue 17): valid by electron-builder's own schema, and every hardening item of the
// packaged app is there — fuses (flipped through electron-builder's own mapping into a stand-in for the
// Electron binary's fuse wire, read back with @electron/fuses), the entry point, macOS entitlements
// without the library-validation opt-out, alert notifications, arm64 + x64, a .deb, the Windows icons'
// sizes, updates off until a feed is named.
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { APP_USER_MODEL_ID } from "../../../src/electron/shell.js";
import { trayIconFile, type TrayIcon } from "../../../src/electron/tray.js";
import { parseUpdateFeed, updateMode } from "../../../src/electron/update-policy.js";
import { REPO_ROOT } from "../../support/cli.js";

const require = createRequire(import.meta.url);

interface Target {
  target: string;
  arch: string[];
}
interface BuilderConfig {
  appId: string;
  directories: { buildResources: string };
  files: string[];
  extraMetadata: { main: string; homepage?: string };
  asar: boolean;
  electronFuses: Record<string, boolean>;
  mac: {
    target: Target[];
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
    extendInfo: Record<string, unknown>;
  };
  win: { icon: string; target: Target[] };
  linux: { target: Target[]; maintainer?: string };
  publish: unknown;
}

const config = parseYaml(
  fs.readFileSync(path.join(REPO_ROOT, "electron-builder.yml"), "utf8"),
) as BuilderConfig;
const ICO_SIZES = [16, 20, 24, 32, 48, 64, 256];

/** The keys of a plist's top-level dict whose value is <true/>. */
function plistTrueKeys(file: string): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), "utf8");
  return [...text.matchAll(/<key>([^<]+)<\/key>\s*<true\/>/g)].map((m) => m[1]!);
}

function targets(list: Target[]): Record<string, string[]> {
  return Object.fromEntries(list.map((t) => [t.target, [...t.arch].sort()]));
}

describe("electron-builder.yml", () => {
  it("is valid by electron-builder's own schema (26.x)", async () => {
    const { validateConfiguration } = require("app-builder-lib/out/util/config/config.js") as {
      validateConfiguration(config: unknown, logger: unknown): Promise<void>;
    };
    const { DebugLogger } = require("builder-util") as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(
      validateConfiguration(structuredClone(config), new DebugLogger(false)),
    ).resolves.toBeUndefined();
    const misspelt = structuredClone(config) as unknown as { electronFuses: Record<string, boolean> };
    misspelt.electronFuses.runAsNod = false;
    await expect(validateConfiguration(misspelt, new DebugLogger(false))).rejects.toThrow(/electronFuses/);
  });

  it("sets every fuse: no Node mode, no NODE_OPTIONS, no --inspect, asar integrity, asar only, encrypted cookies, no file:// privileges", () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
      loadBrowserProcessSpecificV8Snapshot: false,
    });
    expect(config.asar).toBe(true);
  });

  describe("the fuses electron-builder flips", () => {
    const SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";
    let dir: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fuses-"));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("land in the binary's fuse wire as configured (a stand-in file holding Electron's default wire)", async () => {
      // Electron's defaults, in wire order: RunAsNode on, cookie encryption off, NODE_OPTIONS on, --inspect
      // on, asar integrity off, asar only off, browser V8 snapshot off, file:// privileges on.
      const binary = path.join(dir, "gatehouse");
      fs.writeFileSync(
        binary,
        Buffer.concat([
          Buffer.from("\x7fELF…"),
          Buffer.from(SENTINEL),
          Buffer.from([1, 8]),
          Buffer.from("10110001"),
        ]),
      );
      const { PlatformPackager } = require("app-builder-lib") as {
        PlatformPackager: {
          prototype: { generateFuseConfig(fuses: unknown): Promise<Record<string, unknown>> };
        };
      };
      const fuses = require("@electron/fuses") as {
        flipFuses(file: string, config: Record<string, unknown>): Promise<unknown>;
        getCurrentFuseWire(file: string): Promise<Record<string, number>>;
        FuseV1Options: Record<string, number>;
      };
      const fuseConfig = await PlatformPackager.prototype.generateFuseConfig.call({}, config.electronFuses);
      await fuses.flipFuses(binary, { ...fuseConfig, strictlyRequireAllFuses: true });
      const wire = await fuses.getCurrentFuseWire(binary);
      const on = (name: string) => String.fromCharCode(wire[fuses.FuseV1Options[name]!]!);
      expect(on("RunAsNode")).toBe("0");
      expect(on("EnableCookieEncryption")).toBe("1");
      expect(on("EnableNodeOptionsEnvironmentVariable")).toBe("0");
      expect(on("EnableNodeCliInspectArguments")).toBe("0");
      expect(on("EnableEmbeddedAsarIntegrityValidation")).toBe("1");
      expect(on("OnlyLoadAppFromAsar")).toBe("1");
      expect(on("LoadBrowserProcessSpecificV8Snapshot")).toBe("0");
      expect(on("GrantFileProtocolExtraPrivileges")).toBe("0");
    });
  });

  it("starts the entry point that answers the agents' hook (packaged and in a development run), and it is built", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { main: string };
    expect(config.extraMetadata.main).toBe("dist/src/electron/entry.js");
    expect(pkg.main).toBe(config.extraMetadata.main);
    expect(fs.existsSync(path.join(REPO_ROOT, config.extraMetadata.main))).toBe(true);
    expect(config.files).toEqual(
      expect.arrayContaining(["dist/src/**/*", "renderer/dist/**/*", "assets/**/*"]),
    );
    // electron-builder never packs the build-resources folder: it must not be assets/ (the tray icons).
    expect(config.directories.buildResources).toBe("build");
  });

  it("the appId is the AppUserModelID the app sets on Windows", () => {
    expect(config.appId).toBe(APP_USER_MODEL_ID);
  });

  it("macOS: hardened runtime with only allow-jit (no library-validation opt-out), alert notifications, no Dock icon, arm64 and x64", () => {
    expect(config.mac.hardenedRuntime).toBe(true);
    for (const file of [config.mac.entitlements, config.mac.entitlementsInherit]) {
      expect(plistTrueKeys(file), file).toEqual(["com.apple.security.cs.allow-jit"]);
      expect(fs.readFileSync(path.join(REPO_ROOT, file), "utf8")).not.toMatch(
        /<key>[^<]*disable-library-validation/,
      );
    }
    expect(config.mac.extendInfo).toMatchObject({ LSUIElement: true, NSUserNotificationAlertStyle: "alert" });
    expect(targets(config.mac.target)).toEqual({ dmg: ["arm64", "x64"], zip: ["arm64", "x64"] });
  });

  it("Windows: an NSIS installer for x64 and arm64", () => {
    expect(targets(config.win.target)).toEqual({ nsis: ["arm64", "x64"] });
  });

  it("Linux: an AppImage and a .deb for x64 and arm64, with the Maintainer and Homepage a .deb requires", () => {
    expect(targets(config.linux.target)).toEqual({ AppImage: ["arm64", "x64"], deb: ["arm64", "x64"] });
    expect(config.linux.maintainer).toMatch(/^.+ <[^@\s]+@[^@\s]+>$/);
    expect(config.extraMetadata.homepage).toMatch(/^https:\/\//);
  });

  it("every Windows .ico (app and tray) holds 16, 20, 24, 32, 48, 64 and 256 px images of 32 bits", async () => {
    const { readIcoEntries } = (await import(path.join(REPO_ROOT, "scripts", "ico.mjs"))) as {
      readIcoEntries(
        buf: Buffer,
      ): Array<{ size: number; pixelSize: number; bitsPerPixel: number; format: string }>;
    };
    const icons = [
      config.win.icon,
      ...(["connected", "offline", "attention", "elevated", "elevated-attention"] as TrayIcon[]).map(
        (s) => `assets/tray/${trayIconFile(s, "win32")}`,
      ),
    ];
    for (const icon of icons) {
      const entries = readIcoEntries(fs.readFileSync(path.join(REPO_ROOT, icon)));
      expect(
        entries.map((e) => e.size),
        icon,
      ).toEqual(ICO_SIZES);
      for (const entry of entries) {
        expect(entry.pixelSize, `${icon} ${entry.size}`).toBe(entry.size);
        expect(entry.bitsPerPixel).toBe(32);
      }
    }
  });

  it("the committed .ico files are exactly what scripts/make-ico.mjs makes from the PNG artwork", async () => {
    const { ICO_SOURCES, icoFromPng } = (await import(path.join(REPO_ROOT, "scripts", "make-ico.mjs"))) as {
      ICO_SOURCES: Array<{ source: string; target: string }>;
      icoFromPng(png: Buffer, name?: string): Buffer;
    };
    const { readIcoImages } = (await import(path.join(REPO_ROOT, "scripts", "ico.mjs"))) as {
      readIcoImages(buf: Buffer): Array<{ size: number; rgba: Buffer }>;
    };
    expect(ICO_SOURCES.map((s) => s.target)).toContain(config.win.icon);
    // Pixels, not bytes: the 256 px entry is deflated, and another zlib may compress it differently.
    for (const { source, target } of ICO_SOURCES) {
      const made = readIcoImages(icoFromPng(fs.readFileSync(path.join(REPO_ROOT, source)), source));
      const committed = readIcoImages(fs.readFileSync(path.join(REPO_ROOT, target)));
      expect(
        committed.map((i) => i.size),
        target,
      ).toEqual(made.map((i) => i.size));
      committed.forEach((image, i) =>
        expect(image.rgba.equals(made[i]!.rgba), `${target} ${image.size}`).toBe(true),
      );
    }
  });

  it("updates are off until a feed is named: no app-update.yml is written, and the policy says so", () => {
    expect(config.publish).toBeNull();
    const feed = parseUpdateFeed(null);
    expect(feed.feed).toBeNull();
    for (const platform of ["darwin", "win32", "linux"] as const) {
      expect(updateMode({ platform, packaged: true, feed: null, updaterInstalled: true }).mode).toBe("off");
    }
  });
});
