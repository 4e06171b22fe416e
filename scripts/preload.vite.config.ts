// Bundles the Electron preload (src/electron/preload.ts) into one CommonJS file, as a sandboxed preload
// must be: it may require `electron` and nothing else, so the channel lists it imports are inlined.
// Output: dist/src/electron/preload.cjs, next to the compiled main process that loads it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export default defineConfig({
  root,
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: path.join(root, "dist/src/electron"),
    emptyOutDir: false,
    copyPublicDir: false,
    minify: false,
    sourcemap: false,
    target: "node20",
    lib: {
      entry: path.join(root, "src/electron/preload.ts"),
      formats: ["cjs"],
      fileName: () => "preload.cjs",
    },
    rolldownOptions: { external: ["electron"] },
  },
});
