// The IPC router over the real services in a temp home (device side built, not connected), with a
// recording host: what the IPC unit tests call.
import fs from "node:fs/promises";
import path from "node:path";
import { createLogger } from "../../../src/core/log.js";
import { createRouter, type Router } from "../../../src/ipc/router.js";
import { uiServicesFrom, type UiServices } from "../../../src/ipc/ui-services.js";
import { keytarKeychain } from "../../../src/secrets/keychain.js";
import { createSecretStore, type SecretStore } from "../../../src/secrets/secret-store.js";
import { createServices, type Services } from "../../../src/services.js";
import { recordingHost, type RecordingHost } from "../../support/e2e-app.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

export const TRUSTED = Object.freeze({ trusted: true });

export interface RouterFixture {
  t: TempHome;
  services: Services;
  ui: UiServices;
  router: Router;
  host: RecordingHost;
  secrets: SecretStore;
  logs: string[];
  call(
    channel: string,
    payload?: unknown,
  ): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>;
  close(): Promise<void>;
}

export async function startRouterFixture(
  options: { ui?: (ui: UiServices) => UiServices } = {},
): Promise<RouterFixture> {
  const t = await makeTempHome("gatehouse-ipc-");
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  const secrets = createSecretStore({
    paths: t.paths,
    logger,
    keychain: keytarKeychain({
      load: () => {
        throw new Error("no keychain in unit tests");
      },
    }),
  });
  const services = createServices({
    env: t.env,
    paths: t.paths,
    logger,
    presenter: null,
    device: { secrets, connect: false },
  });
  await services.approvals.ensure();
  await services.approvals.applyPreset("ask");
  await services.start();
  const detachUi = services.broker.attachUi();
  const base = uiServicesFrom(services, {
    env: t.env,
    logger,
  });
  const ui = options.ui ? options.ui(base) : base;
  const host = recordingHost();
  const router = createRouter(ui, { isTrustedSender: (sender) => sender === TRUSTED, host });
  return {
    t,
    services,
    ui,
    router,
    host,
    secrets,
    logs,
    call: (channel, payload) => router.handle(channel, payload, TRUSTED) as ReturnType<RouterFixture["call"]>,
    async close() {
      await router.close();
      detachUi();
      await services.stop();
      await t.cleanup();
    },
  };
}

/** Every file under the temp home with its bytes (sockets and locks left out): "nothing changed" means equal. */
export async function snapshotHome(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out[path.relative(root, full)] = await fs.readFile(full, "base64");
    }
  };
  await walk(root);
  return out;
}
