// The built renderer for the browser tests: built once per change of its sources (renderer/, the IPC
// contract) into test-results/e2e-renderer, under a lock so parallel test files share one build.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { withFileLock } from "../../src/core/store/index.js";
import { REPO_ROOT } from "./cli.js";

export const E2E_RENDERER_DIR = path.join(REPO_ROOT, "test-results", "e2e-renderer");

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else out.push(full);
  }
  return out;
}

async function sourceHash(): Promise<string> {
  const files = [
    ...(await listFiles(path.join(REPO_ROOT, "renderer", "src"))),
    path.join(REPO_ROOT, "renderer", "index.html"),
    path.join(REPO_ROOT, "renderer", "vite.config.ts"),
    path.join(REPO_ROOT, "src", "ipc", "contract.ts"),
    path.join(REPO_ROOT, "test", "support", "e2e-renderer.ts"),
  ].sort();
  const hash = createHash("sha256");
  for (const file of files) hash.update(file).update(await fs.readFile(file));
  return hash.digest("hex");
}

/** Builds the renderer unless the build in E2E_RENDERER_DIR is of the current sources; returns the folder. */
export async function ensureRendererBuilt(): Promise<string> {
  await fs.mkdir(path.dirname(E2E_RENDERER_DIR), { recursive: true });
  const stampFile = path.join(path.dirname(E2E_RENDERER_DIR), "e2e-renderer.stamp");
  return withFileLock(
    stampFile,
    async () => {
      const hash = await sourceHash();
      const stamp = await fs.readFile(stampFile, "utf8").catch(() => "");
      const built = await fs.stat(path.join(E2E_RENDERER_DIR, "index.html")).then(
        () => true,
        () => false,
      );
      if (stamp === hash && built) return E2E_RENDERER_DIR;
      const { build } = await import("vite");
      // What ships: the production build (JSX transform and React alike), whatever NODE_ENV the runner set.
      const before = process.env.NODE_ENV;
      process.env.NODE_ENV = "production";
      try {
        await build({
          configFile: path.join(REPO_ROOT, "renderer", "vite.config.ts"),
          mode: "production",
          logLevel: "warn",
          build: { outDir: E2E_RENDERER_DIR, emptyOutDir: true },
        });
      } finally {
        process.env.NODE_ENV = before;
      }
      await fs.writeFile(stampFile, hash);
      return E2E_RENDERER_DIR;
    },
    { timeoutMs: 120_000, staleMs: 120_000 },
  );
}
