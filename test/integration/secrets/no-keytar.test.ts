// The machine where keytar did not build (issue 17): a copy of the built app whose node_modules lacks
// keytar (and, in the second case, @napi-rs/keyring too), driven only through its `gatehouse`
// command: login, status, the runner's connection to the test backend, logout.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { napiKeyringKeychain } from "../../../src/secrets/keychain.js";
import { AUTH_TOKEN_ACCOUNT } from "../../../src/secrets/secret-store.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import {
  HOW_TO_RUN_WITH_A_KEYCHAIN,
  keychainProblem,
  keychainRequired,
  sessionBusEnv,
} from "./keychain-probe.js";

interface AppCopy {
  root: string;
  bin: string;
  /** Whether `name` can be required from inside the copy's dist/. */
  resolves(name: string): boolean;
}

/**
 * bin/, dist/ and package.json of this checkout under `folder`, with a node_modules of links to every
 * installed package except `missing`: what a machine where those packages did not install has.
 */
async function copyAppWithout(folder: string, missing: string[]): Promise<AppCopy> {
  const root = path.join(folder, "app");
  await fs.mkdir(path.join(root, "node_modules"), { recursive: true });
  await fs.cp(path.join(REPO_ROOT, "bin"), path.join(root, "bin"), { recursive: true });
  await fs.cp(path.join(REPO_ROOT, "dist"), path.join(root, "dist"), { recursive: true });
  await fs.copyFile(path.join(REPO_ROOT, "package.json"), path.join(root, "package.json"));
  const installed = path.join(REPO_ROOT, "node_modules");
  for (const entry of await fs.readdir(installed)) {
    if (missing.includes(entry)) continue;
    if (!entry.startsWith("@")) {
      await fs.symlink(path.join(installed, entry), path.join(root, "node_modules", entry));
      continue;
    }
    await fs.mkdir(path.join(root, "node_modules", entry));
    for (const scoped of await fs.readdir(path.join(installed, entry))) {
      if (missing.includes(`${entry}/${scoped}`)) continue;
      await fs.symlink(path.join(installed, entry, scoped), path.join(root, "node_modules", entry, scoped));
    }
  }
  const requireInCopy = createRequire(path.join(root, "dist", "src", "secrets", "keychain.js"));
  return {
    root,
    bin: path.join(root, "bin", "gatehouse.js"),
    resolves: (name) => {
      try {
        requireInCopy.resolve(name);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** `gatehouse serve` of the copy, running until stopped. */
function startRunner(
  app: AppCopy,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [app.bin, "serve"], { env, cwd: app.root, stdio: "pipe" });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (output += d));
  return { child, output: () => output };
}

async function stopRunner(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

interface StatusJson {
  connection: {
    state: string;
    running: boolean;
    backendUrl?: string | null;
    lastError?: string | null;
  } | null;
  token: { source: string | null };
}

let t: TempHome | undefined;
let backend: TestBackend | undefined;
let runner: ChildProcess | undefined;
afterEach(async () => {
  if (runner) await stopRunner(runner);
  await backend?.close();
  await t?.cleanup();
  runner = undefined;
  backend = undefined;
  t = undefined;
});

/**
 * login → status → the runner registers with the test backend → logout → the runner signs out, all
 * through the copy's CLI. Returns what the CLI printed, for the caller's checks on where it went.
 */
async function signInRunAndSignOut(
  app: AppCopy,
  env: Record<string, string>,
  token: string,
  checkSaved: () => Promise<void>,
) {
  backend = await startTestBackend({ token });
  const cli = (args: string[], input?: string) =>
    runCli(args, { env, bin: app.bin, cwd: app.root, ...(input === undefined ? {} : { input }) });

  const login = await cli(["login", "--backend", backend.url], `${token}\n`);
  expect(login.code).toBe(0);
  await checkSaved();
  const afterLogin = (await cli(["status", "--json"])).json<StatusJson>();

  const serve = startRunner(app, env);
  runner = serve.child;
  const registered = await waitFor(
    async () => {
      if (serve.child.exitCode !== null) throw new Error(`gatehouse serve exited: ${serve.output()}`);
      const status = (await cli(["status", "--json"])).json<StatusJson>();
      return status.connection?.state === "registered" && status.connection.running ? status : null;
    },
    { what: "the runner to register with the test backend", timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(registered.connection?.backendUrl).toBe(backend.url);
  expect(backend.onlineDevice()).toBeDefined();

  const logout = await cli(["logout"]);
  expect(logout.code).toBe(0);
  const signedOut = await waitFor(
    async () => {
      const status = (await cli(["status", "--json"])).json<StatusJson>();
      return status.connection?.state === "unconfigured" ? status : null;
    },
    { what: "the runner to sign out after logout", timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(signedOut.connection?.lastError).toBe("No auth token configured");
  expect(signedOut.token.source).toBeNull();
  await stopRunner(serve.child);
  runner = undefined;
  for (const text of [login.stdout, login.stderr, logout.stdout, serve.output()])
    expect(text).not.toContain(token);
  return { login, afterLogin, logout, serveOutput: serve.output() };
}

const keyringProblem = await keychainProblem(napiKeyringKeychain({ timeoutMs: 3_000 }));
if (keyringProblem !== null && keychainRequired) {
  throw new Error(
    `GATEHOUSE_REQUIRE_KEYCHAIN=1 but @napi-rs/keyring cannot use the keychain: ${keyringProblem}`,
  );
}
if (keyringProblem !== null) {
  console.info(`The @napi-rs/keyring case is skipped: ${keyringProblem}. ${HOW_TO_RUN_WITH_A_KEYCHAIN}`);
}

describe("an install where keytar could not be built", () => {
  it.skipIf(keyringProblem !== null)(
    "the token goes into the OS keychain through @napi-rs/keyring; login, status, the runner's connection and logout work",
    async () => {
      t = await makeTempHome("gatehouse-no-keytar-");
      const app = await copyAppWithout(t.home, ["keytar"]);
      expect(app.resolves("keytar")).toBe(false);
      expect(app.resolves("@napi-rs/keyring")).toBe(true);
      const service = `Gatehouse-test-${randomBytes(6).toString("hex")}`;
      const env = { ...t.env, ...sessionBusEnv(), GATEHOUSE_KEYCHAIN_SERVICE: service };
      const token = `wg-${randomBytes(16).toString("hex")}`;
      const keyring = napiKeyringKeychain();

      const run = await signInRunAndSignOut(app, env, token, async () => {
        expect(await keyring.getPassword(service, AUTH_TOKEN_ACCOUNT)).toBe(token);
      });
      expect(run.login.stdout).toContain("Saved the backend token in the OS keychain.");
      expect(run.login.stderr).not.toContain("No OS keychain is reachable");
      expect(run.afterLogin.token.source).toBe("keychain");
      expect(run.logout.stdout).toContain("Removed the backend token.");
      // Gone from the keychain, and never in a file of the home.
      expect(await keyring.getPassword(service, AUTH_TOKEN_ACCOUNT)).toBeNull();
      await expect(fs.access(path.join(t.paths.executorHome, "secrets.json"))).rejects.toThrow();
    },
  );

  it("with no keychain binding at all the token goes to the 0600 file with one warning, and everything still works", async () => {
    t = await makeTempHome("gatehouse-no-bindings-");
    const app = await copyAppWithout(t.home, ["keytar", "@napi-rs"]);
    expect(app.resolves("keytar")).toBe(false);
    expect(app.resolves("@napi-rs/keyring")).toBe(false);
    const env = { ...t.env, ...sessionBusEnv() };
    const token = `wg-${randomBytes(16).toString("hex")}`;
    const file = path.join(t.paths.executorHome, "secrets.json");

    const run = await signInRunAndSignOut(app, env, token, async () => {
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      expect((await fs.stat(t!.paths.executorHome)).mode & 0o777).toBe(0o700);
    });
    expect(run.login.stdout).toContain(
      `saved the backend token in ${t.paths.executorHome}/secrets.json (mode 0600)`,
    );
    expect(run.login.stderr.match(/No OS keychain is reachable/g)).toHaveLength(1);
    expect(run.login.stderr).toContain("keytar could not be loaded");
    expect(run.afterLogin.token.source).toBe("file");
    expect(run.logout.stdout).toContain("Removed the backend token.");
    await expect(fs.access(file)).rejects.toThrow();
  });
});
