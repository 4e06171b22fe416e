#!/usr/bin/env node
// Tiny launcher: runs the compiled CLI. `npm install` builds it (the `prepare` script): dist/src/ from
// tsc, and dist/cli/, the same code bundled into one file per command (scripts/bundle-cli.mjs), which
// starts several times faster. The bundle runs only while it is at least as new as dist/src/ (a `tsc`
// run without the bundle step leaves it stale: the compiled modules run instead).
import { statSync } from "node:fs";
import module from "node:module";
import path from "node:path";

const BASELINE_WASM_ONLY = "--liftoff-only";
const compiled = new URL("../dist/src/cli/main.js", import.meta.url);
const bundled = new URL("../dist/cli/main.js", import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? null;

const compiledAt = mtime(compiled);
const bundledAt = mtime(bundled);
if (compiledAt === null && bundledAt === null) {
  process.stderr.write(
    "gatehouse: the CLI is not built yet; run `npm install` (or `npm run build`) in the project folder.\n",
  );
  process.exit(2);
}
// Node 22.1+ can keep compiled code between runs. Whoever can write that folder can swap the code
// the hook runs, so it is neither the shared temp folder (other users) nor ~/.cache (the agents run as
// this user): it is inside Gatehouse's own home, which the gate keeps agents out of (own-files), once
// `gatehouse init` has made that home.
if (module.enableCompileCache) {
  const { resolvePaths } = await import("../dist/src/core/paths.js");
  const { executorHome } = resolvePaths(process.env);
  if (statSync(executorHome, { throwIfNoEntry: false })?.isDirectory()) {
    module.enableCompileCache(path.join(executorHome, "compile-cache"));
  }
}
// A one-shot command runs the shell parsers' WebAssembly a few times and exits: V8's background
// recompilation of it with its optimising compiler would cost several times the whole command (it
// kept a hook busy for over a second of CPU). The long-lived runner keeps the optimising tier. The
// hook, which runs on every tool call, parses only when no Gatehouse answers: it sets the flag itself
// then (src/cli/hook/decide.ts), and skips loading node:v8 here.
if (process.argv[2] !== "serve" && process.argv[2] !== "hook") {
  (await import("node:v8")).default.setFlagsFromString(BASELINE_WASM_ONLY);
}
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
const entry = bundledAt !== null && (compiledAt === null || bundledAt >= compiledAt) ? bundled : compiled;
const { main } = await import(entry.href);
const status = await main(process.argv.slice(2));
process.exitCode = outputClosed ? EXIT_OUTPUT_CLOSED : status;
