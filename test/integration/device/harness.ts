// One device in a temp home against the real Socket.IO test backend, with every real part: the
// capability sync engine, the workdir service, the approvals store, the gate and the audit log.
// Only the timings are shortened so the reconnect and heartbeat rules run in milliseconds.
import fs from "node:fs/promises";
import { CapabilitySync } from "../../../src/core/capabilities/index.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import type { ApprovalsFile } from "../../../src/core/approvals/schema.js";
import type { PromptFn } from "../../../src/core/policy/types.js";
import { createLogger, type Logger } from "../../../src/core/log.js";
import { WorkdirService } from "../../../src/core/workdir/io/service.js";
import { createBackendCommands } from "../../../src/device/backend-command.js";
import type { ConnectionState, ConnectionTimings } from "../../../src/device/connection.js";
import type { CapabilitiesPort, RunGated, TaskRegistry } from "../../../src/device/deps.js";
import { DeviceService, type DeviceServiceOptions } from "../../../src/device/device-service.js";
import { AuditLog } from "../../../src/executor/audit-log.js";
import { gateAndRun } from "../../../src/executor/gate.js";
import { keytarKeychain } from "../../../src/secrets/keychain.js";
import { createSecretStore, type SecretStore } from "../../../src/secrets/secret-store.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { httpPackageDownloader } from "../../../src/device/package-download.js";

/** Short intervals, but ack timeouts roomy enough for a loaded CI machine (tests that want a timeout set their own). */
export const FAST_TIMINGS: ConnectionTimings = {
  heartbeatIntervalMs: 150,
  heartbeatTimeoutMs: 3_000,
  backoffBaseMs: 40,
  backoffCapMs: 320,
  connectTimeoutMs: 5_000,
  registerTimeoutMs: 3_000,
};

export interface Harness {
  t: TempHome;
  backend: TestBackend;
  device: DeviceService;
  secrets: SecretStore;
  logs: string[];
  logger: Logger;
  states: ConnectionState[];
  deviceId: string;
  setApprovals(file: Partial<ApprovalsFile>): Promise<void>;
  waitForState(state: ConnectionState["state"], what?: string): Promise<ConnectionState>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  token?: string;
  /** The token the device uses (default: the backend's). */
  deviceToken?: string | null;
  env?: Record<string, string>;
  timings?: Partial<ConnectionTimings>;
  backend?: TestBackend;
  installed?: { skills: number[]; plugins: number[]; mcps: number[] };
  writeConfig?: boolean;
  now?: () => number;
  secrets?: SecretStore;
  /** The person at the approval prompt (default: nobody, askFallback decides). */
  prompt?: PromptFn;
  /** Wraps the real capability sync (e.g. to hold a sync open while heartbeats are observed). */
  wrapCapabilities?: (real: CapabilitiesPort) => CapabilitiesPort;
  createSocket?: DeviceServiceOptions["createSocket"];
  tasks?: TaskRegistry;
}

/** A secret store with no keychain at all (keytar cannot load): the real file-fallback path. */
export function noKeychainSecrets(t: TempHome, logger: Logger): SecretStore {
  return createSecretStore({
    paths: t.paths,
    logger,
    keychain: keytarKeychain({
      load: () => {
        throw new Error("no keychain on this test machine");
      },
    }),
  });
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const token = options.token ?? "test-token";
  const t = await makeTempHome("gatehouse-device-");
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  const backend =
    options.backend ??
    (await startTestBackend({
      token,
      ...(options.installed ? { installed: options.installed } : {}),
    }));
  const deviceId = "device-0123456789abcdef01234567";
  if (options.writeConfig !== false) {
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    await fs.writeFile(
      t.paths.deviceConfig,
      JSON.stringify({
        mode: "local",
        device_type: "local",
        bind_shell: "claudecode",
        device_id: deviceId,
        runtime_instance_id: "runtime-0123456789abcdef01234567",
        device_name: "",
        max_concurrent_tasks: 5,
        connection: { backend_url: backend.url, socket_url: "", auth_token: "" },
      }),
      { mode: 0o600 },
    );
  }
  const deviceToken = options.deviceToken === undefined ? token : options.deviceToken;
  const env: Record<string, string> = {
    ...t.env,
    ...(deviceToken ? { WEGENT_AUTH_TOKEN: deviceToken } : {}),
    ...options.env,
  };
  const secrets = options.secrets ?? noKeychainSecrets(t, logger);
  const capabilities = new CapabilitySync({
    download: httpPackageDownloader(),
    paths: t.paths,
    backendUrl: () => backend.url,
    deviceToken: async () => token,
    logger,
  });
  await capabilities.startup();
  const workdir = new WorkdirService({ paths: t.paths, env, logger });
  await workdir.init();
  const approvals = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  const audit = new AuditLog({ path: t.paths.audit });
  const runGated: RunGated = ({ recheckCwd, ...request }) =>
    gateAndRun(request, {
      approvals,
      audit,
      prompt: options.prompt ?? null,
      baseEnv: env,
      home: t.home,
      now: Date.now,
      logger,
      recheckCwd,
    });
  const device = new DeviceService({
    paths: t.paths,
    env,
    secrets,
    logger,
    capabilities: options.wrapCapabilities ? options.wrapCapabilities(capabilities) : capabilities,
    commands: createBackendCommands({ runGated, workdir, logger }),
    ...(options.createSocket ? { createSocket: options.createSocket } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
    timings: { ...FAST_TIMINGS, ...options.timings },
    ...(options.now ? { now: options.now } : {}),
  });
  const states: ConnectionState[] = [];
  device.onState((s) => states.push(s));
  return {
    t,
    backend,
    device,
    secrets,
    logs,
    logger,
    states,
    deviceId,
    async setApprovals(file) {
      await approvals.ensure();
      await approvals.update((current) => ({ ...current, ...file }));
    },
    waitForState: (state, what) =>
      waitFor(() => (device.state().state === state ? device.state() : null), {
        what: what ?? `state ${state} (now ${JSON.stringify(device.state())})`,
      }),
    async close() {
      await device.stop();
      await device.idle();
      if (!options.backend) await backend.close();
      await t.cleanup();
    },
  };
}
