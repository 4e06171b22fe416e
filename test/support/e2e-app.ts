// The whole app in a temp home for the browser tests, built by the composition root as the tray app
// builds it (approvals, broker, approval socket, audit log, gate, workdirs, skill catalogue, capability
// sync, and — connected when a test backend is given — the device); the IPC router over them; and
// a host that records what the UI asked the OS to do (the only stand-in: there is no desktop here).
import fs from "node:fs/promises";
import { createLogger, type Logger } from "../../src/core/log.js";
import type { ConnectionTimings } from "../../src/device/connection.js";
import { createRouter, type Router } from "../../src/ipc/router.js";
import { uiServicesFrom, type UiHost, type UiServices } from "../../src/ipc/ui-services.js";
import type { Screen } from "../../src/ipc/contract.js";
import { keytarKeychain } from "../../src/secrets/keychain.js";
import { AUTH_TOKEN_ACCOUNT, createSecretStore } from "../../src/secrets/secret-store.js";
import { createServices, type Services } from "../../src/services.js";
import type { TestBackend } from "../../src/demo-backend/server.js";
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
  close(): Promise<void>;
}

export interface E2eAppOptions {
  backend?: TestBackend;
  /** Written to E/exec-approvals.json (merged over a fresh file) before anything starts. */
  approvals?: Record<string, unknown>;
  /** Runs in the temp home before the services start (write skills, folders…). */
  prepare?: (t: TempHome) => Promise<void>;
  env?: Record<string, string>;
  /** The platform the router reports to the renderer (button order); commands still run on this one. */
  uiPlatform?: NodeJS.Platform;
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
  if (options.backend) await secrets.set(AUTH_TOKEN_ACCOUNT, options.backend.token);
  const services = createServices({
    env: t.env,
    paths: t.paths,
    logger,
    presenter: null,
    device: { secrets, timings: E2E_TIMINGS, connect: Boolean(options.backend) },
  });
  if (options.approvals) {
    await services.approvals.ensure();
    await services.approvals.update((file) => ({ ...file, ...options.approvals }));
  }
  const started = await services.start();
  if (started.status !== "listening")
    throw new Error(`the approval socket did not start: ${started.message}`);
  const detachUi = services.broker.attachUi();
  const ui = uiServicesFrom(services, { env: t.env, logger });
  // Only what the renderer is told: the explain/gate code keeps this machine's platform.
  if (options.uiPlatform) ui.platform = options.uiPlatform;
  const host = recordingHost();
  const router = createRouter(ui, { isTrustedSender: (sender) => sender === E2E_SENDER, host });

  return {
    t,
    services,
    ui,
    router,
    host,
    logs,
    logger,
    async close() {
      await router.close();
      detachUi();
      await services.stop();
      await t.cleanup();
    },
  };
}

/** The one sender the browser tests' router trusts: the page under test. */
export const E2E_SENDER = Object.freeze({ kind: "e2e-page" });
