// `gatehouse doctor [--json]`: everything a task needs, checked the way a task checks it, each line with
// its fix — the agent CLIs (path, version, supported? — the support range of core/runtime/agent-cli.ts
// and the same binary lookup and version read as a task start), the hook form each task gets and why,
// the keychain, the trust checks of E and the approval socket (core/io/trust.ts) and the backend
// connection. Read-only: it changes nothing. Exit 0 when nothing failed, 1 otherwise.
import path from "node:path";
import { readSocketCredentials } from "../../approval-server/client.js";
import { checkTrustedHome, checkTrustedSocket } from "../../core/io/trust.js";
import {
  AGENT_CLI_SUPPORT,
  AGENT_COMMAND,
  AGENT_RUNTIMES,
  hookFormFor,
  supportVerdict,
  type HookForm,
  type SupportStatus,
} from "../../core/runtime/agent-cli.js";
import type { RuntimeKind } from "../../core/runtime/index.js";
import { emptySettings, SettingsFileSchema } from "../../core/settings.js";
import { readJsonFile } from "../../core/store/index.js";
import { resolveAgentBinary } from "../../executor/tasks/agent-binary.js";
import { AgentCliProbe } from "../../executor/tasks/agent-cli-probe.js";
import { defaultKeychains } from "../../secrets/keychain.js";
import { KEYCHAIN_SERVICE, secretsFilePath } from "../../secrets/secret-store.js";
import { parseJsonFlag } from "../args.js";
import { printJson, printLine, type CliContext, type CommandSpec } from "../context.js";
import { gatherStatus } from "./status.js";

const USAGE = [
  "gatehouse doctor [--json]",
  "",
  "Checks the agent CLIs, the hook form, the keychain, the trust of E and the socket, and the backend.",
  "Exit status: 0 nothing failed (warnings allowed), 1 at least one check failed.",
].join("\n");

type LineStatus = "ok" | "warn" | "fail";

/** One thing checked: what was found and, unless it is fine, what to do about it. */
interface DoctorLine {
  check: string;
  status: LineStatus;
  says: string;
  fix: string | null;
}

interface AgentCliReport {
  runtime: RuntimeKind;
  label: string;
  /** What a task would start: the configured path, or the command looked up on PATH. */
  command: string;
  path: string | null;
  version: string | null;
  /** What `--version` printed (first line), or why it could not be read. */
  versionOutput: string | null;
  support: SupportStatus | "missing";
  /** Whether a task may start it. */
  supported: boolean;
  range: { oldest: string; newest: string };
  /** The form of the gate tasks of this runtime get, and why; null when no task can start. */
  hook: { form: HookForm; reason: string } | null;
}

interface DoctorReport {
  ok: boolean;
  home: string;
  agentClis: AgentCliReport[];
  keychain: { inUse: string | null; file: string; reasons: string[] };
  trust: { home: string | null; socket: string | null; socketPath: string | null };
  backend: { url: string | null; token: string | null; reachable: boolean | null; state: string | null };
  lines: DoctorLine[];
}

function installFix(runtime: RuntimeKind, settingsFile: string): string {
  const s = AGENT_CLI_SUPPORT[runtime];
  return `npm install -g ${s.npmPackage}@${s.newest}, or set ${s.setting} in ${settingsFile} to a supported binary`;
}

async function agentClis(ctx: CliContext, lines: DoctorLine[]): Promise<AgentCliReport[]> {
  const settingsFile = ctx.paths.settings;
  const read = await readJsonFile(settingsFile, SettingsFileSchema);
  const settings = read.status === "ok" ? read.value : emptySettings();
  if (read.status === "invalid")
    lines.push({
      check: "settings",
      status: "fail",
      says: `${settingsFile} is invalid (${read.error}); tasks use the default settings`,
      fix: `correct ${settingsFile}`,
    });
  // The same lookup and version read as a task start (task-turn.ts), on this shell's PATH.
  const probe = new AgentCliProbe(ctx.env);
  const reports: AgentCliReport[] = [];
  for (const runtime of AGENT_RUNTIMES) {
    const s = AGENT_CLI_SUPPORT[runtime];
    const configured = runtime === "codex" ? settings.agents?.codexPath : settings.agents?.claudePath;
    const command = configured?.trim() || AGENT_COMMAND[runtime];
    const base = { runtime, label: s.label, command, range: { oldest: s.oldest, newest: s.newest } };
    const check = `agent-cli:${runtime}`;
    const binary = await resolveAgentBinary({
      runtime,
      command,
      env: ctx.env,
      home: ctx.paths.home,
      settingsFile,
    });
    if (!binary.ok) {
      reports.push({
        ...base,
        path: null,
        version: null,
        versionOutput: null,
        support: "missing",
        supported: false,
        hook: null,
      });
      lines.push({ check, status: "fail", says: binary.message, fix: installFix(runtime, settingsFile) });
      continue;
    }
    const facts = await probe.probe(runtime, binary.file);
    const verdict = supportVerdict(runtime, binary.file, facts.version, settingsFile);
    const hook = verdict.runs ? hookFormFor(facts) : null;
    reports.push({
      ...base,
      path: binary.file,
      version: facts.version,
      versionOutput: facts.versionOutput,
      support: verdict.status,
      supported: verdict.runs,
      hook,
    });
    lines.push({
      check,
      status: verdict.status === "supported" ? "ok" : verdict.runs ? "warn" : "fail",
      says:
        verdict.message ??
        `${s.label} ${facts.version} at ${binary.file}: supported (${s.oldest} to ${s.newest})`,
      fix: verdict.status === "supported" ? null : installFix(runtime, settingsFile),
    });
    lines.push({
      check: `hook:${runtime}`,
      status: hook ? "ok" : "fail",
      says: hook
        ? `${s.label} tasks get a ${hook.form} hook: ${hook.reason}`
        : `${s.label} tasks end at start with an error: no supported binary`,
      fix: hook ? null : installFix(runtime, settingsFile),
    });
  }
  // One missing CLI is fine for a user of the other one: only both missing fails.
  const usable = reports.some((r) => r.supported);
  for (const line of lines)
    if (usable && line.status === "fail" && /^(agent-cli|hook):/.test(line.check)) {
      const r = reports.find((x) => line.check.endsWith(`:${x.runtime}`));
      if (r?.support === "missing") line.status = "warn";
    }
  return reports;
}

async function keychain(ctx: CliContext, lines: DoctorLine[]): Promise<DoctorReport["keychain"]> {
  const service = ctx.env.GATEHOUSE_KEYCHAIN_SERVICE?.trim() || KEYCHAIN_SERVICE;
  const file = secretsFilePath(ctx.paths);
  const reasons: string[] = [];
  // The same bindings in the same order as the secret store; an account nobody writes, so no secret is read.
  for (const binding of defaultKeychains({ timeoutMs: 3_000 })) {
    try {
      await binding.getPassword(service, "gatehouse-doctor");
      lines.push({
        check: "keychain",
        status: "ok",
        says: `secrets are kept in the OS keychain through ${binding.name} (service "${service}")`,
        fix: null,
      });
      return { inUse: binding.name, file, reasons };
    } catch (error) {
      reasons.push(`${binding.name}: ${(error as Error).message}`);
    }
  }
  lines.push({
    check: "keychain",
    status: "warn",
    says: `no OS keychain answered (${reasons.join("; ")}): secrets are kept in ${file} (mode 0600; sealed inside the tray app)`,
    fix: "start or unlock a keychain (on Linux a Secret Service such as gnome-keyring or KWallet); secrets move into it on next use",
  });
  return { inUse: null, file, reasons };
}

async function trust(ctx: CliContext, serving: boolean, lines: DoctorLine[]): Promise<DoctorReport["trust"]> {
  const home = checkTrustedHome(ctx.paths.executorHome);
  lines.push({
    check: "trust:home",
    status: home ? "fail" : "ok",
    says: home ? home.message : `${ctx.paths.executorHome} and the folders above it are yours alone`,
    fix: home ? `make ${home.path} yours and writable by you alone (chmod go-w, chown)` : null,
  });
  const credentials = await readSocketCredentials(ctx.paths);
  if (credentials.status !== "ok") {
    lines.push({
      check: "trust:socket",
      status: credentials.untrusted ? "fail" : "warn",
      says: credentials.reason,
      fix: credentials.untrusted
        ? `make ${path.dirname(ctx.paths.approvals)} yours and writable by you alone`
        : "choose a policy: gatehouse init --preset ask",
    });
    return { home: home?.message ?? null, socket: credentials.reason, socketPath: null };
  }
  const socket = checkTrustedSocket(credentials.socketPath);
  lines.push({
    check: "trust:socket",
    status: socket ? "fail" : serving ? "ok" : "warn",
    says: socket
      ? socket.message
      : serving
        ? `the approval socket ${credentials.socketPath} is yours and Gatehouse answers on it`
        : `the approval socket's folder is yours alone; nobody listens on ${credentials.socketPath}: tool calls are refused until Gatehouse runs`,
    fix: socket ? socket.message : serving ? null : "start Gatehouse (the tray app, or gatehouse serve)",
  });
  return { home: home?.message ?? null, socket: socket?.message ?? null, socketPath: credentials.socketPath };
}

/** Any HTTP answer counts: the question is whether the address is reachable from here. */
async function reachable(url: string): Promise<{ ok: true } | { ok: false; why: string }> {
  try {
    await fetch(url, { method: "GET", signal: AbortSignal.timeout(5_000), redirect: "manual" });
    return { ok: true };
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return { ok: false, why: cause ?? (error as Error).message };
  }
}

async function backend(
  status: Awaited<ReturnType<typeof gatherStatus>>,
  lines: DoctorLine[],
): Promise<DoctorReport["backend"]> {
  const url = status.device.ok ? status.device.backendUrl : null;
  const token = status.token.source;
  if (!url) {
    lines.push({
      check: "backend",
      status: "fail",
      says: `no backend is configured (${status.device.ok ? status.device.file : status.device.error})`,
      fix: "gatehouse login --backend URL",
    });
    return { url: null, token, reachable: null, state: status.connection?.state ?? null };
  }
  const answer = await reachable(url);
  lines.push({
    check: "backend",
    status: answer.ok ? "ok" : "fail",
    says: answer.ok ? `${url} answers` : `${url} cannot be reached: ${answer.why}`,
    fix: answer.ok
      ? null
      : "check the address and the network, or set another with gatehouse login --backend URL",
  });
  lines.push({
    check: "backend-token",
    status: token ? "ok" : "fail",
    says: token
      ? `the device token comes from ${token}`
      : `no device token${status.token.error ? ` (${status.token.error})` : ""}`,
    fix: token ? null : "gatehouse login",
  });
  const c = status.connection;
  if (c?.running) {
    const fine = c.state === "registered";
    lines.push({
      check: "backend-connection",
      status: fine ? "ok" : c.state === "sign-in-required" ? "fail" : "warn",
      says: `the running Gatehouse is ${c.state}${c.lastError ? `: ${c.lastError}` : ""}`,
      fix: fine ? null : c.state === "sign-in-required" ? "gatehouse login" : "see gatehouse status",
    });
  }
  return { url, token, reachable: answer.ok, state: c?.state ?? null };
}

const MARK: Record<LineStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

function print(ctx: CliContext, report: DoctorReport, json: boolean): number {
  if (json) printJson(ctx, report);
  else {
    printLine(ctx, `Gatehouse home ${report.home}`);
    for (const line of report.lines) {
      printLine(ctx, `[${MARK[line.status]}] ${line.check}: ${line.says}`);
      if (line.fix) printLine(ctx, `       fix: ${line.fix}`);
    }
  }
  return report.ok ? 0 : 1;
}

export const command: CommandSpec = {
  name: "doctor",
  summary: "Check the agent CLIs, hooks, keychain, trust and backend, each with its fix",
  usage: USAGE,
  async run(args, ctx) {
    const json = parseJsonFlag(args);
    const lines: DoctorLine[] = [];
    const status = await gatherStatus(ctx);
    const report: DoctorReport = {
      ok: false,
      home: ctx.paths.executorHome,
      agentClis: await agentClis(ctx, lines),
      keychain: await keychain(ctx, lines),
      trust: await trust(ctx, status.runner.serving, lines),
      backend: await backend(status, lines),
      lines,
    };
    report.ok = lines.every((l) => l.status !== "fail");
    return print(ctx, report, json);
  },
  // A home another user could write: nothing in it is read; that is the one line, with its fix.
  refuse(ctx, message, args) {
    const json = args.includes("--json");
    const report: DoctorReport = {
      ok: false,
      home: ctx.paths.executorHome,
      agentClis: [],
      keychain: { inUse: null, file: secretsFilePath(ctx.paths), reasons: [] },
      trust: { home: message, socket: null, socketPath: null },
      backend: { url: null, token: null, reachable: null, state: null },
      lines: [
        {
          check: "trust:home",
          status: "fail",
          says: `${message} The other checks read this home and were skipped.`,
          fix: "make it yours and writable by you alone (chmod go-w, chown), then run gatehouse doctor again",
        },
      ],
    };
    return print(ctx, report, json);
  },
};
