// The app's entry point (package.json `main`): decides what this start of the binary is for
// (app-invocation.ts) before anything else loads — the agents' hook (`<app> hook …`, run once per tool
// call: only the CLI's hook module is loaded, and it finishes before Electron's `ready`), a refusal, or
// the tray app (main.ts).
import electron from "electron";
import { appInvocation, runHookInvocation } from "./app-invocation.js";

const invocation = appInvocation(process.argv, {
  defaultApp: process.defaultApp === true,
  packaged: electron.app.isPackaged,
});

if (invocation.kind === "hook") {
  await runHookInvocation(electron.app, invocation.args, {
    runCli: async (args) => (await import("../cli/main.js")).main(args),
    stdout: process.stdout,
    stderr: process.stderr,
  });
} else if (invocation.kind === "refused") {
  process.stderr.write(`${invocation.message}\n`);
  electron.app.exit(2);
} else {
  await import("./main.js");
}
