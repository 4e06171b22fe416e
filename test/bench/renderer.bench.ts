// `renderer.bundle` (bench.md): the gzip size of the renderer's JavaScript as shipped (a production
// build of renderer/ into a temp folder). Target ≤ 300 KiB; absolute, no baseline.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Benchmark } from "./harness.js";
import { round } from "./harness.js";

const TARGET_KIB = 300;

/** The repository root, from dist/test/bench (compiled) or test/bench (source). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (path.basename(dir) !== "test") dir = path.dirname(dir);
  const parent = path.dirname(dir);
  return path.basename(parent) === "dist" ? path.dirname(parent) : parent;
}

async function jsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsFiles(full)));
    else if (entry.name.endsWith(".js")) out.push(full);
  }
  return out;
}

export const benchmarks: Benchmark[] = [
  {
    name: "renderer.bundle",
    async run() {
      const root = repoRoot();
      const outDir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-renderer-bench-"));
      try {
        const { build } = await import("vite");
        process.env.NODE_ENV = "production";
        await build({
          configFile: path.join(root, "renderer", "vite.config.ts"),
          mode: "production",
          logLevel: "silent",
          build: { outDir, emptyOutDir: true },
        });
        let raw = 0;
        let gzipped = 0;
        const files = await jsFiles(outDir);
        for (const file of files) {
          const bytes = await fs.readFile(file);
          raw += bytes.length;
          gzipped += gzipSync(bytes, { level: 9 }).length;
        }
        const kib = round(gzipped / 1024, 1);
        return {
          name: "renderer.bundle",
          value: kib,
          unit: "KiB (gzip)",
          baseline: null,
          ratio: null,
          target: `≤ ${TARGET_KIB} KiB`,
          ok: kib <= TARGET_KIB,
          details: { files: files.length, rawKiB: round(raw / 1024, 1) },
        };
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    },
  },
];
