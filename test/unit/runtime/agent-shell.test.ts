// The shell each runtime really runs (core/runtime/agent-shell.ts), ported from Claude Code 2.1.197 and
// 2.1.332 (their bundles) and codex-rs `shell.rs` (0.169.0, 0.171.0), and confirmed by running them: see
// docs/decisions.md "The dialect the runtime really runs". The probe stands for the machine.
import { describe, expect, it } from "vitest";
import {
  claudeCodeShells,
  codexShells,
  posixCandidates,
  type ShellFileState,
} from "../../../src/core/runtime/agent-shell.js";

/** A machine: listed paths are present executables, `changeable` ones could have changed, the rest absent. */
function machine(present: string[], changeable: string[] = []) {
  const asked: string[] = [];
  const probe = (file: string): ShellFileState => {
    asked.push(file);
    if (changeable.includes(file)) return "changeable";
    return present.includes(file) ? "present" : "absent";
  };
  return { probe, asked };
}

const LINUX = { platform: "linux" as const, loginShell: null };
const PATH = "/usr/local/bin:/usr/bin:/bin";
const BOTH = ["/usr/bin/bash", "/bin/bash", "/usr/bin/zsh", "/bin/zsh"];
const BASH_ONLY = ["/usr/bin/bash", "/bin/bash"];

describe("Claude Code's shell", () => {
  it("is zsh when SHELL names neither bash nor zsh, or is unset, and zsh is installed", () => {
    for (const SHELL of ["/usr/bin/fish", undefined, "", "/bin/sh"]) {
      const env = { PATH, ...(SHELL !== undefined ? { SHELL } : {}) };
      expect(claudeCodeShells({ ...LINUX, env, probe: machine(BOTH).probe }), String(SHELL)).toEqual(["zsh"]);
    }
  });

  it("is bash when SHELL names neither and no zsh is installed anywhere it looks", () => {
    const env = { PATH, SHELL: "/usr/bin/fish" };
    expect(claudeCodeShells({ ...LINUX, env, probe: machine(BASH_ONLY).probe })).toEqual(["bash"]);
  });

  it("is the shell SHELL names when it runs, and bash first when SHELL names bash", () => {
    expect(
      claudeCodeShells({ ...LINUX, env: { PATH, SHELL: "/bin/zsh" }, probe: machine(BOTH).probe }),
    ).toEqual(["zsh"]);
    expect(
      claudeCodeShells({ ...LINUX, env: { PATH, SHELL: "/bin/bash" }, probe: machine(BOTH).probe }),
    ).toEqual(["bash"]);
    // SHELL names bash, which is missing: bash first all the same, and zsh only without any bash
    const missing = { PATH, SHELL: "/opt/bash/bin/bash" };
    expect(claudeCodeShells({ ...LINUX, env: missing, probe: machine(BOTH).probe })).toEqual(["bash"]);
  });

  it("takes CLAUDE_CODE_SHELL first, and goes on looking when it does not run", () => {
    const env = { PATH, SHELL: "/usr/bin/zsh", CLAUDE_CODE_SHELL: "/bin/bash" };
    expect(claudeCodeShells({ ...LINUX, env, probe: machine(BOTH).probe })).toEqual(["bash"]);
    const gone = { PATH, SHELL: "/usr/bin/fish", CLAUDE_CODE_SHELL: "/nope/bash" };
    expect(claudeCodeShells({ ...LINUX, env: gone, probe: machine(BOTH).probe })).toEqual(["zsh"]);
    // a value naming neither is ignored, as Claude Code ignores it
    const other = { PATH, SHELL: "/bin/bash", CLAUDE_CODE_SHELL: "/usr/bin/fish" };
    expect(claudeCodeShells({ ...LINUX, env: other, probe: machine(BOTH).probe })).toEqual(["bash"]);
  });

  it("keeps every shell that may be the one chosen when a candidate could have changed since", () => {
    // ~/.local/bin is the user's: a zsh there may have been there when Claude Code chose
    const env = { PATH: `/home/u/.local/bin:${PATH}`, SHELL: "/usr/bin/fish" };
    const { probe } = machine(BASH_ONLY, ["/home/u/.local/bin/zsh"]);
    expect(claudeCodeShells({ ...LINUX, env, probe })).toEqual(["zsh", "bash"]);
    // a relative value is checked by running it, which the hook cannot repeat
    const relative = { PATH, SHELL: "/bin/bash", CLAUDE_CODE_SHELL: "zsh" };
    expect(claudeCodeShells({ ...LINUX, env: relative, probe: machine(BOTH).probe })).toEqual([
      "zsh",
      "bash",
    ]);
  });

  it("reads a named program by its file name: rbash and bash-5.2 are bash, anything else is unknown", () => {
    const rbash = { PATH, SHELL: "/bin/rbash" };
    expect(claudeCodeShells({ ...LINUX, env: rbash, probe: machine(["/bin/rbash", ...BOTH]).probe })).toEqual(
      ["bash"],
    );
    const odd = { PATH, SHELL: "/home/u/zsh-tools/fish" };
    const shells = claudeCodeShells({
      ...LINUX,
      env: odd,
      probe: machine(["/home/u/zsh-tools/fish", ...BOTH]).probe,
    });
    expect(shells).toEqual(["unknown"]);
    expect(posixCandidates(shells)).toBeNull();
  });

  it("counts both search orders where 2.1.197 and 2.1.332 differ (SHELL's folder says bash, its name zsh)", () => {
    const env = { PATH, SHELL: "/home/bash/bin/zsh" };
    // the named zsh is missing: 2.1.332 looks for zsh first, 2.1.197 for bash first
    expect(claudeCodeShells({ ...LINUX, env, probe: machine(BOTH).probe })).toEqual(["zsh", "bash"]);
  });

  it("stops looking at the first shell that is surely there", () => {
    const { probe, asked } = machine(BOTH);
    claudeCodeShells({ ...LINUX, env: { PATH, SHELL: "/bin/bash" }, probe });
    expect(asked).toEqual(["/bin/bash"]);
  });

  it("is unknown on Windows, where it runs Git Bash", () => {
    expect(
      claudeCodeShells({ platform: "win32", loginShell: null, env: {}, probe: machine([]).probe }),
    ).toEqual(["unknown"]);
  });
});

describe("Codex's shell", () => {
  it("is the login shell from the user database whatever SHELL says", () => {
    const env = { PATH, SHELL: "/bin/bash" };
    for (const login of ["/usr/bin/zsh", "/usr/local/Cellar/zsh/5.9/bin/zsh", "/tmp/zsh"]) {
      expect(codexShells({ platform: "linux", loginShell: login, env, probe: machine(BOTH).probe })).toEqual([
        "zsh",
      ]);
    }
    expect(
      codexShells({ platform: "linux", loginShell: "/bin/sh", env, probe: machine(BOTH).probe }),
    ).toEqual(["sh"]);
  });

  it("is bash (zsh first on macOS) when the login shell is one it does not know, then zsh, then /bin/sh", () => {
    const env = { PATH, SHELL: "/usr/bin/zsh" };
    for (const login of ["/usr/sbin/nologin", "/usr/bin/fish", "/bin/dash", null]) {
      expect(codexShells({ platform: "linux", loginShell: login, env, probe: machine(BOTH).probe })).toEqual([
        "bash",
      ]);
      expect(codexShells({ platform: "darwin", loginShell: login, env, probe: machine(BOTH).probe })).toEqual(
        ["zsh"],
      );
    }
    expect(codexShells({ platform: "linux", loginShell: null, env, probe: machine([]).probe })).toEqual([
      "sh",
    ]);
  });

  it("runs PowerShell (else cmd.exe) on Windows, which the hook cannot read", () => {
    const shells = codexShells({ platform: "win32", loginShell: null, env: {}, probe: machine([]).probe });
    expect(shells).toEqual(["powershell", "cmd"]);
    expect(posixCandidates(shells)).toBeNull();
    const pwsh = codexShells({
      platform: "linux",
      loginShell: "/usr/bin/pwsh",
      env: {},
      probe: machine([]).probe,
    });
    expect(posixCandidates(pwsh)).toBeNull();
  });
});
