// Shared set-up for the capability sync tests: a temp home, a real package server, a real
// CapabilitySync, payload builders that publish packages on the server, and tree snapshots.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { createLogger } from "../../../src/core/log.js";
import { CapabilitySync, type SyncLimits, type SyncProgress } from "../../../src/core/capabilities/index.js";
import type { LinkOptions } from "../../../src/core/capabilities/io/links.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
export { codexPluginLinks } from "../../support/codex-plugin-links.js";
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

export function sha256(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Publishes a skill package at the default download path and returns its payload item. */
export function publishSkill(
  server: PackageServer,
  spec: { id: number; name: string; namespace?: string; bytes: Buffer; hash?: string },
): Record<string, unknown> {
  const namespace = spec.namespace ?? "default";
  server.serve(`/api/v1/kinds/skills/${spec.id}/download?${new URLSearchParams({ namespace })}`, spec.bytes);
  return {
    installed_skill_id: spec.id + 1000,
    skill_id: spec.id,
    name: spec.name,
    namespace,
    is_public: false,
    content_hash: spec.hash ?? sha256(spec.bytes),
  };
}

/** Publishes a plugin package and returns its payload item (with a matching checksum). */
export function publishPlugin(
  server: PackageServer,
  spec: {
    id: number;
    name: string;
    marketplace?: string;
    version?: string;
    bytes: Buffer;
    enabled?: boolean;
    checksum?: string;
  },
): Record<string, unknown> {
  const downloadPath = `/api/plugins/installed/${spec.id}/download?v=${encodeURIComponent(spec.version ?? "1.0.0")}`;
  server.serve(downloadPath, spec.bytes);
  return {
    installed_plugin_id: spec.id,
    name: spec.name,
    marketplace: spec.marketplace ?? "claude-plugins-official",
    version: spec.version ?? "1.0.0",
    enabled: spec.enabled ?? true,
    checksum: spec.checksum ?? sha256(spec.bytes),
    download_path: downloadPath,
  };
}

export interface TreeEntry {
  path: string;
  type: "file" | "dir" | "link";
  mode?: number;
  content?: string;
  target?: string;
}

/** Every entry under `root` (links not followed), sorted; file contents hashed. */
export async function snapshotTree(
  root: string,
  options: { skip?: (rel: string) => boolean } = {},
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const walk = async (dir: string) => {
    let names: string[];
    try {
      names = (await fs.readdir(dir)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (options.skip?.(rel)) continue;
      const stat = await fs.lstat(full);
      if (stat.isSymbolicLink()) out.push({ path: rel, type: "link", target: await fs.readlink(full) });
      else if (stat.isDirectory()) {
        out.push({ path: rel, type: "dir", mode: stat.mode & 0o777 });
        await walk(full);
      } else {
        const content = createHash("sha256")
          .update(await fs.readFile(full))
          .digest("hex");
        out.push({ path: rel, type: "file", mode: stat.mode & 0o777, content });
      }
    }
  };
  await walk(root);
  return out;
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
