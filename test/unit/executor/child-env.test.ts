import { describe, expect, it } from "vitest";
import { RUNTIME_INHERIT } from "../../../src/core/env-rules.js";
import {
  buildAgentEnv,
  buildChildEnv,
  inheritedEnv,
  pathOverrideAllowed,
} from "../../../src/executor/child-env.js";

const linux = { platform: "linux" as const };

const runner = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  LC_TIME: "en_GB.UTF-8",
  WEGENT_AUTH_TOKEN: "device-token-0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  GITHUB_TOKEN: "gh-token",
  LD_PRELOAD: "/tmp/evil.so",
  NODE_OPTIONS: "--require /tmp/evil.js",
  DYLD_INSERT_LIBRARIES: "/tmp/evil.dylib",
  BASH_ENV: "/tmp/evil.sh",
  ENV: "/tmp/evil.sh",
  SHELLOPTS: "xtrace",
  "BASH_FUNC_echo%%": "() { touch /tmp/pwned; }",
  UNSET: undefined,
};

describe("the environment a child inherits", () => {
  it("is built from an allowlist of names, not the runner's whole environment", () => {
    const { env } = inheritedEnv(runner, linux);
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/u", LANG: "C.UTF-8", LC_TIME: "en_GB.UTF-8" });
  });

  it("adds the names and prefixes the user configured", () => {
    const { env } = inheritedEnv(runner, { ...linux, inherit: ["GITHUB_TOKEN", "AWS_*"] });
    expect(env.GITHUB_TOKEN).toBe("gh-token");
    expect(env.AWS_SECRET_ACCESS_KEY).toBe("aws-secret");
  });

  it("never passes Gatehouse's secrets or shell behaviour variables, whatever is configured", () => {
    const { env, dropped } = inheritedEnv(runner, {
      ...linux,
      inherit: ["WEGENT_*", "BASH_*", "LD_*", "NODE_*", "DYLD_*", "SHELL*", "E*"],
    });
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "LC_TIME", "PATH"]);
    expect(dropped.sort()).toEqual(
      [
        "BASH_ENV",
        "BASH_FUNC_echo%%",
        "DYLD_INSERT_LIBRARIES",
        "ENV",
        "LD_PRELOAD",
        "NODE_OPTIONS",
        "SHELLOPTS",
        "WEGENT_AUTH_TOKEN",
      ].sort(),
    );
  });

  it("drops a variable whose value holds a secret, by value", () => {
    const base = { ...runner, MY_COPY: "Bearer device-token-0123456789", OTHER: "x-socket-token-y" };
    const { env } = inheritedEnv(base, {
      ...linux,
      inherit: ["MY_COPY", "OTHER"],
      holdsSecret: (value) => value.includes("socket-token"),
    });
    expect(env).not.toHaveProperty("MY_COPY");
    expect(env).not.toHaveProperty("OTHER");
  });

  it("never passes an old-style exported function", () => {
    const { env } = inheritedEnv({ PATH: "/bin", HOME: "() { :; }; touch /tmp/x" }, linux);
    expect(env).toEqual({ PATH: "/bin" });
  });

  it("passes only C, POSIX and UTF-8 locales in the variables that choose how bash reads bytes", () => {
    const { env } = inheritedEnv(
      { PATH: "/bin", LANG: "zh_TW.Big5", LC_ALL: "zh_CN.GBK", LC_CTYPE: "C.UTF-8", LC_TIME: "zh_TW.Big5" },
      linux,
    );
    expect(env).toEqual({ PATH: "/bin", LC_CTYPE: "C.UTF-8", LC_TIME: "zh_TW.Big5" });
    const request = buildChildEnv({ PATH: "/bin" }, { LC_ALL: "ja_JP.SJIS", LANG: "en_US.UTF-8" }, linux);
    expect(request.requestEnv).toEqual({ LANG: "en_US.UTF-8" });
    expect(request.warnings).toEqual([
      expect.stringMatching(/^LC_ALL ignored: only C, POSIX and UTF-8 locales/),
    ]);
  });

  it("keeps the Windows essentials, case-insensitively", () => {
    const { env } = inheritedEnv(
      { Path: "C:\\Windows", SYSTEMROOT: "C:\\Windows", ComSpec: "cmd.exe", Node_Options: "x", Secret: "s" },
      { platform: "win32" },
    );
    expect(env).toEqual({ Path: "C:\\Windows", SYSTEMROOT: "C:\\Windows", ComSpec: "cmd.exe" });
  });
});

describe("a command's environment with a request's variables", () => {
  it("keeps the request's variables apart for the policy to judge", () => {
    const requested = { "BASH_FUNC_echo%%": "() { id; }", LD_PRELOAD: "/x.so", CI: "1" };
    const { env, requestEnv, warnings } = buildChildEnv({ PATH: "/usr/bin" }, requested, linux);
    expect(requestEnv).toEqual(requested);
    expect(env).toEqual({ PATH: "/usr/bin", ...requested });
    expect(warnings).toEqual([]);
  });

  it("ignores a request that names Gatehouse's secret or carries a secret value, and says so", () => {
    const { env, requestEnv, warnings } = buildChildEnv(
      runner,
      { WEGENT_AUTH_TOKEN: "mine", LEAK: "x device-token-0123456789 y", STOLEN: "the socket-token" },
      { ...linux, holdsSecret: (value) => value.includes("socket-token") },
    );
    expect(requestEnv).toEqual({});
    expect(env).not.toHaveProperty("WEGENT_AUTH_TOKEN");
    expect(env).not.toHaveProperty("LEAK");
    expect(warnings).toHaveLength(3);
    expect(warnings.join("\n")).not.toContain("device-token");
  });

  it("accepts a PATH override that only puts folders in front of the app's PATH, for the policy to judge", () => {
    const { env, requestEnv, warnings } = buildChildEnv(
      runner,
      { PATH: "/opt/tools/bin:/usr/bin:/bin" },
      linux,
    );
    expect(env.PATH).toBe("/opt/tools/bin:/usr/bin:/bin");
    expect(requestEnv).toEqual({ PATH: "/opt/tools/bin:/usr/bin:/bin" });
    expect(warnings).toEqual([]);
  });

  it("treats a PATH equal to the app's as no request at all", () => {
    const { requestEnv } = buildChildEnv(runner, { PATH: "/usr/bin:/bin" }, linux);
    expect(requestEnv).toEqual({});
  });

  it("ignores and reports a PATH override that replaces or reorders the app's PATH", () => {
    for (const PATH of ["/evil", "/bin:/usr/bin", "/opt/usr/bin:/bin"]) {
      const { env, dropped, warnings, requestEnv } = buildChildEnv(runner, { PATH }, linux);
      expect(env.PATH).toBe("/usr/bin:/bin");
      expect(requestEnv).toEqual({});
      expect(dropped).toContain("PATH");
      expect(warnings[0]).toMatch(/PATH override ignored/);
    }
  });

  it("treats variable names case-insensitively on Windows", () => {
    const { env } = buildChildEnv(
      { Path: "C:\\Windows", Node_Options: "x", ComSpec: "cmd.exe" },
      { PATH: "C:\\tools;C:\\Windows", comspec: "other" },
      { platform: "win32" },
    );
    expect(env).toEqual({ Path: "C:\\tools;C:\\Windows", comspec: "other" });
  });

  it("decides PATH overrides by whole entries", () => {
    expect(pathOverrideAllowed("/a:/usr/bin", "/usr/bin", ":")).toBe(true);
    expect(pathOverrideAllowed("/usr/bin", "/usr/bin", ":")).toBe(true);
    expect(pathOverrideAllowed("/x/usr/bin", "/usr/bin", ":")).toBe(false);
    expect(pathOverrideAllowed("/a", "", ":")).toBe(false);
  });
});

describe("an agent's environment", () => {
  const base = {
    ...runner,
    ANTHROPIC_API_KEY: "sk-ant",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    OPENAI_API_KEY: "sk-openai",
    FAKE_KEY: "scripted",
  };

  it("adds its runtime's own variables, and only its own", () => {
    const { env } = buildAgentEnv(
      base,
      { runtime: RUNTIME_INHERIT["claude-code"], spec: {}, launchSecrets: [] },
      linux,
    );
    expect(env).toMatchObject({ ANTHROPIC_API_KEY: "sk-ant", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" });
    expect(env).not.toHaveProperty("OPENAI_API_KEY");
    expect(env).not.toHaveProperty("FAKE_KEY");
    expect(env).not.toHaveProperty("WEGENT_AUTH_TOKEN");
  });

  it("adds what the user configured and the launch spec's variables, with the launch's own secrets", () => {
    const { env } = buildAgentEnv(
      base,
      {
        runtime: RUNTIME_INHERIT.codex,
        spec: { CODEX_HOME: "/x", GEMINI_API_KEY: "skill-key-123", WEGENT_AUTH_TOKEN: "t", BASH_ENV: "/e" },
        launchSecrets: ["skill-key-123"],
        fixed: { SHELL: "/bin/bash" },
      },
      { ...linux, inherit: ["FAKE_KEY"], holdsSecret: (value) => value === "skill-key-123" },
    );
    expect(env).toMatchObject({
      OPENAI_API_KEY: "sk-openai",
      FAKE_KEY: "scripted",
      CODEX_HOME: "/x",
      GEMINI_API_KEY: "skill-key-123",
      SHELL: "/bin/bash",
    });
    expect(env).not.toHaveProperty("WEGENT_AUTH_TOKEN");
    expect(env).not.toHaveProperty("BASH_ENV");
    expect(Object.values(env).join("\n")).not.toContain("device-token-0123456789");
  });

  it("refuses a launch spec value that holds another secret than the launch's own", () => {
    const { env } = buildAgentEnv(
      base,
      { runtime: [], spec: { X: "device-token-0123456789" }, launchSecrets: [] },
      linux,
    );
    expect(env).not.toHaveProperty("X");
  });
});
