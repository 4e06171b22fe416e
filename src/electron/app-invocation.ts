// What the app binary was started to do (issue 17 "Fuses"). The packaged app's RunAsNode fuse is off, so
// agents can no longer run `ELECTRON_RUN_AS_NODE=1 <app binary> bin/gatehouse.js hook …`; instead the app
// binary itself answers `<app binary> hook …` from its main process: no window, no tray, no single-
// instance lock (which would quit it and open the running app's main window on every tool call), and
// only the hook's JSON on stdout. Every other word is refused; no arguments start the tray app.
import path from "node:path";

export type AppInvocation =
  | { kind: "app" }
  /** `args` start with "hook" (what the CLI's main takes). */
  | { kind: "hook"; args: string[] }
  | { kind: "refused"; message: string };

/**
 * Chromium switches that would let another local process drive the app's pages (the renderer can decide
 * prompts): a packaged app refuses to start with them.
 */
export const REFUSED_SWITCHES = [
  "--remote-debugging-port",
  "--remote-debugging-pipe",
  "--remote-debugging-address",
];

function isSwitch(arg: string): boolean {
  return arg.startsWith("-");
}

/** The arguments after the binary (and, in a development run, after the app folder Electron was given). */
export function appArguments(argv: readonly string[], defaultApp: boolean): string[] {
  const rest = argv.slice(1);
  if (!defaultApp) return rest;
  const appIndex = rest.findIndex((arg) => !isSwitch(arg));
  return appIndex < 0 ? [] : rest.slice(appIndex + 1);
}

export function appInvocation(
  argv: readonly string[],
  options: { defaultApp: boolean; packaged: boolean },
): AppInvocation {
  const args = appArguments(argv, options.defaultApp);
  if (options.packaged) {
    const refused = argv.find((arg) => REFUSED_SWITCHES.some((s) => arg === s || arg.startsWith(`${s}=`)));
    if (refused)
      return { kind: "refused", message: `Gatehouse does not start with ${refused.split("=")[0]}.` };
  }
  const wordIndex = args.findIndex((arg) => !isSwitch(arg));
  if (wordIndex < 0) return { kind: "app" };
  const word = args[wordIndex] as string;
  if (word === "hook") return { kind: "hook", args: args.slice(wordIndex) };
  return {
    kind: "refused",
    message:
      `The Gatehouse app answers only "hook" on the command line (got ${JSON.stringify(word)}). ` +
      "The other commands are in the gatehouse CLI (npx gatehouse --help in a checkout).",
  };
}

/** How agents started by this app run `gatehouse` (the hook commands): the app binary itself. */
export function appGatehouseCommand(launch: {
  execPath: string;
  appPath: string;
  defaultApp: boolean;
}): string[] {
  return launch.defaultApp ? [launch.execPath, launch.appPath] : [launch.execPath];
}

/** The slice of Electron's `app` the hook mode uses. */
export interface HookModeApp {
  disableHardwareAcceleration(): void;
  getPath(name: "userData"): string;
  setPath(name: "userData" | "sessionData", value: string): void;
  exit(code?: number): void;
}

/** The profile folder a hook process uses, apart from the running app's (their Chromium state never mixes). */
export const HOOK_PROFILE_FOLDER = "hook-process";

function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    try {
      stream.write("", () => resolve());
    } catch {
      resolve();
    }
  });
}

/**
 * Runs `gatehouse hook …` in this process and exits with its status. The caller awaits this before
 * Electron's `ready` (a top-level await in entry.ts), so Chromium starts no GPU process and no session.
 * A hook that throws exits 2: both agent CLIs treat that as "blocked".
 */
export async function runHookInvocation(
  app: HookModeApp,
  args: string[],
  deps: {
    runCli: (args: string[]) => Promise<number>;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
): Promise<number> {
  app.disableHardwareAcceleration();
  const profile = path.join(app.getPath("userData"), HOOK_PROFILE_FOLDER);
  app.setPath("userData", profile);
  app.setPath("sessionData", profile);
  let code: number;
  try {
    code = await deps.runCli(args);
  } catch (error) {
    deps.stderr.write(`gatehouse hook: ${(error as Error).message}\n`);
    code = 2;
  }
  await Promise.all([flushed(deps.stdout), flushed(deps.stderr)]);
  app.exit(code);
  return code;
}
