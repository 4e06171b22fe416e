// A Gatehouse runner in its own process for restart tests: the real composition root from the built
// dist/ (createServices with its device side and task runner) on the home named by the environment.
// Prints "READY" once started; stops on SIGTERM, and tests kill it with SIGKILL to simulate a crash.
// Plain JavaScript so it runs without a TypeScript loader; vitest's global setup builds dist/ first.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dist = (file) => import(path.join(root, "dist", file));
const { createServices } = await dist("src/services.js");
const { resolvePaths } = await dist("src/core/paths.js");
const { createLogger } = await dist("src/core/log.js");
const { createSecretStore } = await dist("src/secrets/secret-store.js");
const { keytarKeychain } = await dist("src/secrets/keychain.js");

const env = { ...process.env };
const paths = resolvePaths(env);
const logger = createLogger({ level: "info", sink: (line) => process.stderr.write(`${line}\n`) });
const secrets = createSecretStore({
  paths,
  logger,
  keychain: keytarKeychain({
    load: () => {
      throw new Error("no keychain in runner-child");
    },
  }),
});
const services = createServices({
  env,
  paths,
  logger,
  device: {
    secrets,
    timings: {
      heartbeatIntervalMs: 150,
      heartbeatTimeoutMs: 400,
      backoffBaseMs: 40,
      backoffCapMs: 320,
      connectTimeoutMs: 1000,
      registerTimeoutMs: 400,
    },
    gatehouseCommand: [process.execPath, path.join(root, "bin", "gatehouse.js")],
  },
});
const started = await services.start();
if (started.status !== "listening") {
  process.stderr.write(`runner-child: ${started.message}\n`);
  process.exit(1);
}
process.stdout.write("READY\n");
process.on("SIGTERM", () => {
  void services.stop().then(() => process.exit(0));
});
