#!/usr/bin/env node
// Tiny launcher: runs the compiled CLI. `npm install` builds it (the `prepare` script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    "gatehouse: the CLI is not built yet; run `npm install` (or `npm run build`) in the project folder.\n",
  );
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
