import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { environmentSettings } from "../../../src/core/settings.js";
import { createLogger } from "../../../src/core/log.js";
import { loadInheritSettings, secretTest } from "../../../src/executor/env-sources.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "gh-envset-"));
});
afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

const settingsWith = (inherit: unknown) => ({ version: 1 as const, environment: { inherit } });

describe("the environment.inherit setting", () => {
  it("accepts names and PREFIX* forms", () => {
    expect(environmentSettings(settingsWith(["JAVA_HOME", "AWS_*", "_X"]))).toEqual({
      ok: true,
      value: { inherit: ["JAVA_HOME", "AWS_*", "_X"] },
    });
    expect(environmentSettings({ version: 1 })).toEqual({ ok: true, value: { inherit: [] } });
  });

  it("refuses what is not a name or a prefix, with where and why", () => {
    for (const bad of ["*", "A*B", "1X", "A B", "X=1", "**"]) {
      const result = environmentSettings(settingsWith([bad]));
      expect(result).toEqual({
        ok: false,
        error: expect.stringMatching(/^environment\.inherit\.0: must be a variable name/),
      });
    }
  });

  it("refuses Gatehouse's secret and the shell's behaviour variables by name, saying why", () => {
    expect(environmentSettings(settingsWith(["WEGENT_AUTH_TOKEN"]))).toEqual({
      ok: false,
      error: expect.stringMatching(/WEGENT_AUTH_TOKEN is Gatehouse's own secret/),
    });
    for (const name of [
      "BASH_ENV",
      "ENV",
      "SHELLOPTS",
      "BASHOPTS",
      "POSIXLY_CORRECT",
      "GLOBIGNORE",
      "BASH_FUNC_x",
    ]) {
      expect(environmentSettings(settingsWith([name]))).toEqual({
        ok: false,
        error: expect.stringContaining(`${name} changes how bash reads a command`),
      });
    }
  });

  it("is read from the file per call; a missing file adds nothing, an invalid one adds nothing and says so", async () => {
    const file = path.join(dir, "settings.json");
    expect(await loadInheritSettings(file)).toEqual({ inherit: [] });
    await fs.writeFile(file, JSON.stringify(settingsWith(["JAVA_HOME"])));
    expect(await loadInheritSettings(file)).toEqual({ inherit: ["JAVA_HOME"] });
    await fs.writeFile(file, JSON.stringify(settingsWith(["BASH_ENV", "JAVA_HOME"])));
    expect(await loadInheritSettings(file)).toEqual({
      inherit: [],
      warning: expect.stringMatching(/BASH_ENV changes how bash.*only the built-in variables reach commands/),
    });
    await fs.writeFile(file, "{ not json");
    expect((await loadInheritSettings(file)).warning).toMatch(/is invalid/);
  });
});

describe("knowing a secret by its value", () => {
  it("finds the logger's registered secrets and the extra ones inside a value", () => {
    const logger = createLogger({ sink: () => undefined });
    logger.addSecret("registered-secret");
    const holds = secretTest(logger, ["socket-token-value", null, ""]);
    expect(holds("x registered-secret y")).toBe(true);
    expect(holds("socket-token-value")).toBe(true);
    expect(holds("/usr/bin:/bin")).toBe(false);
  });
});
