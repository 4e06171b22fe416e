import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestOnce } from "../../../src/approval-server/client.js";
import { GATEHOUSE_BIN, runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { writePolicy } from "./fixtures.js";
import { errorCode, makeDeadSocket, RawConnection, signedFrame } from "./raw-socket.js";
import { spawnServe, startServe, type ServeProcess } from "./serve-process.js";
import { realProgram } from "../../support/programs.js";

let t: TempHome;
const running: ServeProcess[] = [];

beforeEach(async () => {
  t = await makeTempHome("gh-cli-");
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  await t.cleanup();
});

async function serve(args: string[] = []): Promise<ServeProcess> {
  const s = await startServe(t.env, args);
  running.push(s);
  return s;
}

describe("gatehouse serve", () => {
  it("serves the home on a 0600 socket in a 0700 folder and says so on one line", async () => {
    const s = await serve();
    const socket = t.paths.defaultSocket;
    expect(s.stdout()).toBe(`Gatehouse is serving ${t.paths.executorHome} on ${socket}\n`);
    const stat = await fs.lstat(socket);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(socket))).mode & 0o777).toBe(0o700);
    expect(await requestOnce(t.paths, "ping", {})).toMatchObject({ status: "ok", body: { ui: false } });
  });

  it("replaces a stale socket file left by a crashed instance", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    makeDeadSocket(t.paths.defaultSocket);
    expect((await fs.lstat(t.paths.defaultSocket)).isSocket()).toBe(true);
    await serve();
    expect(await requestOnce(t.paths, "ping", {})).toMatchObject({ status: "ok" });
  });

  it("refuses to serve a home that is already served, exiting 1 while the first keeps serving", async () => {
    await serve();
    const second = spawnServe(t.env);
    const { code } = await second.exited();
    expect(code).toBe(1);
    expect(second.stderr()).toContain(`Another Gatehouse already serves ${t.paths.executorHome}`);
    expect(second.stdout()).toBe("");
    expect(await requestOnce(t.paths, "ping", {})).toMatchObject({ status: "ok" });
  });

  it("refuses a regular file at the socket path and leaves it alone", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    await fs.writeFile(t.paths.defaultSocket, "not a socket");
    const s = spawnServe(t.env);
    expect((await s.exited()).code).toBe(1);
    expect(s.stderr()).toContain("is a regular file, not a socket");
    expect(await fs.readFile(t.paths.defaultSocket, "utf8")).toBe("not a socket");
  });

  it("stops on SIGTERM and removes its socket", async () => {
    const s = await serve();
    running.splice(running.indexOf(s), 1);
    const { code } = await s.stop("SIGTERM");
    expect(code).toBe(0);
    await expect(fs.lstat(t.paths.defaultSocket)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("needs a terminal for --prompt tty", async () => {
    const s = spawnServe(t.env, ["--prompt", "tty"]);
    expect((await s.exited()).code).toBe(2);
    expect(s.stderr()).toContain("--prompt tty needs a terminal");
  });
});

describe("gatehouse ask", () => {
  it("exits 0 when allowed, 1 when denied or timed out, 2 when no Gatehouse answers", async () => {
    expect((await runCli(["ask", "--", "echo", "hi"], { env: t.env })).code).toBe(2);
    const echo = realProgram("echo");
    await writePolicy(t.paths, { allow: [echo], agents: { locked: { security: "deny" } } });
    const unavailable = await runCli(["ask", "--json", "--", "echo", "hi"], { env: t.env });
    expect(unavailable.code).toBe(2);
    expect(unavailable.json()).toMatchObject({
      status: "unavailable",
      reason: expect.stringContaining("not running"),
    });
    await serve();
    const allowed = await runCli(["ask", "--", "echo", "hi"], { env: t.env });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^allowed \(rule:/);
    expect((await runCli(["ask", "--agent", "locked", "--", "echo", "hi"], { env: t.env })).code).toBe(1);
    expect((await runCli(["ask", "--", "rm", "-rf", "build"], { env: t.env })).code).toBe(1);
  });

  it("prints the decision with --json", async () => {
    await writePolicy(t.paths, { allow: [realProgram("echo")] });
    await serve();
    const denied = await runCli(["ask", "--json", "--shell", "--cwd", t.home, "--", "echo hi > out.txt"], {
      env: t.env,
    });
    expect(denied.code).toBe(1);
    expect(denied.json()).toEqual({
      decision: "no-approver",
      decidedBy: "fallback",
      reason: "no-approver",
      nextStep: expect.stringContaining("gatehouse serve --prompt tty"),
    });
    const allowed = await runCli(["ask", "--json", "--", "echo", "hi"], { env: t.env });
    expect(allowed.json()).toEqual({
      decision: "allow-once",
      decidedBy: expect.stringMatching(/^rule:/),
      reason: "allowlist",
    });
  });

  it("rejects a command line without a command", async () => {
    const result = await runCli(["ask"], { env: t.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("give the command");
  });
});

describe("gatehouse socket rotate-token", () => {
  it("gives a new token; a running server refuses the old one from then on", async () => {
    await writePolicy(t.paths);
    await serve();
    const oldToken = (
      JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as { socket: { token: string } }
    ).socket.token;
    const rotated = await runCli(["socket", "rotate-token", "--json"], { env: t.env });
    expect(rotated.code).toBe(0);
    expect(rotated.json()).toEqual({ rotated: true, path: t.paths.approvals });
    expect(rotated.stdout).not.toContain(oldToken);
    const conn = await RawConnection.open(t.paths.defaultSocket);
    conn.send(signedFrame(oldToken, "ping", {}));
    expect(errorCode(await conn.nextFrame(0))).toBe("bad_mac");
    conn.close();
    expect(await requestOnce(t.paths, "ping", {})).toMatchObject({ status: "ok" });
  });

  it("leaves an invalid approvals file as it is and says so", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.approvals, "{ broken");
    const result = await runCli(["socket", "rotate-token"], { env: t.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is invalid");
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe("{ broken");
  });
});

describe("gatehouse hook claude", () => {
  const hookInput = (command: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      session_id: "s-1",
      cwd: t.home,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command, description: "d" },
      ...extra,
    });

  it("answers a tool that touches nothing itself, saying why (no output would leave it to Claude Code)", async () => {
    const result = await runCli(["hook", "claude"], {
      env: t.env,
      input: JSON.stringify({ tool_name: "TodoWrite", tool_input: { todos: [] } }),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: "allow",
      permissionDecisionReason: expect.stringContaining("TodoWrite"),
    });
  });

  it("asks the running Gatehouse with agent claude-code and session claude:<id>", async () => {
    await writePolicy(t.paths, { allow: [realProgram("echo")] });
    await serve();
    const allowed = await runCli(["hook", "claude"], { env: t.env, input: hookInput("echo hi") });
    expect(allowed.json()).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: expect.stringContaining("allowed"),
      },
    });
    const denied = await runCli(["hook", "claude"], { env: t.env, input: hookInput("rm -rf build") });
    expect(denied.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    const audit = (await fs.readFile(t.paths.audit, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.map((a) => [a.agentId, a.sessionKey, a.source])).toEqual([
      ["claude-code", "claude:s-1", "claude-hook"],
      ["claude-code", "claude:s-1", "claude-hook"],
    ]);
  });

  it("uses task:<id> as the session inside a Gatehouse task, and --agent", async () => {
    await writePolicy(t.paths);
    await serve();
    await runCli(["hook", "claude", "--agent", "claude-2"], {
      env: { ...t.env, GATEHOUSE_TASK_ID: "42" },
      input: hookInput("rm x"),
    });
    const audit = JSON.parse((await fs.readFile(t.paths.audit, "utf8")).trim()) as Record<string, unknown>;
    expect([audit.agentId, audit.sessionKey]).toEqual(["claude-2", "task:42"]);
  });

  it("takes the agent id from hook.claudeAgentId in the settings", async () => {
    await writePolicy(t.paths);
    await fs.writeFile(
      t.paths.settings,
      JSON.stringify({ version: 1, hook: { claudeAgentId: "claude-work" } }),
    );
    await serve();
    await runCli(["hook", "claude"], { env: t.env, input: hookInput("rm x") });
    const audit = JSON.parse((await fs.readFile(t.paths.audit, "utf8")).trim()) as Record<string, unknown>;
    expect(audit.agentId).toBe("claude-work");
  });

  it("applies askFallback itself when no Gatehouse is running, and says so", async () => {
    await writePolicy(t.paths, { allow: [realProgram("echo")] });
    const denied = await runCli(["hook", "claude"], { env: t.env, input: hookInput("rm -rf build") });
    expect(denied.json()).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringMatching(/^Gatehouse is not running .*askFallback=deny/),
      },
    });
    const covered = await runCli(["hook", "claude"], { env: t.env, input: hookInput("echo hi") });
    expect(covered.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
  });

  it("denies when it cannot read the hook input", async () => {
    const result = await runCli(["hook", "claude"], { env: t.env, input: "not json" });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });
});

describe("gatehouse serve --prompt tty", () => {
  it("asks the person at the terminal and answers the request with their choice", async () => {
    await writePolicy(t.paths);
    // `script` gives the runner a real pseudo-terminal on stdin.
    const command = [process.execPath, GATEHOUSE_BIN, "serve", "--prompt", "tty"]
      .map((w) => `'${w}'`)
      .join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env: t.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (screen += d));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      await waitFor(() => screen.includes("Gatehouse is serving"), { what: "the runner", timeoutMs: 20_000 });
      const pending = requestOnce(t.paths, "approval.request", { argv: ["rm", "-rf", "build"], cwd: "/tmp" });
      await waitFor(() => screen.includes("[d] deny"), { what: "the prompt on the terminal" });
      expect(screen).toContain("command  rm -rf build");
      expect(screen).toContain("askFallback=deny decides");
      child.stdin.write("o\r");
      expect(await pending).toMatchObject({
        status: "ok",
        body: { decision: "allow-once", decidedBy: "user" },
      });
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});
