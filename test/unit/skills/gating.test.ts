// skills.md §13 cases 12–17 and the rest of §5 (engine level).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../../src/core/skills/index.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

const userSkill = (name: string, fields: Record<string, string>) =>
  f.skill(path.join(f.H, ".claude/skills", name), { name, description: "D", ...fields });

async function entry(
  name: string,
  options: { env?: Record<string, string>; workspace?: string; platform?: string } = {},
): Promise<SkillEntry> {
  const engine = f.engine({ env: options.env ?? f.env, platform: options.platform ?? "darwin" });
  const found = (await engine.buildCatalogue({ workspace: options.workspace })).skills.find(
    (e) => e.name === name,
  );
  if (!found) throw new Error(`no entry ${name}`);
  return found;
}

describe("gating", () => {
  it("case 12: every missing binary is a reason, in declared order", async () => {
    await userSkill("bins", { metadata: '{"openclaw":{"requires":{"bins":["uv","nope-bin"]}}}' });
    expect(await entry("bins")).toMatchObject({ eligible: false, reasons: ["missing binary: nope-bin"] });
    expect((await entry("bins", { env: { ...f.env, PATH: "" } })).reasons).toEqual([
      "missing binary: uv",
      "missing binary: nope-bin",
    ]);
  });

  it("case 13: anyBins needs one binary of the list", async () => {
    await userSkill("any-ok", { metadata: '{"openclaw":{"requires":{"anyBins":["nope-bin","uv"]}}}' });
    await userSkill("any-none", { metadata: '{"openclaw":{"requires":{"anyBins":["nope-a","nope-b"]}}}' });
    expect((await entry("any-ok")).eligible).toBe(true);
    expect((await entry("any-none")).reasons).toEqual(["missing binary: one of nope-a, nope-b"]);
  });

  it("a binary must be an executable regular file; a path with ~ is checked as a path", async () => {
    await fs.writeFile(path.join(f.binDir, "plain"), "not executable", { mode: 0o644 });
    await fs.mkdir(path.join(f.binDir, "folder"));
    await userSkill("modes", {
      metadata: '{"openclaw":{"requires":{"bins":["plain","folder","~/bin/uv"]}}}',
    });
    expect((await entry("modes")).reasons).toEqual(["missing binary: plain", "missing binary: folder"]);
  });

  it("on Windows PATHEXT extensions are tried and names compared without regard to case", async () => {
    await fs.writeFile(path.join(f.binDir, "Tool.EXE"), "MZ");
    await userSkill("win", { metadata: '{"openclaw":{"requires":{"bins":["tool","uv"]}}}' });
    const env = { HOME: f.H, Path: f.binDir, PATHEXT: ".COM;.EXE" };
    // `uv` has no extension from PATHEXT, so on Windows it is not a runnable program.
    expect((await entry("win", { env, platform: "win32" })).reasons).toEqual(["missing binary: uv"]);
  });

  it("case 14: a variable is available from the environment, or from settings when the winner may use them", async () => {
    const meta = '{"moltbot":{"requires":{"env":["GEMINI_API_KEY"]},"primaryEnv":"GEMINI_API_KEY"}}';
    await userSkill("nano-banana-pro", { metadata: meta });
    expect((await entry("nano-banana-pro")).reasons).toEqual(["missing env: GEMINI_API_KEY"]);

    f.secrets.values.set("ref-gemini", "secret-gemini-value");
    await f.settings({ entries: { "nano-banana-pro": { apiKey: "ref-gemini" } } });
    const withKey = await entry("nano-banana-pro");
    expect(withKey.eligible).toBe(true);
    expect(withKey.details.config).toEqual({
      enabled: null,
      env_names: [],
      api_key_set: true,
      allow_workspace: false,
    });
    expect(JSON.stringify(withKey)).not.toContain("secret-gemini-value");

    await f.settings({});
    expect((await entry("nano-banana-pro", { env: { ...f.env, GEMINI_API_KEY: "x" } })).eligible).toBe(true);

    await f.settings({ entries: { "nano-banana-pro": { apiKey: "ref-gemini" } } });
    await f.skill(path.join(f.WS, "skills/nano-banana-pro"), {
      name: "nano-banana-pro",
      description: "WS",
      metadata: meta,
    });
    const wsWinner = await entry("nano-banana-pro", { workspace: f.WS });
    expect(wsWinner).toMatchObject({ source: "workspace", reasons: ["missing env: GEMINI_API_KEY"] });

    await f.settings({ entries: { "nano-banana-pro": { apiKey: "ref-gemini", allow_workspace: true } } });
    expect((await entry("nano-banana-pro", { workspace: f.WS })).eligible).toBe(true);
  });

  it("an env value from settings makes a variable available; an empty environment value does not", async () => {
    await userSkill("envy", { metadata: '{"openclaw":{"requires":{"env":["TOKEN_A","TOKEN_B"]}}}' });
    f.secrets.values.set("ref-a", "value-a");
    await f.settings({ entries: { envy: { env: { TOKEN_A: "ref-a", TOKEN_B: "ref-unset" } } } });
    const result = await entry("envy", { env: { ...f.env, TOKEN_B: "" } });
    expect(result.reasons).toEqual(["missing env: TOKEN_B"]);
    expect(result.details.config.env_names).toEqual(["TOKEN_A", "TOKEN_B"]);
  });

  it("case 15: always skips the requirements but not the OS check", async () => {
    await userSkill("always", { metadata: '{"clawdbot":{"always":true,"requires":{"env":["MISSING"]}}}' });
    await userSkill("windows-only", { metadata: '{"openclaw":{"always":true,"os":["win32"]}}' });
    expect((await entry("always")).eligible).toBe(true);
    expect((await entry("windows-only")).reasons).toEqual(["unsupported OS: darwin (supports win32)"]);
  });

  it("os aliases macos and windows are understood; unknown values are warned about", async () => {
    await userSkill("mac", { metadata: '{"openclaw":{"os":["macos","beos"]}}' });
    const mac = await entry("mac");
    expect(mac.eligible).toBe(true);
    expect(mac.warnings).toEqual(["unknown os value: beos"]);
    expect((await entry("mac", { platform: "linux" })).reasons).toEqual([
      "unsupported OS: linux (supports darwin, beos)",
    ]);
  });

  it("case 16: openclaw wins over moltbot, with a warning", async () => {
    await userSkill("alias", { metadata: '{"openclaw":{"requires":{"bins":["nope-bin"]}},"moltbot":{}}' });
    expect(await entry("alias")).toMatchObject({
      reasons: ["missing binary: nope-bin"],
      warnings: ["several metadata keys; using openclaw"],
    });
  });

  it("case 17: settings exclude, disable (also through skillKey) or turn off skills", async () => {
    await userSkill("demo", {});
    await userSkill("keyed", { metadata: '{"openclaw":{"skillKey":"alias"}}' });
    await f.settings({ excluded: ["demo"] });
    expect((await entry("demo")).reasons).toEqual(["excluded in settings"]);
    await f.settings({ entries: { demo: { enabled: false } } });
    expect((await entry("demo")).reasons).toEqual(["disabled in settings"]);
    await f.settings({ entries: { alias: { enabled: false } } });
    expect(await entry("keyed")).toMatchObject({ reasons: ["disabled in settings"] });
    expect((await entry("keyed")).details.config_key).toBe("alias");

    await f.settings({ enabled: false, excluded: ["demo"] });
    const catalogue = await f.engine().buildCatalogue({});
    for (const e of catalogue.skills.filter((s) => s.valid))
      expect(e.reasons[0]).toBe("skills turned off in settings");
    expect(catalogue.skills.find((s) => s.name === "demo")?.reasons).toEqual([
      "skills turned off in settings",
      "excluded in settings",
    ]);
    expect(catalogue.enabled).toBe(false);
    expect(catalogue.index).toEqual({ count: 0, cost_chars: 0, cost_tokens: 0 });
  });

  it("requires.config needs a truthy value at the dotted path of the settings file", async () => {
    await userSkill("configured", {
      metadata: '{"openclaw":{"requires":{"config":["browser.enabled","browser.profile","ui.zero"]}}}',
    });
    await f.settings({}, { browser: { enabled: true, profile: "" }, ui: { zero: 0 } });
    expect((await entry("configured")).reasons).toEqual([
      "config not set: browser.profile",
      "config not set: ui.zero",
    ]);
  });

  it("every check runs and every failure is recorded in order", async () => {
    await userSkill("everything", {
      metadata:
        '{"openclaw":{"os":["linux"],"requires":{"bins":["nope-bin"],"anyBins":["nope-a"],"env":["NOPE"],"config":["x.y"]}}}',
    });
    await f.settings({ excluded: ["everything"], entries: { everything: { enabled: false } } });
    expect((await entry("everything")).reasons).toEqual([
      "excluded in settings",
      "disabled in settings",
      "unsupported OS: darwin (supports linux)",
      "missing binary: nope-bin",
      "missing binary: one of nope-a",
      "missing env: NOPE",
      "config not set: x.y",
    ]);
  });

  it("invalid skill settings are a clear error that names the file and the field", async () => {
    await f.settings({ max_active: 50 });
    await expect(f.engine().buildCatalogue({})).rejects.toThrow(
      /settings\.json is invalid: skills\.max_active/,
    );
  });
});
