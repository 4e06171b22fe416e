// The whole app in a temp home for the browser tests: the composition root's services (approvals,
// broker, approval socket, audit log, gate), the workdir service, the skill catalogue, capability sync
// and — when a test backend is given — the device connection, all real; the IPC router over them; and
// a host that records what the UI asked the OS to do (the only stand-in: there is no desktop here).
import fs from "node:fs/promises";
import { CapabilitySync } from "../../src/core/capabilities/index.js";
import { createLogger, type Logger } from "../../src/core/log.js";
import { SkillCatalogue } from "../../src/core/skills/index.js";
import { WorkdirService } from "../../src/core/workdir/index.js";
import { createBackendCommands } from "../../src/device/backend-command.js";
import type { ConnectionTimings } from "../../src/device/connection.js";
import { DeviceService } from "../../src/device/device-service.js";
import { gateAndRun } from "../../src/executor/gate.js";
import { createRouter, type Router } from "../../src/ipc/router.js";
import { uiServicesFrom, type UiHost, type UiServices } from "../../src/ipc/ui-services.js";
import type { Screen } from "../../src/ipc/contract.js";
import { keytarKeychain } from "../../src/secrets/keychain.js";
import { createSecretStore } from "../../src/secrets/secret-store.js";
import { createServices, type Services } from "../../src/services.js";
import type { TestBackend } from "../backend/server.js";
import { makeTempHome, type TempHome } from "./temp-home.js";

/** A fake of the desktop (file manager, clipboard, folder picker): records each request. */
export interface RecordingHost extends UiHost {
  revealed: string[];
  opened: string[];
  copied: string[];
  external: string[];
  loginItem: boolean[];
  mainWindow: Array<Screen | undefined>;
  /** What the next folder picker returns. */
  nextFolder: string | null;
}

export function recordingHost(): RecordingHost {
  const host: RecordingHost = {
    revealed: [],
    opened: [],
    copied: [],
    external: [],
    loginItem: [],
    mainWindow: [],
    nextFolder: null,
    revealPath: (p) => void host.revealed.push(p),
    openPath: (p) => void host.opened.push(p),
    copyText: (t) => void host.copied.push(t),
    openExternal: (u) => void host.external.push(u),
    pickFolder: async () => host.nextFolder,
    setLaunchAtLogin: (enabled) => void host.loginItem.push(enabled),
    openMainWindow: (screen) => void host.mainWindow.push(screen),
  };
  return host;
}

export const E2E_TIMINGS: ConnectionTimings = {
  heartbeatIntervalMs: 200,
  heartbeatTimeoutMs: 1_000,
  backoffBaseMs: 50,
  backoffCapMs: 400,
  connectTimeoutMs: 2_000,
  registerTimeoutMs: 1_000,
};

export interface E2eApp {
  t: TempHome;
  services: Services;
  ui: UiServices;
  router: Router;
  host: RecordingHost;
  logs: string[];
  logger: Logger;
  workdir: WorkdirService;
  skills: SkillCatalogue;
  capabilities: CapabilitySync;
  device: DeviceService | null;
  close(): Promise<void>;
}

export interface E2eAppOptions {
  backend?: TestBackend;
  /** Written to E/exec-approvals.json (merged over a fresh file) before anything starts. */
  approvals?: Record<string, unknown>;
  /** Runs in the temp home before the services start (write skills, folders…). */
  prepare?: (t: TempHome) => Promise<void>;
  env?: Record<string, string>;
}

export async function startE2eApp(options: E2eAppOptions = {}): Promise<E2eApp> {
  const t = await makeTempHome("gatehouse-e2e-", options.env ?? {});
  const logs: string[] = [];
  const logger = createLogger({ level: "info", sink: (line) => logs.push(line) });
  await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
  if (options.backend) {
    await fs.writeFile(
      t.paths.deviceConfig,
      JSON.stringify({
        mode: "local",
        device_type: "local",
        device_id: "device-e2e0123456789abcdef012345",
        device_name: "e2e",
        connection: { backend_url: options.backend.url, socket_url: "", auth_token: "" },
      }),
      { mode: 0o600 },
    );
  }
  await options.prepare?.(t);

  const services = await createServices({ env: t.env, paths: t.paths, logger, presenter: null });
  if (options.approvals) {
    await services.approvals.ensure();
    await services.approvals.update((file) => ({ ...file, ...options.approvals }));
  }
  const started = await services.start();
  if (started.status !== "listening")
    throw new Error(`the approval socket did not start: ${started.message}`);
  let listening = true;
  const detachUi = services.broker.attachUi();

  // No OS keychain in tests: the real file fallback (never the user's keychain).
  const secrets = createSecretStore({
    paths: t.paths,
    logger,
    keychain: keytarKeychain({
      load: () => {
        throw new Error("no keychain in the browser tests");
      },
    }),
  });
  const workdir = new WorkdirService({ paths: t.paths, env: t.env, logger });
  await workdir.init();
  const skills = new SkillCatalogue({
    paths: t.paths,
    env: t.env,
    logger,
    secrets: { get: async () => null },
  });
  const backend = options.backend;
  const capabilities = new CapabilitySync({
    paths: t.paths,
    backendUrl: () => backend?.url ?? null,
    deviceToken: async () => backend?.token ?? null,
    logger,
  });
  await capabilities.startup();
  let device: DeviceService | null = null;
  if (backend) {
    await secrets.set("wegent-auth-token", backend.token);
    device = new DeviceService({
      paths: t.paths,
      env: t.env,
      secrets,
      logger,
      capabilities,
      commands: createBackendCommands({
        runGated: ({ recheckCwd, ...request }) =>
          gateAndRun(request, { ...services.gateDeps, prompt: services.broker.request, recheckCwd }),
        workdir,
        logger,
      }),
      timings: E2E_TIMINGS,
    });
  }
  const ui = uiServicesFrom(services, {
    env: t.env,
    logger,
    listening: () => listening,
    workdir,
    skills,
    capabilities,
    device,
    secrets,
  });
  const host = recordingHost();
  const router = createRouter(ui, { isTrustedSender: (sender) => sender === E2E_SENDER, host });
  if (device) await device.start();

  return {
    t,
    services,
    ui,
    router,
    host,
    logs,
    logger,
    workdir,
    skills,
    capabilities,
    device,
    async close() {
      await router.close();
      if (device) {
        await device.stop();
        await device.idle();
      }
      detachUi();
      await services.stop();
      listening = false;
      await skills.stopWatching();
      await t.cleanup();
    },
  };
}

/** The one sender the browser tests' router trusts: the page under test. */
export const E2E_SENDER = Object.freeze({ kind: "e2e-page" });
