import { describe, expect, it } from "vitest";
import { buildChildEnv, pathOverrideAllowed } from "../../../src/executor/child-env.js";

const base = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  LD_PRELOAD: "/tmp/evil.so",
  NODE_OPTIONS: "--require /tmp/evil.js",
  DYLD_INSERT_LIBRARIES: "/tmp/evil.dylib",
  UNSET: undefined,
};

describe("child environment", () => {
  it("removes loader and interpreter variables from the app's environment", () => {
    const { env, dropped } = buildChildEnv(base, undefined, "linux");
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/u" });
    expect(dropped.sort()).toEqual(["DYLD_INSERT_LIBRARIES", "LD_PRELOAD", "NODE_OPTIONS"]);
  });

  it("removes the same variables when a request asks for them", () => {
    const requested = {
      LD_LIBRARY_PATH: "/x",
      PYTHONPATH: "/x",
      PYTHONHOME: "/x",
      PERL5LIB: "/x",
      PERL5OPT: "-x",
      RUBYOPT: "-x",
      NODE_OPTIONS: "--inspect",
      FOO: "bar",
    };
    const { env, dropped } = buildChildEnv({ PATH: "/usr/bin" }, requested, "linux");
    expect(env).toEqual({ PATH: "/usr/bin", FOO: "bar" });
    expect(dropped).toHaveLength(7);
  });

  it("refuses request variables the policy would flag as dangerous assignments, and says so", () => {
    const requested = { BASH_ENV: "/tmp/evil.sh", GIT_SSH_COMMAND: "sh -c evil", PAGER: "evil", CI: "1" };
    const { env, dropped, warnings } = buildChildEnv({ PATH: "/usr/bin", PAGER: "less" }, requested, "linux");
    expect(env).toEqual({ PATH: "/usr/bin", PAGER: "less", CI: "1" });
    expect(dropped.sort()).toEqual(["BASH_ENV", "GIT_SSH_COMMAND", "PAGER"]);
    expect(warnings).toHaveLength(3);
  });

  it("accepts a PATH override that only puts folders in front of the app's PATH", () => {
    const { env, warnings } = buildChildEnv(base, { PATH: "/opt/tools/bin:/usr/bin:/bin" }, "linux");
    expect(env.PATH).toBe("/opt/tools/bin:/usr/bin:/bin");
    expect(warnings).toEqual([]);
  });

  it("ignores and reports a PATH override that replaces or reorders the app's PATH", () => {
    for (const PATH of ["/evil", "/bin:/usr/bin", "/opt/usr/bin:/bin"]) {
      const { env, dropped, warnings } = buildChildEnv(base, { PATH }, "linux");
      expect(env.PATH).toBe("/usr/bin:/bin");
      expect(dropped).toContain("PATH");
      expect(warnings[0]).toMatch(/PATH override ignored/);
    }
  });

  it("treats variable names case-insensitively on Windows", () => {
    const { env } = buildChildEnv(
      { Path: "C:\\Windows", Node_Options: "x", ComSpec: "cmd.exe" },
      { PATH: "C:\\tools;C:\\Windows", comspec: "other" },
      "win32",
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
