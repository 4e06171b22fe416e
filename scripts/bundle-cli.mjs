// Bundles the compiled CLI (dist/src/cli/main.js, from `tsc -p tsconfig.build.json`) into dist/cli/:
// one file per command, split where the sources import lazily (src/cli/commands/index.ts), so a call
// reads and compiles a few files instead of hundreds of modules (docs/decisions.md "Start-up").
// Our code, zod and picomatch are inlined; every other package stays an ordinary import (native
// modules, WebAssembly that finds its files beside its own module, and the server-side libraries the
// hot paths never load). bin/gatehouse.js runs the bundle only while it is newer than dist/src/.
// Writes dist/cli/modules.json: which source modules each file holds (the start-up test reads it).
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const entry = path.join(root, "dist/src/cli/main.js");
const outDir = path.join(root, "dist/cli");
const INLINED = ["zod", "picomatch"];

let rolldown;
try {
  ({ rolldown } = await import("rolldown"));
} catch {
  // A production install without dev dependencies: bin/gatehouse.js runs dist/src/ as it is.
  process.stdout.write("bundle-cli: rolldown is not installed; the CLI runs unbundled\n");
  process.exit(0);
}

const isInlined = (id) => INLINED.some((name) => id === name || id.startsWith(`${name}/`));

await fs.rm(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: entry },
  platform: "node",
  // bare package names other than the inlined ones stay imports; relative paths are our own code
  external: (id) => !id.startsWith(".") && !path.isAbsolute(id) && !isInlined(id),
  logLevel: "warn",
});
const { output } = await bundle.write({
  dir: outDir,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
  sourcemap: false,
  // whitespace and comments only: names stay readable in stack traces, no code is rewritten
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
});
await bundle.close();

const modules = {};
for (const item of output) {
  if (item.type !== "chunk") continue;
  modules[item.fileName] = item.moduleIds.map((id) => path.relative(root, id).split(path.sep).join("/"));
}
await fs.writeFile(path.join(outDir, "modules.json"), `${JSON.stringify(modules, null, 1)}\n`);
process.stdout.write(`bundle-cli: ${Object.keys(modules).length} files in ${path.relative(root, outDir)}/\n`);
