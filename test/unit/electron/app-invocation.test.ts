// The app binary's hook mode (issue 17 "Fuses"): with RunAsNode off, agents run `<app> hook …` and the
// main process answers it — no window, no tray, no single-instance lock, only the hook's JSON on
// stdout. The routing is tested as a function and against the fake Electron; the compiled entry point
// runs as a child process under Node with a fake `electron` module (fake-electron-module/) and the real
// CLI deciding a Claude Code PreToolUse call.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appArguments,
  appGatehouseCommand,
  appInvocation,
  HOOK_PROFILE_FOLDER,
  runHookInvocation,
} from "../../../src/electron/app-invocation.js";
import { REPO_ROOT } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { FakeElectron } from "./fake-electron.js";

const packaged = { defaultApp: false, packaged: true };
const dev = { defaultApp: true, packaged: false };
const APP = "/opt/Gatehouse/gatehouse";

describe("what a start of the app binary is for", () => {
  it("no arguments (or only Chromium switches) start the tray app", () => {
    expect(appInvocation([APP], packaged)).toEqual({ kind: "app" });
    expect(appInvocation([APP, "--enable-logging"], packaged)).toEqual({ kind: "app" });
    expect(appInvocation(["/usr/lib/electron", "/src/gatehouse"], dev)).toEqual({ kind: "app" });
    expect(appInvocation(["/usr/lib/electron", "--no-sandbox", "/src/gatehouse"], dev)).toEqual({
      kind: "app",
    });
  });

  it("`hook …` is the hook, with everything after it passed to the CLI", () => {
    const args = ["hook", "claude", "--agent", "claude-code", "--workdir", "/work/x y"];
    expect(appInvocation([APP, ...args], packaged)).toEqual({ kind: "hook", args });
    expect(appInvocation(["/usr/lib/electron", "/src/gatehouse", ...args], dev)).toEqual({
      kind: "hook",
      args,
    });
    expect(appInvocation([APP, "--no-sandbox", ...args], packaged)).toEqual({ kind: "hook", args });
  });

  it("any other word is refused with a sentence that points to the CLI", () => {
    const refused = appInvocation([APP, "exec", "--", "rm", "-rf", "/"], packaged);
    expect(refused.kind).toBe("refused");
    expect(refused.kind === "refused" && refused.message).toMatch(/answers only "hook".*got "exec"/);
    expect(appInvocation([APP, "/tmp/evil.js"], packaged).kind).toBe("refused");
  });

  it("a packaged app refuses to start with remote debugging, which would let anyone drive its prompts", () => {
    for (const flag of ["--remote-debugging-port=9222", "--remote-debugging-pipe"]) {
      expect(appInvocation([APP, flag], packaged)).toMatchObject({ kind: "refused" });
      expect(appInvocation([APP, flag, "hook", "claude"], packaged)).toMatchObject({ kind: "refused" });
    }
    expect(
      appInvocation(["/usr/lib/electron", "/src/gatehouse", "--remote-debugging-port=9222"], dev),
    ).toEqual({
      kind: "app",
    });
  });

  it("the arguments after the app folder in a development run", () => {
    expect(appArguments(["/e", "--inspect=0", "/src/app", "hook", "x"], true)).toEqual(["hook", "x"]);
    expect(appArguments(["/e"], true)).toEqual([]);
  });

  it("agents run the packaged app binary itself, and `electron <folder>` in a development run", () => {
    expect(
      appGatehouseCommand({ execPath: APP, appPath: "/opt/Gatehouse/resources/app.asar", defaultApp: false }),
    ).toEqual([APP]);
    expect(
      appGatehouseCommand({ execPath: "/usr/lib/electron", appPath: "/src/gatehouse", defaultApp: true }),
    ).toEqual(["/usr/lib/electron", "/src/gatehouse"]);
  });
});

describe("the hook mode against the fake Electron", () => {
  it("runs the CLI, uses a profile of its own, takes no single-instance lock, opens nothing, and exits with the CLI's status", async () => {
    const fake = new FakeElectron("linux");
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let ran: string[] = [];
    const code = await runHookInvocation(fake.app, ["hook", "claude"], {
      runCli: async (args) => {
        ran = args;
        stdout.write('{"hookSpecificOutput":{}}\n');
        return 0;
      },
      stdout,
      stderr,
    });
    expect(code).toBe(0);
    expect(ran).toEqual(["hook", "claude"]);
    expect(fake.exitCodes).toEqual([0]);
    expect(fake.singleInstanceRequests).toBe(0);
    expect(fake.windows).toEqual([]);
    expect(fake.trays).toEqual([]);
    expect(fake.hardwareAccelerationDisabled).toBe(true);
    expect(fake.paths.userData).toBe(path.join("/home/user/.config/Gatehouse", HOOK_PROFILE_FOLDER));
    expect(fake.paths.sessionData).toBe(fake.paths.userData);
  });

  it("a hook that throws exits 2, which both agent CLIs treat as blocked", async () => {
    const fake = new FakeElectron("linux");
    const stderr = new PassThrough();
    let said = "";
    stderr.on("data", (d: Buffer) => (said += d.toString()));
    const code = await runHookInvocation(fake.app, ["hook", "claude"], {
      runCli: async () => {
        throw new Error("the approvals file vanished");
      },
      stdout: new PassThrough(),
      stderr,
    });
    expect(code).toBe(2);
    expect(fake.exitCodes).toEqual([2]);
    expect(said).toBe("gatehouse hook: the approvals file vanished\n");
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: string[];
}

describe("the compiled entry point under Node with a fake electron module", () => {
  let t: TempHome;
  let log: string;

  beforeEach(async () => {
    t = await makeTempHome("gatehouse-entry-");
    log = path.join(t.home, "electron-calls.log");
  });
  afterEach(async () => {
    await t.cleanup();
  });

  function runEntry(args: string[], input: string, extraEnv: Record<string, string> = {}): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          path.join(REPO_ROOT, "test/unit/electron/fake-electron-module/register.mjs"),
          path.join(REPO_ROOT, "dist/src/electron/entry.js"),
          ...args,
        ],
        {
          cwd: t.home,
          env: {
            ...t.env,
            FAKE_ELECTRON_LOG: log,
            FAKE_ELECTRON_USER_DATA: path.join(t.home, ".config", "Gatehouse"),
            ...extraEnv,
          },
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => {
        const calls = fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [];
        resolve({ code, stdout, stderr, calls });
      });
      child.stdin.end(input);
    });
  }

  it("`<app> hook claude` prints exactly the hook's JSON (askFallback denies: no Gatehouse runs) and exits 0", async () => {
    const input = JSON.stringify({
      session_id: "s1",
      cwd: t.home,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch marker" },
    });
    const run = await runEntry(["hook", "claude", "--agent", "claude-code"], input);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string } };
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(output.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(run.calls).toEqual([
      "disableHardwareAcceleration",
      `setPath userData ${path.join(t.home, ".config", "Gatehouse", HOOK_PROFILE_FOLDER)}`,
      `setPath sessionData ${path.join(t.home, ".config", "Gatehouse", HOOK_PROFILE_FOLDER)}`,
      "exit 0",
    ]);
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
  });

  it("`<app> status` is refused with exit 2: the tray app does not start and nothing is printed on stdout", async () => {
    const run = await runEntry(["status"], "");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/answers only "hook"/);
    expect(run.calls).toEqual(["exit 2"]);
  });
});
