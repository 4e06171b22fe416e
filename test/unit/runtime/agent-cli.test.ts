import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  AGENT_CLI_SUPPORT,
  compareVersions,
  helpOptions,
  hookFormFor,
  parseAgentVersion,
  supportVerdict,
  versionLaunchArgs,
} from "../../../src/core/runtime/agent-cli.js";
import { REPO_ROOT } from "../../support/cli.js";

const SETTINGS = "/home/alice/.wegent-executor/settings.json";

describe("agent CLI versions", () => {
  it("reads the version each CLI prints, and nothing else", () => {
    expect(parseAgentVersion("claude-code", "2.1.332 (Claude Code)\n")).toBe("2.1.332");
    expect(parseAgentVersion("claude-code", "2.2.0-beta.3 (Claude Code)")).toBe("2.2.0-beta.3");
    expect(parseAgentVersion("codex", "codex-cli 0.171.0\n")).toBe("0.171.0");
    expect(parseAgentVersion("codex", "warning: something\ncodex-cli 0.169.0")).toBe("0.169.0");
    expect(parseAgentVersion("claude-code", "codex-cli 0.171.0")).toBeNull();
    expect(parseAgentVersion("codex", "2.1.332 (Claude Code)")).toBeNull();
    expect(parseAgentVersion("claude-code", "command not found")).toBeNull();
  });

  it("orders versions by their numbers, a pre-release before its release", () => {
    expect(compareVersions("2.1.197", "2.1.332")).toBe(-1);
    expect(compareVersions("2.1.1000", "2.1.332")).toBe(1);
    expect(compareVersions("0.171.0", "0.171.0")).toBe(0);
    expect(compareVersions("2.2.0-beta.1", "2.2.0")).toBe(-1);
    expect(compareVersions("2.2.0-beta.1", "2.1.332")).toBe(1);
  });

  it("runs a version inside the range, warns above it, refuses below it and an unreadable one", () => {
    const { oldest, newest } = AGENT_CLI_SUPPORT["claude-code"];
    expect(supportVerdict("claude-code", "/bin/claude", oldest, SETTINGS)).toEqual({
      status: "supported",
      runs: true,
      message: null,
    });
    expect(supportVerdict("claude-code", "/bin/claude", newest, SETTINGS).status).toBe("supported");

    const newer = supportVerdict("claude-code", "/bin/claude", "2.9.0", SETTINGS);
    expect(newer).toMatchObject({ status: "newer-than-tested", runs: true });
    expect(newer.message).toContain(`newer than the newest version Gatehouse was tested with (${newest})`);
    expect(newer.message).toContain(`npm install -g @anthropic-ai/claude-code@${newest}`);

    const old = supportVerdict("codex", "/bin/codex", "0.120.0", SETTINGS);
    expect(old).toMatchObject({ status: "too-old", runs: false });
    expect(old.message).toBe(
      `Codex 0.120.0 (/bin/codex) is older than the oldest version Gatehouse supports (${AGENT_CLI_SUPPORT.codex.oldest}), so it did not start it. Update it (npm install -g @openai/codex@${AGENT_CLI_SUPPORT.codex.newest}), or set agents.codexPath in ${SETTINGS} to a newer one.`,
    );

    const unknown = supportVerdict("codex", "/bin/codex", null, SETTINGS);
    expect(unknown).toMatchObject({ status: "unknown-version", runs: false });
    expect(unknown.message).toContain("could not tell which version of Codex /bin/codex is");
  });

  it("turns Claude Code's system prompt snapshot off only where the option exists", () => {
    const facts = (options: string[]) => ({
      runtime: "claude-code" as const,
      file: "/bin/claude",
      version: "2.1.332",
      options: new Set(options),
    });
    expect(versionLaunchArgs(facts(["--system-prompt-snapshot", "--resume"]))).toEqual([
      "--system-prompt-snapshot",
      "off",
    ]);
    expect(versionLaunchArgs(facts(["--resume"]))).toEqual([]);
    expect(versionLaunchArgs({ ...facts(["--system-prompt-snapshot"]), runtime: "codex" })).toEqual([]);
    expect(
      helpOptions(
        "Options:\n  -p, --print  Print\n  --system-prompt-snapshot <on|off>  Record\n  [--resume]",
      ),
    ).toEqual(new Set(["--print", "--system-prompt-snapshot", "--resume"]));
  });

  it("gives both CLIs the command hook, saying why", () => {
    for (const runtime of ["claude-code", "codex"] as const) {
      const form = hookFormFor({ runtime, version: AGENT_CLI_SUPPORT[runtime].newest });
      expect(form.form).toBe("command");
      expect(form.reason).toMatch(/PreToolUse command hook/);
    }
  });

  it("package.json pins the newest supported versions and docs/agent-clis.md shows the same table", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const docs = fs.readFileSync(path.join(REPO_ROOT, "docs", "agent-clis.md"), "utf8");
    for (const s of Object.values(AGENT_CLI_SUPPORT)) {
      expect(pkg.devDependencies[s.npmPackage]).toBe(s.newest);
      expect(docs).toContain(`| ${s.label} | \`${s.npmPackage}\` | ${s.oldest} | ${s.newest} |`);
    }
  });
});
