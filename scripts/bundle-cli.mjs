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

const inputOptions = {
  input: { main: entry },
  platform: "node",
  // bare package names other than the inlined ones stay imports; relative paths are our own code
  external: (id) => !id.startsWith(".") && !path.isAbsolute(id) && !isInlined(id),
  logLevel: "warn",
};
// CommonJS, not ES modules: Node 20's ESM loader costs a one-shot command more (an asynchronous job,
// translation and linking per file, a facade per built-in), and Node gives CommonJS code a compile
// cache (bin/code-cache.js; module.enableCompileCache on Node 22.1+). The dynamic imports stay lazy.
const outputOptions = {
  dir: outDir,
  format: "cjs",
  entryFileNames: "[name].cjs",
  chunkFileNames: "[name]-[hash].cjs",
  // a lazily loaded package is require()d too: code compiled through the cache cannot run import()
  dynamicImportInCjs: false,
  sourcemap: false,
  // whitespace and comments only: names stay readable in stack traces, no code is rewritten
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
};

// Pass 1, the ordinary split, only to learn what the hot path loads: main.js and the hook command's
// file with everything they import statically (the hook runs on every tool call an agent makes).
const probe = await rolldown(inputOptions);
const { output: probed } = await probe.generate(outputOptions);
await probe.close();
const chunks = new Map(probed.filter((item) => item.type === "chunk").map((c) => [c.fileName, c]));
const hookModule = path.join(root, "dist/src/cli/commands/hook.js");
const hookChunk = [...chunks.values()].find((c) => c.moduleIds.includes(hookModule));
if (!hookChunk) throw new Error("bundle-cli: the hook command is not in the bundle");
const hot = new Set();
const visited = new Set();
const visit = (fileName) => {
  const chunk = chunks.get(fileName);
  if (!chunk || visited.has(fileName)) return;
  visited.add(fileName);
  for (const id of chunk.moduleIds) hot.add(id);
  for (const imported of chunk.imports) visit(imported);
};
visit("main.cjs");
visit(hookChunk.fileName);

// Pass 2: the same split, with the hot path's modules in one file. Node 20's ESM loader reads,
// translates and links each file separately (an asynchronous read and a module job each): the served
// hook went from 17 files to 3, and from 3.0× to 2.6× the CPU of `node -e 0` (issue 12).
await fs.rm(outDir, { recursive: true, force: true });
const bundle = await rolldown(inputOptions);
const { output } = await bundle.write({
  ...outputOptions,
  codeSplitting: { groups: [{ name: "hot-path", test: (id) => hot.has(id) }] },
});
await bundle.close();

// What the launcher needs before the bundle (src/cli/launcher.ts) on its own, for bin/gatehouse.js: the
// code cache's folder is in Gatehouse's home, and paths.ts and the trust checks say where and whether.
const launcher = await rolldown({
  ...inputOptions,
  input: { launcher: path.join(root, "dist/src/cli/launcher.js") },
});
const { output: launcherOutput } = await launcher.write(outputOptions);
await launcher.close();
output.push(...launcherOutput);

const modules = {};
for (const item of output) {
  if (item.type !== "chunk") continue;
  modules[item.fileName] = item.moduleIds.map((id) => path.relative(root, id).split(path.sep).join("/"));
}
await fs.writeFile(path.join(outDir, "modules.json"), `${JSON.stringify(modules, null, 1)}\n`);
process.stdout.write(`bundle-cli: ${Object.keys(modules).length} files in ${path.relative(root, outDir)}/\n`);
