// `gatehouse hook install|uninstall claude|codex`: the gate for the user's own sessions (issue 29 item 3).
// Through the real CLI: the user's settings.json keeps everything it had, gets one entry, is kept as it
// was beside it, and a second install changes nothing; invalid settings change nothing. Then a real
// Claude Code session of the user's own (no Gatehouse task, no --settings) as uid 65534 in a home that
// user owns: with the hook installed and no policy chosen, `touch` is blocked; uninstalled, it runs —
// the attack is real.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE, HAVE_CLAUDE } from "../../support/agent-clis.js";
import { GATEHOUSE_BIN, runCli } from "../../support/cli.js";
import { OTHER_UID, otherUserUnavailable, runProgramAsOtherUser } from "../../support/other-user.js";
import {
  startScriptedAnthropic,
  toolResultsOf,
  type ScriptedAnthropic,
  claudeEnvFor,
} from "../../support/scripted-anthropic.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { makeJail, type Jail } from "../runtime-path/jail.js";

let t: TempHome | undefined;
let jail: Jail | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await t?.cleanup();
  await jail?.cleanup();
  await api?.close();
  t = jail = api = undefined;
});

interface Report {
  runtime: string;
  form: string;
  reason: string;
  file: string;
  changed: boolean;
  backup: string | null;
  instructions: string | null;
}

const USERS_OWN = {
  model: "their-choice",
  permissions: { allow: ["Bash(ls:*)"] },
  hooks: {
    PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "/usr/local/bin/their-lint" }] }],
  },
};

describe("gatehouse hook install claude", () => {
  it("adds one entry to the user's settings.json, keeps the rest and the file as it was, and is idempotent; uninstall removes only it", async () => {
    t = await makeTempHome();
    const file = path.join(t.home, ".claude", "settings.json");
    await fs.mkdir(path.dirname(file), { recursive: true });
    const before = `${JSON.stringify(USERS_OWN, null, 2)}\n`;
    await fs.writeFile(file, before);

    const dry = await runCli(["hook", "install", "claude", "--dry-run", "--json"], { env: t.env });
    expect(dry.json<Report>()).toMatchObject({ changed: true, file });
    expect(await fs.readFile(file, "utf8")).toBe(before);

    const first = await runCli(["hook", "install", "claude", "--json"], { env: t.env });
    expect(first.code).toBe(0);
    const report = first.json<Report>();
    expect(report).toMatchObject({
      runtime: "claude",
      form: "command",
      changed: true,
      backup: `${file}.before-gatehouse`,
    });
    expect(report.reason).toContain("no standing credential");
    expect(await fs.readFile(`${file}.before-gatehouse`, "utf8")).toBe(before);
    const installed = JSON.parse(await fs.readFile(file, "utf8")) as typeof USERS_OWN;
    expect(installed.model).toBe("their-choice");
    expect(installed.permissions).toEqual(USERS_OWN.permissions);
    expect(installed.hooks.PreToolUse).toHaveLength(2);
    expect(installed.hooks.PreToolUse[0]).toEqual(USERS_OWN.hooks.PreToolUse[0]);
    expect(installed.hooks.PreToolUse[1]).toMatchObject({
      matcher: "*",
      hooks: [
        { type: "command", command: expect.stringContaining(`${GATEHOUSE_BIN} hook claude`), timeout: 130 },
      ],
    });

    const again = await runCli(["hook", "install", "claude", "--json"], { env: t.env });
    expect(again.json<Report>().changed).toBe(false);
    expect(JSON.parse(await fs.readFile(file, "utf8"))).toEqual(installed);

    const removed = await runCli(["hook", "uninstall", "claude", "--json"], { env: t.env });
    expect(removed.json<Report>().changed).toBe(true);
    expect(JSON.parse(await fs.readFile(file, "utf8"))).toEqual(USERS_OWN);
  });

  it("settings that are not valid JSON are refused with the file named, and nothing changes", async () => {
    t = await makeTempHome();
    const file = path.join(t.home, ".claude", "settings.json");
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "{ not json");
    const result = await runCli(["hook", "install", "claude"], { env: t.env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${file} is not valid JSON`);
    expect(result.stderr).toContain("nothing was changed");
    expect(await fs.readFile(file, "utf8")).toBe("{ not json");
    expect(existsSync(`${file}.before-gatehouse`)).toBe(false);
  });

  it("for Codex it prints the config.toml lines and writes nothing (the user's config.toml is theirs)", async () => {
    t = await makeTempHome();
    const result = await runCli(["hook", "install", "codex", "--json"], { env: t.env });
    const report = result.json<Report>();
    expect(report).toMatchObject({ runtime: "codex", form: "command", changed: false });
    expect(report.instructions).toContain("[[hooks.PreToolUse]]");
    expect(report.instructions).toContain("hook codex");
    expect(existsSync(path.join(t.home, ".codex", "config.toml"))).toBe(false);
  });
});

describe.skipIf(otherUserUnavailable !== null || !HAVE_CLAUDE)(
  "the installed hook gates the user's own Claude Code session (uid 65534)",
  () => {
    /** One session of the user's own: `touch <marker>`, the user's settings allowing Bash. */
    async function session(j: Jail): Promise<boolean> {
      const marker = path.join(j.work, "marker-file");
      api = await startScriptedAnthropic((request) =>
        toolResultsOf(request).length > 0
          ? { text: "Done." }
          : { toolUse: { name: "Bash", input: { command: `touch ${marker}` } } },
      );
      const run = await runProgramAsOtherUser(CLAUDE, ["-p", "Run it.", "--output-format", "json"], {
        cwd: j.work,
        env: claudeEnvFor(j.home, api),
        timeoutMs: 120_000,
      });
      await api.close();
      api = undefined;
      expect(run.code, run.stderr).toBe(0);
      return existsSync(marker);
    }

    async function asUser(args: string[], j: Jail) {
      return runProgramAsOtherUser(process.execPath, [GATEHOUSE_BIN, ...args], {
        cwd: j.home,
        env: { PATH: "/usr/bin:/bin", HOME: j.home },
        timeoutMs: 60_000,
      });
    }

    it("installed, a command nobody allowed is blocked; uninstalled, the same command runs", async () => {
      jail = await makeJail("gh-hook-install-");
      const settings = path.join(jail.home, ".claude", "settings.json");
      await fs.mkdir(path.dirname(settings));
      await fs.writeFile(settings, JSON.stringify({ permissions: { allow: ["Bash"] } }));
      await fs.chown(path.dirname(settings), OTHER_UID, OTHER_UID);
      await fs.chown(settings, OTHER_UID, OTHER_UID);

      const install = await asUser(["hook", "install", "claude"], jail);
      expect(install.code, install.stderr).toBe(0);
      expect(await session(jail)).toBe(false); // no policy chosen, no Gatehouse running: denied

      const uninstall = await asUser(["hook", "uninstall", "claude"], jail);
      expect(uninstall.code, uninstall.stderr).toBe(0);
      expect(await session(jail)).toBe(true); // the attack is real
    }, 300_000);
  },
);
