// `gatehouse status [--json]`: what a person needs to know at a glance — is a Gatehouse serving this
// home, is the device connected (from E/status.json, written by the running app), where the token
// comes from (never the token itself), and whether the approvals file is usable.
import { requestOnce } from "../../approval-server/client.js";
import { ApprovalsFileSchema } from "../../core/approvals/schema.js";
import { resolveSettings } from "../../core/policy/resolve-settings.js";
import { readJsonFile } from "../../core/store/index.js";
import { peekDeviceConfig } from "../../device/config.js";
import { readStatusFile, type StatusFile } from "../../device/status-file.js";
import { resolveAuthToken } from "../../secrets/auth-token.js";
import { secretStoreFor } from "../../secrets/secret-store.js";
import { parseJsonFlag } from "../args.js";
import { printJson, printLine, type CliContext, type CommandSpec } from "../context.js";

export interface StatusReport {
  home: string;
  runner: { serving: boolean; version?: string; ui?: boolean; reason?: string };
  connection: (StatusFile["connection"] & { running: boolean; pid: number; updatedAt: string }) | null;
  device:
    | { ok: true; deviceId: string; deviceName: string; backendUrl: string | null; file: string }
    | { ok: false; error: string; file: string };
  token: { source: "env" | "keychain" | "file" | "device-config" | null; error?: string };
  approvals: {
    path: string;
    status: "ok" | "missing" | "invalid";
    error?: string;
    defaults?: Record<string, unknown>;
    /** What applies to an agent without settings of its own, and where each value came from. */
    effective?: { security: string; ask: string; askFallback: string; sources: Record<string, string> };
    /** True when nothing can run: no file, an invalid one, or security=deny everywhere by default. */
    everythingDenied: boolean;
    /** Running elevations (`gatehouse elevate`). */
    elevated: { agentId: string; until: number }[];
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What `status` shows (doctor reads the same). */
export async function gatherStatus(ctx: CliContext): Promise<StatusReport> {
  const { paths } = ctx;
  const ping = await requestOnce(paths, "ping", {}, { timeoutMs: 2_000, connectTimeoutMs: 2_000 });
  const runner: StatusReport["runner"] =
    ping.status === "ok"
      ? { serving: true, version: ping.body.version, ui: ping.body.ui }
      : { serving: false, reason: ping.status === "unavailable" ? ping.reason : ping.message };

  const statusFile = await readStatusFile(paths);
  const connection =
    statusFile.status === "ok"
      ? {
          ...statusFile.value.connection,
          running: statusFile.value.running && processAlive(statusFile.value.pid),
          pid: statusFile.value.pid,
          updatedAt: statusFile.value.updatedAt,
        }
      : null;

  const peek = await peekDeviceConfig({ paths, env: ctx.env });
  const device: StatusReport["device"] = peek.ok
    ? {
        ok: true,
        deviceId: peek.config.deviceId,
        deviceName: peek.config.deviceName,
        backendUrl: peek.config.socketUrl ?? peek.config.backendUrl,
        file: peek.config.file,
      }
    : {
        ok: false,
        file: peek.file,
        error:
          peek.error ??
          ("missing" in peek && peek.missing === "file"
            ? "not set up yet (run `gatehouse login --backend URL`)"
            : "no device id yet (generated when Gatehouse first connects)"),
      };

  const token: StatusReport["token"] = { source: null };
  try {
    const secrets = secretStoreFor(paths, ctx.env, ctx.logger);
    const found = await resolveAuthToken({
      env: ctx.env,
      secrets,
      configToken: peek.ok ? peek.config.fileAuthToken : null,
      logger: ctx.logger,
    });
    if (found)
      token.source =
        found.source === "secret-store"
          ? secrets.location() === "file"
            ? "file"
            : "keychain"
          : found.source;
  } catch (error) {
    token.error = (error as Error).message;
  }

  const approvalsFile = await readJsonFile(paths.approvals, ApprovalsFileSchema);
  const now = Date.now();
  let approvals: StatusReport["approvals"];
  if (approvalsFile.status === "ok") {
    const file = approvalsFile.value;
    const effective = resolveSettings({ status: "ok", path: paths.approvals, file }, "*");
    const elevated = Object.entries(file.elevated ?? {})
      .filter(([, e]) => e.until > now)
      .map(([agentId, e]) => ({ agentId, until: e.until }));
    const anyAgentRuns = Object.values(file.agents).some((a) => a.security && a.security !== "deny");
    approvals = {
      path: paths.approvals,
      status: "ok",
      defaults: { ...(file.defaults ?? {}) },
      effective: { ...effective, sources: { ...effective.sources } },
      everythingDenied: effective.security === "deny" && !anyAgentRuns && elevated.length === 0,
      elevated,
    };
  } else if (approvalsFile.status === "missing") {
    approvals = { path: paths.approvals, status: "missing", everythingDenied: true, elevated: [] };
  } else {
    approvals = {
      path: paths.approvals,
      status: "invalid",
      error: approvalsFile.error,
      everythingDenied: true,
      elevated: [],
    };
  }

  return { home: paths.executorHome, runner, connection, device, token, approvals };
}

const TOKEN_TEXT: Record<string, string> = {
  env: "from WEGENT_AUTH_TOKEN",
  keychain: "saved in the OS keychain",
  file: "saved in the fallback file secrets.json (no keychain reachable)",
  "device-config": "from connection.auth_token in device-config.json",
};

function describeConnection(report: StatusReport): string {
  const c = report.connection;
  if (!c) return "no state recorded yet (Gatehouse has not run here)";
  if (!c.running) return `not running (last known: ${c.state} at ${c.updatedAt})`;
  switch (c.state) {
    case "registered":
      return `registered with ${c.backendUrl} since ${c.registeredAt}; last heartbeat ${c.lastHeartbeatAt ?? "pending"}`;
    case "offline":
      return `offline: ${c.lastError ?? "disconnected"}; next attempt at ${c.nextRetryAt ?? "soon"}`;
    case "sign-in-required":
      return `sign-in required: ${c.lastError ?? "the backend refused the token"} (run \`gatehouse login\`)`;
    case "unconfigured":
      return `not configured: ${c.lastError ?? "missing backend URL or token"}`;
    case "paused":
      return "paused";
    default:
      return `connecting to ${c.backendUrl ?? "the backend"}`;
  }
}

function describeApprovals(a: StatusReport["approvals"]): string {
  if (a.status === "missing")
    return "no policy yet: everything is denied until you choose a policy (`gatehouse init --preset ask`)";
  if (a.status === "invalid") return `invalid (${a.error}); everything is denied until it is fixed`;
  const e = a.effective!;
  const settings = `security=${e.security} (${e.sources.security}), ask=${e.ask} (${e.sources.ask}), askFallback=${e.askFallback} (${e.sources.askFallback})`;
  return a.everythingDenied
    ? `${settings}: everything is denied until you choose a policy (\`gatehouse init --preset ask\`)`
    : settings;
}

export const command: CommandSpec = {
  name: "status",
  summary: "Connection and service status",
  usage: "gatehouse status [--json]",
  async run(args, ctx) {
    const json = parseJsonFlag(args);
    const report = await gatherStatus(ctx);
    if (json) {
      printJson(ctx, report);
      return 0;
    }
    printLine(ctx, `Gatehouse home ${report.home}`);
    printLine(
      ctx,
      `Runner:     ${report.runner.serving ? `serving (version ${report.runner.version}, UI ${report.runner.ui ? "attached" : "not attached"})` : `not serving (${report.runner.reason})`}`,
    );
    printLine(ctx, `Connection: ${describeConnection(report)}`);
    // The running Gatehouse may have got its URL and token from its own environment (not this shell's).
    const c = report.connection;
    const runnerHasBackend = c !== null && c.running && c.backendUrl !== null && c.state !== "unconfigured";
    const shellEnvUrl = Boolean(ctx.env.WEGENT_BACKEND_URL?.trim() || ctx.env.WEGENT_SOCKET_URL?.trim());
    const urlText =
      report.device.ok && report.device.backendUrl
        ? `${report.device.backendUrl} (from ${shellEnvUrl ? "this shell's environment" : report.device.file})`
        : runnerHasBackend
          ? `${c.backendUrl} (from the running Gatehouse's environment)`
          : "not configured (run `gatehouse login --backend URL`)";
    printLine(
      ctx,
      report.device.ok
        ? `Device:     ${report.device.deviceId} (${report.device.deviceName}), backend ${urlText}`
        : runnerHasBackend
          ? `Device:     ${c.deviceId ?? "?"} (${c.deviceName ?? "?"}), backend ${urlText}`
          : `Device:     ${report.device.error}`,
    );
    const tokenText = report.token.error
      ? `unreadable: ${report.token.error}`
      : report.token.source
        ? TOKEN_TEXT[report.token.source]
        : runnerHasBackend
          ? "from the running Gatehouse's environment (this shell has none)"
          : "none (run `gatehouse login`)";
    printLine(ctx, `Token:      ${tokenText}`);
    const a = report.approvals;
    printLine(ctx, `Approvals:  ${a.path}: ${describeApprovals(a)}`);
    for (const e of a.elevated)
      printLine(
        ctx,
        `Elevated:   ${e.agentId === "*" ? "every agent" : `agent ${e.agentId}`} runs with security=full until ${new Date(e.until).toISOString()} (\`gatehouse elevate off\` ends it)`,
      );
    return 0;
  },
};
