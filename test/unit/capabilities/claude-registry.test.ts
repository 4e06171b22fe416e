import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  claudeFilePaths,
  ClaudeRegistryPatch,
  loadClaudeFiles,
  writeClaudeFiles,
  type ClaudeFilePaths,
} from "../../../src/core/capabilities/io/claude-registry.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let files: ClaudeFilePaths;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-registry-");
  files = claudeFilePaths(t.paths.claudeHome);
  await fs.mkdir(path.dirname(files.registry), { recursive: true });
});
afterEach(async () => t.cleanup());

const T1 = new Date("2026-05-27T02:29:17.000Z");
const T2 = new Date("2026-05-28T10:00:00.000Z");
const userEntry = {
  scope: "user",
  installPath: "/somewhere/user-plugin",
  version: "3.1",
  installedAt: "2025-01-01T00:00:00.000Z",
  gitCommitSha: "abc",
};
const install = (version = "1.0.0", packageChanged = true) => ({
  installPath: `${t.paths.claudeHome}/plugins/cache/mp/ctx/${version}`,
  version,
  packageChanged,
});

describe("Claude plugin registry and enabledPlugins (device-protocol.md §7.7, §11)", () => {
  it("adds a managed key while every other key and entry keeps its place and bytes", async () => {
    await fs.writeFile(
      files.registry,
      JSON.stringify({
        version: 2,
        plugins: { "user@theirs": [userEntry], "other@x": [] },
        extra: { keep: true },
      }),
      { mode: 0o640 },
    );
    await fs.writeFile(files.settings, '{"model":"opus","enabledPlugins":{"user@theirs":true},"hooks":{}}');
    const patch = new ClaudeRegistryPatch();
    patch.setPlugin("ctx@mp", install());
    patch.setEnabled("ctx@mp", true);
    expect(await writeClaudeFiles(files, patch, T1)).toEqual({
      ok: true,
      value: { registryWritten: true, settingsWritten: true },
    });
    const text = await fs.readFile(files.registry, "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "version": 2,\n');
    expect(JSON.parse(text)).toEqual({
      version: 2,
      plugins: {
        "user@theirs": [userEntry],
        "other@x": [],
        "ctx@mp": [
          {
            scope: "user",
            installPath: install().installPath,
            version: "1.0.0",
            installedAt: "2026-05-27T02:29:17.000Z",
            lastUpdated: "2026-05-27T02:29:17.000Z",
          },
        ],
      },
      extra: { keep: true },
    });
    expect(Object.keys(JSON.parse(text) as object)).toEqual(["version", "plugins", "extra"]);
    expect((await fs.stat(files.registry)).mode & 0o777).toBe(0o640); // existing mode kept
    expect(JSON.parse(await fs.readFile(files.settings, "utf8"))).toEqual({
      model: "opus",
      enabledPlugins: { "user@theirs": true, "ctx@mp": true },
      hooks: {},
    });
    expect(await fs.readdir(path.dirname(files.registry))).toEqual(["installed_plugins.json"]); // no temp files left
  });

  it("creates both files when absent, 0600, and does not write again when nothing changed", async () => {
    const patch = new ClaudeRegistryPatch();
    patch.setPlugin("ctx@mp", install());
    patch.setEnabled("ctx@mp", false);
    await writeClaudeFiles(files, patch, T1);
    expect((await fs.stat(files.registry)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await fs.readFile(files.settings, "utf8"))).toEqual({
      enabledPlugins: { "ctx@mp": false },
    });
    const before = [await fs.stat(files.registry), await fs.stat(files.settings)];
    const again = new ClaudeRegistryPatch();
    again.setPlugin("ctx@mp", install("1.0.0", false));
    again.setEnabled("ctx@mp", false);
    expect(await writeClaudeFiles(files, again, T2)).toEqual({
      ok: true,
      value: { registryWritten: false, settingsWritten: false },
    });
    const after = [await fs.stat(files.registry), await fs.stat(files.settings)];
    expect(after.map((s) => s.ino)).toEqual(before.map((s) => s.ino));
  });

  it("keeps installedAt and moves lastUpdated only when the version or package changed", async () => {
    const first = new ClaudeRegistryPatch();
    first.setPlugin("ctx@mp", install("1.0.0"));
    await writeClaudeFiles(files, first, T1);
    const update = new ClaudeRegistryPatch();
    update.setPlugin("ctx@mp", install("2.0.0", false));
    await writeClaudeFiles(files, update, T2);
    const entry = (
      JSON.parse(await fs.readFile(files.registry, "utf8")) as {
        plugins: Record<string, Record<string, string>[]>;
      }
    ).plugins["ctx@mp"]?.[0];
    expect(entry).toMatchObject({
      version: "2.0.0",
      installedAt: T1.toISOString(),
      lastUpdated: T2.toISOString(),
    });
  });

  it("removes only the managed key from both files", async () => {
    await fs.writeFile(
      files.registry,
      JSON.stringify({ version: 2, plugins: { "user@theirs": [userEntry], "ctx@mp": [{}] } }, null, 2) + "\n",
    );
    await fs.writeFile(
      files.settings,
      JSON.stringify({ enabledPlugins: { "ctx@mp": true, "user@theirs": false } }, null, 2) + "\n",
    );
    const patch = new ClaudeRegistryPatch();
    patch.removePlugin("ctx@mp");
    await writeClaudeFiles(files, patch, T1);
    expect(await fs.readFile(files.registry, "utf8")).toBe(
      JSON.stringify({ version: 2, plugins: { "user@theirs": [userEntry] } }, null, 2) + "\n",
    );
    expect(await fs.readFile(files.settings, "utf8")).toBe(
      JSON.stringify({ enabledPlugins: { "user@theirs": false } }, null, 2) + "\n",
    );
  });

  it("re-reads the file just before writing, so a change made meanwhile survives", async () => {
    await fs.writeFile(files.registry, JSON.stringify({ version: 2, plugins: {} }));
    const loaded = await loadClaudeFiles(files);
    expect(loaded.ok).toBe(true);
    await fs.writeFile(files.registry, JSON.stringify({ version: 2, plugins: { "new@user": [userEntry] } }));
    const patch = new ClaudeRegistryPatch();
    patch.setPlugin("ctx@mp", install());
    await writeClaudeFiles(files, patch, T1);
    expect(
      Object.keys((JSON.parse(await fs.readFile(files.registry, "utf8")) as { plugins: object }).plugins),
    ).toEqual(["new@user", "ctx@mp"]);
  });

  it("refuses invalid JSON and registry versions other than 2 and leaves the files untouched", async () => {
    await fs.writeFile(files.registry, "{ not json");
    const invalid = await loadClaudeFiles(files);
    expect(invalid).toEqual({
      ok: false,
      error: expect.stringMatching(new RegExp(`^Invalid Claude config ${files.registry}: `)),
    });
    await fs.writeFile(files.registry, JSON.stringify({ version: 1, plugins: {} }));
    expect(await loadClaudeFiles(files)).toEqual({
      ok: false,
      error: `Unsupported Claude plugin registry ${files.registry}`,
    });
    await fs.writeFile(files.registry, JSON.stringify({ version: 2, plugins: {} }));
    await fs.writeFile(files.settings, "[1, 2]");
    expect(await loadClaudeFiles(files)).toEqual({
      ok: false,
      error: `Invalid Claude config ${files.settings}: not a JSON object`,
    });
    const patch = new ClaudeRegistryPatch();
    patch.setEnabled("ctx@mp", true);
    expect((await writeClaudeFiles(files, patch, T1)).ok).toBe(false);
    expect(await fs.readFile(files.settings, "utf8")).toBe("[1, 2]");
  });

  it("writes through a settings.json that the user keeps as a link into a dotfiles folder", async () => {
    const dotfiles = path.join(t.home, "dotfiles", "claude-settings.json");
    await fs.mkdir(path.dirname(dotfiles), { recursive: true });
    await fs.writeFile(dotfiles, '{"theme":"dark"}');
    await fs.symlink(dotfiles, files.settings);
    const patch = new ClaudeRegistryPatch();
    patch.setEnabled("ctx@mp", true);
    await writeClaudeFiles(files, patch, T1);
    expect((await fs.lstat(files.settings)).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await fs.readFile(dotfiles, "utf8"))).toEqual({
      theme: "dark",
      enabledPlugins: { "ctx@mp": true },
    });
  });
});
