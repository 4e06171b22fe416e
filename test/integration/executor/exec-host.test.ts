// Issue 15 "Exec host, complete and honest", through the real entry points: the `gatehouse` CLI
// (--json), the approval socket of a real composition (services), `gatehouse serve --prompt tty`, and
// `gatehouse serve` against the test backend. Each attack checks that a marker file never appears.
import { spawn } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectToHome } from "../../../src/approval-server/client.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { createServices } from "../../../src/services.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { GATEHOUSE_BIN, runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { writePolicy, type PolicySetup } from "../approval-server/fixtures.js";
import { startServe } from "../approval-server/serve-process.js";
import { DEVICE_ID, TOKEN, taskEnv, writeDeviceConfig } from "../tasks/harness.js";
import { silentLogger } from "../../../src/core/log.js";

interface ExecJson {
  decision: string;
  decidedBy: string;
  reason: string;
  exitCode: number | null;
  stdout: string;
  truncated: boolean;
  nextStep?: string;
  elevatedUntil?: number;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function home(policy?: PolicySetup): Promise<TempHome> {
  const t = await makeTempHome("gh-exec-host-");
  cleanups.push(() => t.cleanup());
  if (policy) await writePolicy(t.paths, policy);
  return t;
}

const cli = (t: TempHome, args: string[], input?: string) =>
  runCli(args, { env: t.env, cwd: t.home, timeoutMs: 120_000, ...(input !== undefined ? { input } : {}) });

function auditLines(t: TempHome): Record<string, unknown>[] {
  if (!fs.existsSync(t.paths.audit)) return [];
  return fs
    .readFileSync(t.paths.audit, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The approval socket of a real composition of this home, with its own clock. */
async function socketApp(t: TempHome, now?: () => number) {
  const services = createServices({
    env: t.env,
    paths: t.paths,
    logger: silentLogger,
    ...(now ? { now } : {}),
  });
  const started = await services.start();
  if (started.status !== "listening") throw new Error(started.message);
  cleanups.push(() => services.stop());
  // the client signs and checks replies on the same clock as the app
  const connected = await connectToHome(t.paths, now ? { now } : {});
  if (connected.status !== "connected") throw new Error(connected.reason);
  cleanups.push(async () => connected.client.close());
  return { services, client: connected.client };
}

describe("a request may only tighten the policy", () => {
  it("`exec --security deny` under security=full refuses, runs nothing, and says the request decided", async () => {
    const t = await home({ defaults: { security: "full", ask: "off" } });
    const result = await cli(t, ["exec", "--json", "--security", "deny", "--", "touch", "marker"]);
    expect(result.code).toBe(126);
    expect(result.json<ExecJson>()).toMatchObject({
      decision: "deny",
      decidedBy: "policy",
      reason: "security=deny (request)",
    });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
    const explained = await cli(t, ["policy", "explain", "--json", "--security", "deny", "--", "true"]);
    expect(explained.json()).toMatchObject({
      outcome: "deny",
      sources: { security: "request" },
      requested: { security: "deny" },
    });
  });

  it("`exec --ask always` with nobody to ask does not run a command security=full would run", async () => {
    const t = await home({ defaults: { security: "full", ask: "off" } });
    const result = await cli(t, ["exec", "--json", "--ask", "always", "--", "touch", "marker"]);
    expect(result.json<ExecJson>()).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
  });

  it("a loosening `exec --security full` under allowlist is refused with a clear error and runs nothing", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    const result = await cli(t, ["exec", "--security", "full", "--", "touch", "marker"]);
    expect(result.code).toBe(126);
    expect(result.stderr).toContain("request-loosens: the request asked for security=full");
    expect(result.stderr).toContain("a request may only tighten");
    expect(result.stderr).toContain("gatehouse elevate --agent local --for 15m");
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
    expect(auditLines(t).at(-1)).toMatchObject({ decision: "deny", requested: { security: "full" } });
  });

  it("a socket exec.run asking security=deny for a full-security agent runs nothing", async () => {
    const t = await home({ agents: { "full-agent": { security: "full", ask: "off" } } });
    const { client } = await socketApp(t);
    const reply = await client.request("exec.run", {
      argv: ["touch", path.join(t.home, "marker")],
      agentId: "full-agent",
      security: "deny",
    });
    expect(reply).toMatchObject({
      status: "ok",
      body: { decision: "deny", decidedBy: "policy", reason: "security=deny (request)" },
    });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
    const loosen = await client.request("approval.request", {
      argv: ["touch", path.join(t.home, "marker")],
      ask: "off",
      agentId: "ask-agent",
    });
    // the defaults (allowlist + on-miss) cannot be loosened to ask=off by a request
    expect(loosen).toMatchObject({ status: "ok", body: { decision: "deny", decidedBy: "policy" } });
    expect((loosen as { body: { reason: string } }).body.reason).toMatch(/^request-loosens: .*ask=off/);
  });
});

describe("nobody to ask is reported as such", () => {
  it("`gatehouse exec` with no Gatehouse running says no-approver (not timeout) and what to do", async () => {
    const t = await home({});
    const json = await cli(t, ["exec", "--json", "--", "touch", "marker"]);
    expect(json.code).toBe(126);
    expect(json.json<ExecJson>()).toMatchObject({
      decision: "no-approver",
      decidedBy: "fallback",
      reason: "no-approver",
    });
    expect(json.json<ExecJson>().nextStep).toContain("gatehouse serve --prompt tty");
    const text = await cli(t, ["exec", "--", "touch", "marker"]);
    expect(text.stderr).toContain("nobody could be asked");
    expect(text.stderr).not.toContain("timeout");
    expect(text.stderr).toMatch(
      /Next: start `gatehouse serve --prompt tty`.*or allow it: `gatehouse allowlist add --agent local \//,
    );
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
    expect(auditLines(t).map((l) => l.decision)).toEqual(["no-approver", "no-approver"]);
  });

  it("the socket answers no-approver when no presenter is attached", async () => {
    const t = await home({});
    const { client } = await socketApp(t);
    const reply = await client.request("approval.request", { argv: ["touch", "marker"] });
    expect(reply).toMatchObject({
      status: "ok",
      body: { decision: "no-approver", decidedBy: "fallback", reason: "no-approver" },
    });
  });

  it("the hook's reason says once that Gatehouse is not running, and what to do", async () => {
    const t = await home({});
    const input = JSON.stringify({
      hook_event_name: "PreToolUse",
      session_id: "s1",
      cwd: t.home,
      tool_name: "Bash",
      tool_input: { command: "touch marker" },
    });
    const result = await cli(t, ["hook", "claude"], input);
    const out = JSON.parse(result.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    const reason = out.hookSpecificOutput.permissionDecisionReason;
    expect(out.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(reason.match(/Gatehouse is not running/g)).toHaveLength(1);
    expect(reason).toContain("nobody could be asked, so askFallback=deny refused this command");
    expect(reason).toContain("Next: start `gatehouse serve --prompt tty`");
  });

  it("`gatehouse exec` from a terminal asks a running `gatehouse serve --prompt tty`", async () => {
    const t = await home({});
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
    cleanups.push(async () => {
      child.kill("SIGTERM");
      await exited;
    });
    await waitFor(() => screen.includes("Gatehouse is serving"), { what: "the runner", timeoutMs: 20_000 });
    const running = cli(t, ["exec", "--json", "--", "touch", "marker"]);
    await waitFor(() => screen.includes("[d] deny"), {
      what: "the prompt on the terminal",
      timeoutMs: 30_000,
    });
    expect(screen).toContain("touch marker");
    child.stdin.write("o\r");
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.json<ExecJson>()).toMatchObject({ decision: "allow-once", decidedBy: "user" });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(true);
  });
});

describe("elevated mode", () => {
  it("runs what the allowlist would not, audited as elevated, shown in status and explain, until `elevate off`", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    const started = await cli(t, ["elevate", "--agent", "local", "--for", "15m", "--json"]);
    expect(started.code).toBe(0);
    const until = started.json<{ until: number }>().until;
    expect(until).toBeGreaterThan(Date.now() + 14 * 60_000);

    const ran = await cli(t, ["exec", "--json", "--", "touch", "marker"]);
    expect(ran.json<ExecJson>()).toMatchObject({
      decision: "allow-once",
      decidedBy: "policy",
      reason: "security=full (elevated)",
      elevatedUntil: until,
    });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(true);
    const commandLines = auditLines(t).filter((l) => l.event !== "elevation");
    expect(commandLines.length).toBeGreaterThan(0);
    expect(commandLines.every((l) => l.elevatedUntil === until)).toBe(true);

    const status = await cli(t, ["status", "--json"]);
    expect(status.json()).toMatchObject({ approvals: { elevated: [{ agentId: "local", until }] } });
    expect((await cli(t, ["status"])).stdout).toContain("Elevated:   agent local runs with security=full");
    const explained = await cli(t, ["policy", "explain", "--json", "--", "touch", "x"]);
    expect(explained.json()).toMatchObject({ sources: { security: "elevated" }, elevatedUntil: until });
    // another agent is not elevated
    const other = await cli(t, ["exec", "--json", "--agent", "other", "--", "touch", "marker2"]);
    expect(other.json<ExecJson>().decision).toBe("deny");

    expect((await cli(t, ["elevate", "off", "--json"])).json()).toEqual({ ended: ["local"] });
    const after = await cli(t, ["exec", "--json", "--", "touch", "marker3"]);
    expect(after.json<ExecJson>()).toMatchObject({ decision: "deny", reason: "allowlist-miss" });
    expect(fs.existsSync(path.join(t.home, "marker3"))).toBe(false);
  });

  it("ends on time: the socket's clock past the end runs nothing (fake clock)", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    let offset = 0;
    // started first: a start ends any elevation, so it is given after
    const { client } = await socketApp(t, () => Date.now() + offset);
    await cli(t, ["elevate", "--for", "1m"]);
    const before = await client.request("exec.run", { argv: ["touch", path.join(t.home, "m1")] });
    expect(before).toMatchObject({ body: { decision: "allow-once", reason: "security=full (elevated)" } });
    // the app's clock (and its client's) moves past the end
    offset = 61_000;
    const afterEnd = await client.request("exec.run", { argv: ["touch", path.join(t.home, "m2")] });
    expect(afterEnd).toMatchObject({ body: { decision: "deny", reason: "allowlist-miss" } });
    expect(fs.existsSync(path.join(t.home, "m1"))).toBe(true);
    expect(fs.existsSync(path.join(t.home, "m2"))).toBe(false);
  });

  it("never survives a restart of Gatehouse", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    await cli(t, ["elevate", "--for", "15m"]);
    const serve = await startServe(t.env);
    cleanups.push(() => serve.stop("SIGKILL"));
    expect((await cli(t, ["elevate", "status", "--json"])).json()).toEqual({ elevated: [] });
    const result = await cli(t, ["exec", "--json", "--", "touch", "marker"]);
    expect(result.json<ExecJson>().decision).toBe("deny");
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
  });

  it("the approval socket has no way to elevate: agents' hooks are its clients, so an agent cannot elevate itself", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    const { client } = await socketApp(t);
    for (const type of ["elevate", "elevation.start", "elevate.off"]) {
      // not a request type the socket knows: sent as raw as an agent's process could
      const send = client.request.bind(client) as (t: string, b: unknown) => Promise<{ status: string }>;
      const reply = await send(type, { agentId: "*", forMs: 60_000 });
      expect(reply.status).toBe("error");
    }
    const ran = await client.request("exec.run", { argv: ["touch", path.join(t.home, "marker")] });
    expect(ran).toMatchObject({ body: { decision: "deny", reason: "allowlist-miss" } });
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
    expect((await cli(t, ["elevate", "status", "--json"])).json()).toEqual({ elevated: [] });
  });

  it("the CLI's start and end are audit lines Activity shows", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    await cli(t, ["elevate", "--agent", "codex", "--for", "10m"]);
    await cli(t, ["elevate", "off"]);
    const lines = auditLines(t).filter((l) => l.event === "elevation");
    expect(lines.map((l) => [l.agentId, l.source, l.decision])).toEqual([
      ["codex", "elevate:cli", "allow-once"],
      ["codex", "elevate:cli", "deny"],
    ]);
    expect(lines[0]?.reason).toMatch(/^elevated mode started: agent codex runs with security=full until /);
  });

  it("refuses a duration that is not a time or longer than 8 hours, and changes nothing", async () => {
    const t = await home({ defaults: { security: "allowlist", ask: "off" } });
    for (const bad of ["15", "9h", "0m", "-5m"]) {
      const result = await cli(t, ["elevate", "--for", bad]);
      expect(result.code).toBe(2);
    }
    const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    const state = await store.load();
    expect(state.status === "ok" && state.file.elevated).toBeFalsy();
  });
});

describe("exec events reach the backend", () => {
  let backend: TestBackend;

  async function runner(policy: PolicySetup, options: { execEvents?: boolean } = {}): Promise<TempHome> {
    backend = await startTestBackend({ token: TOKEN });
    cleanups.push(() => backend.close());
    const t = await home(policy);
    await writeDeviceConfig(t, backend.url);
    // off by default (no Wegent backend handles them): these tests turn them on
    if (options.execEvents !== false)
      await fsp.writeFile(t.paths.settings, JSON.stringify({ version: 1, device: { execEvents: true } }), {
        mode: 0o600,
      });
    const serve = await startServe(taskEnv(t));
    cleanups.push(() => serve.stop("SIGKILL"));
    await waitFor(() => backend.isOnline(DEVICE_ID), { what: "the runner to register", timeoutMs: 20_000 });
    return t;
  }

  it("sends none of them unless the person turned them on in the settings", async () => {
    await runner({ defaults: { security: "full", ask: "off" } }, { execEvents: false });
    expect(await backend.executeCommand(DEVICE_ID, { argv: ["true"] })).toMatchObject({ success: true });
    // one socket, in order: events of the first command would have arrived before the second's ack
    expect(await backend.executeCommand(DEVICE_ID, { argv: ["true"] })).toMatchObject({ success: true });
    expect(backend.events.filter((e) => e.event.startsWith("exec."))).toEqual([]);
  });

  it("started and finished carry the exit code, duration, truncated flags and the output's last 20 000 characters", async () => {
    await runner({ defaults: { security: "full", ask: "off" } });
    const ack = (await backend.executeCommand(DEVICE_ID, {
      argv: ["seq", "1", "100000"],
      max_output_bytes: 1000,
      task_id: 7,
    })) as { success: boolean; stdout_truncated: boolean };
    expect(ack).toMatchObject({ success: true, stdout_truncated: true });
    await waitFor(() => [...backend.execRuns().values()].some((r) => r.finished), {
      what: "exec.finished at the backend",
    });
    const [run] = [...backend.execRuns().values()];
    expect(run?.started).toMatchObject({ task_id: 7, command: "seq 1 100000", decided_by: "policy" });
    const finished = run!.finished!;
    expect(finished).toMatchObject({
      task_id: 7,
      exit_code: 0,
      timed_out: false,
      truncated: true,
      stdout_truncated: true,
      stderr_truncated: false,
    });
    expect(typeof finished.duration).toBe("number");
    const tail = finished.output_tail as string;
    expect(tail.length).toBe(20_000);
    expect(tail.endsWith("99999\n100000\n")).toBe(true);
  });

  it("denied says who decided, and secrets in the command are redacted", async () => {
    await runner({ defaults: { security: "deny" } });
    const ack = (await backend.executeCommand(DEVICE_ID, {
      command: `echo ${TOKEN}-and-more`,
    })) as { success: boolean; error: string };
    expect(ack.error).toBe("Command denied by exec policy: security=deny");
    await waitFor(() => [...backend.execRuns().values()].some((r) => r.denied), {
      what: "exec.denied at the backend",
    });
    const [run] = [...backend.execRuns().values()];
    expect(run?.started).toBeUndefined();
    expect(run?.denied).toMatchObject({ decision: "deny", decided_by: "policy", reason: "security=deny" });
    expect(JSON.stringify(run?.denied)).not.toContain(TOKEN);
  });

  it("a backend request cannot loosen the policy or elevate itself", async () => {
    const t = await runner({ defaults: { security: "allowlist", ask: "off" } });
    const ack = (await backend.executeCommand(DEVICE_ID, {
      argv: ["touch", path.join(t.home, "marker")],
      security: "full",
    })) as { success: boolean; error: string };
    expect(ack.success).toBe(false);
    expect(ack.error).toMatch(/^Command denied by exec policy: request-loosens/);
    expect(fs.existsSync(path.join(t.home, "marker"))).toBe(false);
  });
});

describe("plain `gatehouse exec` output", () => {
  it("honours the same cap as --json and says so", async () => {
    const t = await home({ defaults: { security: "full", ask: "off" } });
    const plain = await cli(t, ["exec", "--", "seq", "1", "100000"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout.length).toBeLessThanOrEqual(200_000 + 20);
    expect(plain.stdout.endsWith("\n... (truncated)\n")).toBe(true);
    expect(plain.stderr).toContain("output cut after 200000 bytes");
    const json = await cli(t, ["exec", "--json", "--", "seq", "1", "100000"]);
    expect(plain.stdout.startsWith(json.json<ExecJson>().stdout.slice(0, 199_000))).toBe(true);
    expect(
      auditLines(t)
        .filter((l) => l.event === "run")
        .every((l) => l.truncated === true),
    ).toBe(true);
  });
});

describe("CLI coherence", () => {
  it("`allowlist list` shows the entries exec saved for agent local, labelled", async () => {
    const t = await home({});
    const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    await store.addEntry("local", { pattern: "/usr/bin/true" });
    const text = await cli(t, ["allowlist", "list"]);
    expect(text.stdout).toContain("The allowlist of * (every agent) is empty.");
    expect(text.stdout).toContain("Allowlist of local (gatehouse exec, ask and the socket by default)");
    expect(text.stdout).toContain("/usr/bin/true");
    expect((await cli(t, ["allowlist", "list", "--json"])).json()).toMatchObject({
      agentId: "*",
      entries: [],
      agents: { local: [{ pattern: "/usr/bin/true" }] },
    });
  });

  it.each([
    [["workdir", "resolve", "--help"], "gatehouse workdir"],
    [["runtime", "spec", "--help"], "gatehouse runtime"],
    [["caps", "report", "--help"], "gatehouse caps"],
    [["elevate", "off", "-h"], "gatehouse elevate"],
  ])("`%s` prints the usage", async (args, usage) => {
    const t = await home();
    const result = await cli(t, args);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(usage);
  });

  it("`--help` after `--` belongs to the command", async () => {
    const t = await home({ defaults: { security: "full", ask: "off" } });
    const result = await cli(t, ["exec", "--json", "--", "printf", "%s", "--help"]);
    expect(result.json<ExecJson>().stdout).toBe("--help");
  });

  it("`status` before init says everything is denied until a policy is chosen", async () => {
    const t = await home();
    const result = await cli(t, ["status"]);
    expect(result.stdout).toContain("everything is denied until you choose a policy");
    expect(result.stdout).not.toContain("ok {}");
    await cli(t, ["init"]);
    const inited = await cli(t, ["status"]);
    expect(inited.stdout).toContain("security=deny (built-in)");
    expect(inited.stdout).toContain("everything is denied until you choose a policy");
    expect((await cli(t, ["status", "--json"])).json()).toMatchObject({
      approvals: { status: "ok", everythingDenied: true },
    });
  });

  it("`status` says a backend URL and token came from the environment", async () => {
    const t = await home();
    const result = await runCli(["status"], {
      env: { ...t.env, WEGENT_BACKEND_URL: "http://127.0.0.1:1", WEGENT_AUTH_TOKEN: "tok-from-env-123456" },
      cwd: t.home,
    });
    expect(result.stdout).toContain("from WEGENT_AUTH_TOKEN");
    expect(result.stdout).not.toContain("tok-from-env-123456");
    await fsp.access(t.paths.executorHome).catch(() => undefined);
  });
});
