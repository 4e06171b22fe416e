import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = path.dirname(fileURLToPath(import.meta.url));

// The renderer is loaded from app://gatehouse/ in Electron and from a local server in the e2e tests:
// relative asset paths work for both.
export default defineConfig({
  root: here,
  base: "./",
  build: { outDir: path.join(here, "dist"), emptyOutDir: true, sourcemap: false },
});
