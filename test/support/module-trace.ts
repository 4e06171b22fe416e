// Preload (`node --import dist/test/support/module-trace.js …`) that records every module the process
// loads into the file named by GATEHOUSE_MODULE_TRACE, one per line: ES modules as the loader sees
// them (a hook on its own thread appends each URL as it loads), CommonJS ones from require.cache at
// exit, Node's built-in modules as `node:NAME`, and last `v8-tag:N`, V8's tag of its build and the flags
// set at exit (v8.cachedDataVersionTag). Used by the start-up test to check which code a command pulls in.
import fs from "node:fs";
import { createRequire, register } from "node:module";
import type v8 from "node:v8";

const out = process.env.GATEHOUSE_MODULE_TRACE;
if (out) {
  const hooks = `
    import fs from "node:fs";
    export async function load(url, context, next) {
      fs.appendFileSync(${JSON.stringify(out)}, url + "\\n");
      return next(url, context);
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  const require = createRequire(import.meta.url);
  process.on("exit", () => {
    const cjs = Object.keys(require.cache).map((file) => `file://${file}`);
    // Node's own modules as `node:NAME` (internal ones too), from the list of what this process loaded
    const builtins = (process as unknown as { moduleLoadList: string[] }).moduleLoadList
      .filter((entry) => entry.startsWith("NativeModule "))
      .map((entry) => `node:${entry.slice("NativeModule ".length)}`);
    // read after the list above: node:v8 is loaded here only if the command did not load it
    const tag = (require("node:v8") as typeof v8).cachedDataVersionTag();
    fs.appendFileSync(out, [...cjs, ...builtins, `v8-tag:${tag}`].map((line) => `${line}\n`).join(""));
  });
}
