// The tray app's entry point (architecture.md "Electron shell"): one instance per user, the services
// built by the composition root with the device side, the UI attached to the prompt broker, and the
// shell (tray, windows, IPC) started over them. No logic of its own.
import path from "node:path";
import { fileURLToPath } from "node:url";
import electron from "electron";
import { createLogger } from "../core/log.js";
import { resolvePaths } from "../core/paths.js";
import { SettingsFileSchema } from "../core/settings.js";
import { readJsonFile } from "../core/store/index.js";
import { uiServicesFrom } from "../ipc/ui-services.js";
import { createServices } from "../services.js";
import { fileLogSink } from "./log-file.js";
import { realElectron } from "./real-electron.js";
import { startShell } from "./shell.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const api = realElectron(electron);

async function main(): Promise<void> {
  await api.app.whenReady();
  const env = process.env;
  const paths = resolvePaths(env);
  const logger = createLogger({
    level: env.GATEHOUSE_LOG_LEVEL === "debug" ? "debug" : "info",
    sink: fileLogSink(paths.logsDir),
  });
  const root = electron.app.getAppPath();
  // Agents' Claude Code hook runs `gatehouse hook claude` with this Electron binary in Node mode and the
  // app's own bin/gatehouse.js (inside app.asar when packaged; Node mode reads asar archives).
  const gatehouseCommand = [
    "/usr/bin/env",
    "ELECTRON_RUN_AS_NODE=1",
    process.execPath,
    path.join(root, "bin", "gatehouse.js"),
  ];
  const services = createServices({
    env,
    paths,
    logger,
    presenter: null,
    // safeStorage: where no keychain binding loads, the token file is sealed with it (src/secrets).
    device: { gatehouseCommand, safeStorage: electron.safeStorage },
  });
  const started = await services.start();
  if (started.status !== "listening") {
    electron.dialog.showErrorBox("Gatehouse cannot start", started.message);
    api.app.quit();
    return;
  }
  const detachUi = services.broker.attachUi();
  const settings = await readJsonFile(paths.settings, SettingsFileSchema);
  const shell = startShell({
    electron: api,
    services: uiServicesFrom(services, {
      env,
      logger,
    }),
    assetsDir: path.join(root, "assets"),
    preload: path.join(here, "preload.cjs"),
    rendererIndex: path.join(root, "renderer", "dist", "index.html"),
    launchAtLogin: settings.status === "ok" ? settings.value.launchAtLogin : undefined,
    systemResumed: () => void services.device?.systemResumed(),
    stop: async () => {
      detachUi();
      await services.stop();
    },
  });
  // The Playwright tests in test/electron read the tray's state through this (never set otherwise).
  if (env.GATEHOUSE_TEST_HOOKS === "1") (globalThis as { gatehouseShell?: unknown }).gatehouseShell = shell;
}

if (!api.app.requestSingleInstanceLock()) {
  // Another Gatehouse runs for this user: it shows its main window (its "second-instance" handler).
  api.app.quit();
} else {
  main().catch((error: unknown) => {
    electron.dialog.showErrorBox("Gatehouse cannot start", (error as Error).stack ?? String(error));
    api.app.quit();
  });
}
