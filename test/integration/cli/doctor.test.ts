// `gatehouse doctor --json` through the real CLI: the agent CLIs it finds on the PATH it is given (the
// real pinned ones, a `claude` that says an old version, none at all), the hook form each task gets,
// and a line with its fix for what is wrong (no backend, an untrusted home).
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_CLI_SUPPORT } from "../../../src/core/runtime/agent-cli.js";
import { CLAUDE, CODEX, HAVE_CLAUDE, HAVE_CODEX } from "../../support/agent-clis.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

interface Line {
  check: string;
  status: "ok" | "warn" | "fail";
  says: string;
  fix: string | null;
}
interface Report {
  ok: boolean;
  agentClis: {
    runtime: string;
    path: string | null;
    version: string | null;
    support: string;
    supported: boolean;
    hook: { form: string; reason: string } | null;
  }[];
  trust: { home: string | null };
  lines: Line[];
}

const SYSTEM_PATH = "/usr/bin:/bin";
const claude = AGENT_CLI_SUPPORT["claude-code"];
const codex = AGENT_CLI_SUPPORT.codex;

/** A folder holding exactly the given programs (links to the real binaries, or small scripts). */
async function binFolder(home: string, programs: Record<string, { link: string } | { script: string }>) {
  const dir = path.join(home, `bin-${Object.keys(programs).join("-") || "empty"}`);
  await fs.mkdir(dir, { recursive: true });
  for (const [name, what] of Object.entries(programs)) {
    const file = path.join(dir, name);
    if ("link" in what) await fs.symlink(what.link, file);
    else await fs.writeFile(file, `#!/bin/sh\n${what.script}\n`, { mode: 0o755 });
  }
  return dir;
}

async function doctor(pathEnv: string): Promise<{ code: number | null; report: Report }> {
  const result = await runCli(["doctor", "--json"], {
    env: { ...t!.env, PATH: pathEnv },
    timeoutMs: 120_000,
  });
  return { code: result.code, report: result.json<Report>() };
}

const line = (report: Report, check: string) => report.lines.find((l) => l.check === check);
const cli = (report: Report, runtime: string) => report.agentClis.find((c) => c.runtime === runtime)!;

describe("gatehouse doctor", () => {
  it.skipIf(!HAVE_CLAUDE || !HAVE_CODEX)(
    "names each agent CLI's path and version, says it is supported and which hook form its tasks get",
    async () => {
      t = await makeTempHome();
      const bin = await binFolder(t.home, { claude: { link: CLAUDE }, codex: { link: CODEX } });
      const { code, report } = await doctor(`${bin}:${SYSTEM_PATH}`);
      expect(cli(report, "claude-code")).toMatchObject({
        path: path.join(bin, "claude"),
        support: "supported",
        supported: true,
        hook: { form: "command" },
      });
      expect(cli(report, "claude-code").hook!.reason).toContain("--settings");
      expect(cli(report, "codex")).toMatchObject({
        path: path.join(bin, "codex"),
        support: "supported",
        supported: true,
        hook: { form: "command" },
      });
      expect(line(report, "agent-cli:claude-code")).toMatchObject({ status: "ok", fix: null });
      expect(line(report, "hook:codex")).toMatchObject({ status: "ok" });
      expect(line(report, "trust:home")).toMatchObject({ status: "ok" });
      // A fresh home: no policy yet, no backend — each said with its fix, and the exit status says it.
      expect(line(report, "trust:socket")).toMatchObject({
        status: "warn",
        fix: "choose a policy: gatehouse init --preset ask",
      });
      expect(line(report, "backend")).toMatchObject({ status: "fail", fix: "gatehouse login --backend URL" });
      expect(report.ok).toBe(false);
      expect(code).toBe(1);
    },
    180_000,
  );

  it.skipIf(!HAVE_CODEX)(
    "a claude older than the oldest supported fails its line with the update command, and its tasks get no hook",
    async () => {
      t = await makeTempHome();
      const bin = await binFolder(t.home, {
        claude: { script: `echo '2.1.100 (Claude Code)'` },
        codex: { link: CODEX },
      });
      const { code, report } = await doctor(`${bin}:${SYSTEM_PATH}`);
      expect(cli(report, "claude-code")).toMatchObject({
        path: path.join(bin, "claude"),
        version: "2.1.100",
        support: "too-old",
        supported: false,
        hook: null,
      });
      const old = line(report, "agent-cli:claude-code")!;
      expect(old.status).toBe("fail");
      expect(old.says).toContain(`older than the oldest version Gatehouse supports (${claude.oldest})`);
      expect(old.fix).toContain(`npm install -g ${claude.npmPackage}@${claude.newest}`);
      expect(line(report, "hook:claude-code")).toMatchObject({ status: "fail" });
      expect(cli(report, "codex")).toMatchObject({ support: "supported", supported: true });
      expect(code).toBe(1);
    },
    180_000,
  );

  it.skipIf(!HAVE_CODEX)(
    "a missing claude is a warning with the install command while Codex can run tasks; with neither, both fail",
    async () => {
      t = await makeTempHome();
      const onlyCodex = await binFolder(t.home, { codex: { link: CODEX } });
      const { report } = await doctor(`${onlyCodex}:${SYSTEM_PATH}`);
      expect(cli(report, "claude-code")).toMatchObject({
        path: null,
        support: "missing",
        supported: false,
        hook: null,
      });
      const missing = line(report, "agent-cli:claude-code")!;
      expect(missing.status).toBe("warn");
      expect(missing.says).toContain('"claude" was not found on PATH');
      expect(missing.fix).toContain(`npm install -g ${claude.npmPackage}@${claude.newest}`);

      const empty = await binFolder(t.home, {});
      const neither = await doctor(`${empty}:${SYSTEM_PATH}`);
      expect(line(neither.report, "agent-cli:claude-code")).toMatchObject({ status: "fail" });
      expect(line(neither.report, "agent-cli:codex")).toMatchObject({
        status: "fail",
        fix: expect.stringContaining(`npm install -g ${codex.npmPackage}@${codex.newest}`),
      });
      expect(neither.code).toBe(1);
    },
    180_000,
  );

  it("on a home another user could write it reads nothing there and says how to fix it", async () => {
    t = await makeTempHome();
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    await fs.chmod(t.paths.executorHome, 0o777);
    const { code, report } = await doctor(SYSTEM_PATH);
    expect(report.agentClis).toEqual([]);
    expect(report.lines).toHaveLength(1);
    expect(line(report, "trust:home")).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("writable by you alone"),
    });
    expect(report.trust.home).toContain(t.paths.executorHome);
    expect(code).toBe(1);
  });
});
