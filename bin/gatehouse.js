#!/usr/bin/env node
// Tiny launcher: runs the compiled CLI. `npm install` builds it (the `prepare` script): dist/src/ from
// tsc, and dist/cli/, the same code bundled into one file per command (scripts/bundle-cli.mjs), which
// starts several times faster. The bundle runs only while it is at least as new as dist/src/ (a `tsc`
// run without the bundle step leaves it stale: the compiled modules run instead).
// CommonJS (bin/package.json): a one-shot command then never starts Node's ES module loader.
"use strict";
const { statSync } = require("node:fs");
const nodeModule = require("node:module");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const command = process.argv[2];
const compiled = path.join(__dirname, "../dist/src/cli/main.js");
const bundled = path.join(__dirname, "../dist/cli/main.cjs");
const mtime = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null;

const compiledAt = mtime(compiled);
const bundledAt = mtime(bundled);
if (compiledAt === null && bundledAt === null) {
  process.stderr.write(
    "gatehouse: the CLI is not built yet; run `npm install` (or `npm run build`) in the project folder.\n",
  );
  process.exit(2);
}
// The shell parsers' WebAssembly runs on V8's baseline compiler only. V8's background recompilation
// of it with its optimising compiler costs several times a one-shot command (it kept a hook busy for
// over a second of CPU); in the long-lived runner it took ≈ 1 s of CPU (other threads) over the first
// 2 000 commands, the slow tail of policy.first-seen, to save ≈ 0.01 ms a parse after (issue 12).
// Set first: a code cache is valid only under the flags it was made with (bin/code-cache.js keeps one
// entry per flag set). Not in the hook, which parses only when no Gatehouse answers and sets it there
// (src/core/policy/io/wasm-tier.ts): any V8 flag set at all makes Node compile its own modules from
// source, its embedded code cache being valid only under the default flags, and net, crypto and the
// streams then cost the served hook ≈ 10 ms more of CPU, a fifth of a `node -e 0`.
if (command !== "hook") require("node:v8").setFlagsFromString("--liftoff-only");
// A reader that goes away (`gatehouse exec --json … | head -c 300`) ends our output quietly, as
// SIGPIPE ends a C program's: no stack trace, nothing more written, exit status 128 + SIGPIPE.
const EXIT_OUTPUT_CLOSED = 141;
let outputClosed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED" && stream === process.stdout) {
      process.stderr.write(`gatehouse: cannot write the output: ${error.message}\n`);
    }
    if (stream !== process.stdout) return;
    outputClosed = true;
    // The error may come after main() has returned (a write still queued when the reader left).
    process.exitCode = EXIT_OUTPUT_CLOSED;
  });
}

/**
 * The bundle, compiled through a cache of V8's compiled code: one-shot commands (the hook runs on every
 * tool call) spend much of their time compiling it. Whoever can write the cache changes the code
 * Gatehouse runs, so it is in Gatehouse's own home (`E/compile-cache`), which the gate keeps agents out
 * of, and only while that home is the user's alone: not the shared temp folder (Node 22's default, where
 * another user could plant code) nor ~/.cache (the agents run as this user). Node 22.1+ keeps the cache
 * itself; on older Node, bin/code-cache.js does. The long-lived runner compiles once and needs none.
 */
function loadBundle() {
  if (command === "serve") return require(bundled);
  // src/cli/launcher.ts, bundled on its own: Gatehouse's home and the trust checks, as the CLI has them
  const { isPrivateFolder, resolvePaths } = require("../dist/cli/launcher.cjs");
  const home = resolvePaths(process.env).executorHome;
  if (nodeModule.enableCompileCache) {
    if (isPrivateFolder(home)) nodeModule.enableCompileCache(path.join(home, "compile-cache"));
    return require(bundled);
  }
  const { requireWithCodeCache } = require("./code-cache.js");
  return requireWithCodeCache(bundled, { parent: home, name: "compile-cache", isPrivateFolder });
}

async function run() {
  const useBundle = bundledAt !== null && (compiledAt === null || bundledAt >= compiledAt);
  const { main } = useBundle ? loadBundle() : await import(pathToFileURL(compiled).href);
  const status = await main(process.argv.slice(2));
  process.exitCode = outputClosed ? EXIT_OUTPUT_CLOSED : status;
}
void run();
