// Shared set-up for the capability sync tests: a temp home, a real package server, a real
// CapabilitySync, payload builders that publish packages on the server, and tree snapshots.
import fs from "node:fs/promises";
import { createLogger } from "../../../src/core/log.js";
import { CapabilitySync, type SyncLimits, type SyncProgress } from "../../../src/core/capabilities/index.js";
import type { LinkOptions } from "../../../src/core/capabilities/io/links.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
export { codexPluginLinks } from "../../support/codex-plugin-links.js";
export { snapshotTree, type TreeEntry } from "../../support/tree-snapshot.js";
export { publishPlugin, publishSkill, sha256 } from "../../support/published-packages.js";
import { httpPackageDownloader } from "../../../src/device/package-download.js";

export interface SyncHarness {
  home: TempHome;
  server: PackageServer;
  sync: CapabilitySync;
  logs: string[];
  progress: SyncProgress[];
  cleanup(): Promise<void>;
}

export async function makeSyncHarness(
  options: { limits?: Partial<SyncLimits>; prefix?: string; symlink?: LinkOptions["symlink"] } = {},
): Promise<SyncHarness> {
  const home = await makeTempHome("gatehouse-caps-");
  const server = await startPackageServer({ prefix: options.prefix });
  const logs: string[] = [];
  const sync = new CapabilitySync({
    download: httpPackageDownloader(),
    paths: home.paths,
    backendUrl: () => server.backendUrl,
    deviceToken: async () => server.token,
    logger: createLogger({ level: "debug", sink: (line) => logs.push(line) }),
    limits: options.limits,
    symlink: options.symlink,
  });
  const progress: SyncProgress[] = [];
  sync.onProgress((event) => progress.push(event));
  await sync.startup();
  return {
    home,
    server,
    sync,
    logs,
    progress,
    async cleanup() {
      await server.close();
      await home.cleanup();
    },
  };
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, "utf8")) as T;
}

export async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}
