// `gatehouse serve` as a real child process: started, waited for until it says it is serving, and
// stopped with a signal.
import { spawn, type ChildProcess } from "node:child_process";
import { GATEHOUSE_BIN, REPO_ROOT } from "../../support/cli.js";
import { waitFor } from "../../support/wait-for.js";

export interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `prefix`: a command that starts the server, e.g. setpriv to run it as another user. */
export function spawnServe(
  env: Record<string, string>,
  args: string[] = [],
  options: { prefix?: string[] } = {},
): ServeProcess {
  const [command, ...before] = [...(options.prefix ?? []), process.execPath];
  const child = spawn(command!, [...before, GATEHOUSE_BIN, "serve", ...args], {
    env,
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: () => exit,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}

/** Starts `gatehouse serve` and waits for its ready line. */
export async function startServe(
  env: Record<string, string>,
  args: string[] = [],
  options: { prefix?: string[] } = {},
): Promise<ServeProcess> {
  const serve = spawnServe(env, args, options);
  let ended = false;
  void serve.exited().then(() => (ended = true));
  await waitFor(
    () => {
      if (ended) throw new Error(`gatehouse serve exited early: ${serve.stderr()}`);
      return serve.stdout().includes("Gatehouse is serving");
    },
    { what: "gatehouse serve to be ready", timeoutMs: 20_000 },
  );
  return serve;
}
