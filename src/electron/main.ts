// The tray app (entry.ts loads this when the binary was started for nothing else): one instance per
// user, the services built by the composition root with the device side, the UI attached to the prompt
// broker, and the shell (tray, windows, IPC, menu, updates) started over them. No logic of its own.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import electron from "electron";
import { createLogger } from "../core/log.js";
import { resolvePaths } from "../core/paths.js";
import { SettingsFileSchema } from "../core/settings.js";
import { readJsonFile } from "../core/store/index.js";
import { uiServicesFrom } from "../ipc/ui-services.js";
import { createServices } from "../services.js";
import { APP_VERSION } from "../version.js";
import { appGatehouseCommand } from "./app-invocation.js";
import { developerMode } from "./app-menu.js";
import { lateUpgradePort, trayUpgradePort } from "./device-upgrade.js";
import { APP_SCHEME, APP_SCHEME_PRIVILEGES } from "./app-protocol.js";
import { autostartCommand, autostartDir, loginItemFor } from "./autostart.js";
import { fileLogSink } from "./log-file.js";
import { realElectron } from "./real-electron.js";
import { startShell } from "./shell.js";
import { detectTrayHost, sessionBusNameHasOwner } from "./tray-host.js";
import type { UpdaterLike } from "./update-controller.js";
import { parseUpdateFeed, updateMode } from "./update-policy.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const api = realElectron(electron);

// Before `ready`: the renderer's scheme is a standard, secure origin (app-protocol.ts).
electron.protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } },
]);

/** electron-updater's autoUpdater where the build has it, else null (then updates are off). */
async function loadUpdater(): Promise<UpdaterLike | null> {
  const specifier = "electron-updater";
  try {
    const loaded = (await import(specifier)) as {
      autoUpdater?: UpdaterLike;
      default?: { autoUpdater?: UpdaterLike };
    };
    return loaded.autoUpdater ?? loaded.default?.autoUpdater ?? null;
  } catch {
    return null;
  }
}

function readIfPresent(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  await api.app.whenReady();
  const env = process.env;
  const paths = resolvePaths(env);
  const logger = createLogger({
    level: env.GATEHOUSE_LOG_LEVEL === "debug" ? "debug" : "info",
    sink: fileLogSink(paths.logsDir),
  });
  const root = electron.app.getAppPath();
  const packaged = electron.app.isPackaged;
  const launch = { execPath: process.execPath, appPath: root, defaultApp: process.defaultApp === true };
  // Agents' hooks run the app binary itself with `hook …` (app-invocation.ts): the RunAsNode fuse is off.
  const gatehouseCommand = appGatehouseCommand(launch);
  // device:upgrade asks this app's updater, known once the feed is read below.
  const upgrade = lateUpgradePort();
  const services = createServices({
    env,
    paths,
    logger,
    presenter: null,
    // safeStorage: where no keychain binding loads, the token file is sealed with it (src/secrets).
    device: { gatehouseCommand, safeStorage: electron.safeStorage, upgrade },
  });
  const started = await services.start();
  if (started.status !== "listening") {
    electron.dialog.showErrorBox("Gatehouse cannot start", started.message);
    api.app.quit();
    return;
  }
  const detachUi = services.broker.attachUi();
  const settings = await readJsonFile(paths.settings, SettingsFileSchema);

  // The feed is read from inside the signed app (electron-builder writes it when `publish` is set).
  const feed = parseUpdateFeed(
    packaged ? readIfPresent(path.join(process.resourcesPath, "app-update.yml")) : null,
  );
  const updater = packaged && feed.feed ? await loadUpdater() : null;
  const mode = updateMode({
    platform: process.platform,
    packaged,
    feed: feed.feed,
    ...(feed.feed ? {} : { noFeedReason: feed.reason }),
    updaterInstalled: updater !== null,
  });
  upgrade.bind(trayUpgradePort({ mode, updater, version: APP_VERSION }));

  const shell = startShell({
    electron: api,
    services: uiServicesFrom(services, {
      env,
      logger,
    }),
    assetsDir: path.join(root, "assets"),
    preload: path.join(here, "preload.cjs"),
    rendererDir: path.join(root, "renderer", "dist"),
    launchAtLogin: settings.status === "ok" ? settings.value.launchAtLogin : undefined,
    loginItem: loginItemFor({
      platform: process.platform,
      setLoginItemSettings: (login) => electron.app.setLoginItemSettings(login),
      linux: {
        dir: autostartDir(env, paths.home),
        command: autostartCommand({ ...launch, appImage: env.APPIMAGE }),
      },
    }),
    developer: developerMode({ packaged, env }),
    trayHost: await detectTrayHost({
      platform: process.platform,
      env,
      nameHasOwner: sessionBusNameHasOwner(env),
    }),
    updates: { mode, updater },
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
