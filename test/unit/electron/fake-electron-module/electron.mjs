// A small, named fake of the `electron` module, for running the compiled entry point
// (dist/src/electron/entry.js) as a child process under plain Node where no Electron binary exists.
// It behaves like a development run (`electron <app folder> …`) and appends every call the entry makes
// to $FAKE_ELECTRON_LOG, so a test sees what the app binary would have done.
import fs from "node:fs";

const log = (line) => {
  if (process.env.FAKE_ELECTRON_LOG) fs.appendFileSync(process.env.FAKE_ELECTRON_LOG, `${line}\n`);
};

// Started like `electron <app folder> …`: argv[1] is the app (here: the entry script).
process.defaultApp = true;

const paths = { userData: process.env.FAKE_ELECTRON_USER_DATA ?? "/nonexistent/Gatehouse" };

const app = {
  isPackaged: process.env.FAKE_ELECTRON_PACKAGED === "1",
  disableHardwareAcceleration: () => log("disableHardwareAcceleration"),
  getPath: (name) => paths[name],
  setPath: (name, value) => {
    paths[name] = value;
    log(`setPath ${name} ${value}`);
  },
  exit: (code = 0) => {
    log(`exit ${code}`);
    process.exit(code);
  },
  requestSingleInstanceLock: () => {
    log("requestSingleInstanceLock");
    return true;
  },
  whenReady: () => new Promise(() => undefined),
  on: () => app,
  quit: () => log("quit"),
};

export default {
  app,
  protocol: { registerSchemesAsPrivileged: () => log("registerSchemesAsPrivileged") },
};
