#!/usr/bin/env node
// Tiny launcher: runs the compiled CLI. `npm install` builds it (the `prepare` script): dist/src/ from
// tsc, and dist/cli/, the same code bundled into one file per command (scripts/bundle-cli.mjs), which
// starts several times faster. The bundle runs only while it is at least as new as dist/src/ (a `tsc`
// run without the bundle step leaves it stale: the compiled modules run instead).
import { statSync } from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";

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
// Node 22.1+ can keep compiled code between runs. Its default folder is in the shared temp folder,
// where another user could plant code: ours lives in the user's own cache folder.
module.enableCompileCache?.(
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "gatehouse", "compile-cache"),
);
// The shell parsers' WebAssembly runs on V8's baseline compiler only. V8's background recompilation
// of it with its optimising compiler costs several times a one-shot command (it kept a hook busy for
// over a second of CPU); in the long-lived runner it took ≈ 1 s of CPU (other threads) over the first
// 2 000 commands, the slow tail of policy.first-seen, to save ≈ 0.01 ms a parse after (issue 12).
v8.setFlagsFromString("--liftoff-only");
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
