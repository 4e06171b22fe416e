// The backend token in the real OS keychain (gnome-keyring under dbus-run-session in CI; see
// scripts/test.sh). Where no keychain is reachable these tests are reported as skipped, with the reason.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import { keytarKeychain, napiKeyringKeychain } from "../../../src/secrets/keychain.js";
import { AUTH_TOKEN_ACCOUNT, createSecretStore, secretStoreFor } from "../../../src/secrets/secret-store.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startHarness, type Harness } from "../device/harness.js";
import {
  HOW_TO_RUN_WITH_A_KEYCHAIN,
  keychainProblem,
  keychainRequired,
  keytarExpectedMissing,
  keytarRequired,
  sessionBusEnv,
} from "./keychain-probe.js";

const keytarProblem = await keychainProblem(keytarKeychain({ timeoutMs: 3_000 }));
const keyringProblem = await keychainProblem(napiKeyringKeychain({ timeoutMs: 3_000 }));
const keytarAvailable = keytarProblem === null;
const keyringAvailable = keyringProblem === null;
const keychainAvailable = keytarAvailable || keyringAvailable;
if (!keychainAvailable && keychainRequired) {
  throw new Error(
    `GATEHOUSE_REQUIRE_KEYCHAIN=1 but no OS keychain is reachable: keytar: ${keytarProblem}; @napi-rs/keyring: ${keyringProblem}`,
  );
}
// CI proves both paths: the normal install must have a working keytar, the fresh-install step none.
if (keytarExpectedMissing && keytarAvailable) {
  throw new Error(
    "GATEHOUSE_EXPECT_NO_KEYTAR=1 but keytar loads and works: this run proves nothing about its absence",
  );
}
if (keytarRequired && !keytarAvailable) {
  throw new Error(`GATEHOUSE_REQUIRE_KEYTAR=1 but keytar does not work: ${keytarProblem}`);
}
if (!keychainAvailable) {
  console.info(
    `Keychain tests skipped: no OS keychain is reachable (keytar: ${keytarProblem}; @napi-rs/keyring: ${keyringProblem}). ${HOW_TO_RUN_WITH_A_KEYCHAIN}`,
  );
}
/** The binding the default store writes through here: keytar where it loads, else @napi-rs/keyring. */
const workingKeychain = keytarAvailable ? keytarKeychain() : napiKeyringKeychain();

/** Every file under `dir` whose bytes contain `needle`. */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = await fs.readFile(file).catch(() => Buffer.alloc(0));
    if (bytes.includes(needle)) hits.push(file);
  }
  return hits;
}

const service = () => `Gatehouse-test-${randomBytes(6).toString("hex")}`;

let h: Harness | undefined;
let t: TempHome | undefined;
afterEach(async () => {
  await h?.close();
  await t?.cleanup();
  h = undefined;
  t = undefined;
});

describe("the backend token in the OS keychain", () => {
  it.skipIf(!keychainAvailable)(
    "a token saved with `gatehouse login` is read from the keychain, the device registers with it, and it is in no file and no log line",
    async () => {
      const token = `wg-${randomBytes(16).toString("hex")}`;
      const keychainService = service();
      h = await startHarness({
        token,
        deviceToken: null,
        env: { GATEHOUSE_KEYCHAIN_SERVICE: keychainService },
      });
      const cliEnv = {
        ...h.t.env,
        GATEHOUSE_KEYCHAIN_SERVICE: keychainService,
        ...sessionBusEnv(),
      };
      const login = await runCli(["login", "--backend", h.backend.url], {
        env: cliEnv,
        input: `Bearer ${token}\n`,
      });
      expect(login.code).toBe(0);
      expect(login.stdout).toContain("Saved the backend token in the OS keychain.");
      await expect(fs.access(path.join(h.t.paths.executorHome, "secrets.json"))).rejects.toThrow();

      // The device reads it back through the same store the app uses.
      const { DeviceService } = await import("../../../src/device/device-service.js");
      expect(h.device).toBeInstanceOf(DeviceService);
      const store = secretStoreFor(h.t.paths, cliEnv, h.logger);
      expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe(token);
      const withKeychain = await startHarness({
        backend: h.backend,
        token,
        deviceToken: null,
        secrets: store,
      });
      try {
        await withKeychain.device.start();
        await withKeychain.waitForState("registered");
        withKeychain.logger.info(`the token is ${token}`); // a careless caller: still redacted
        const status = await runCli(["status", "--json"], { env: { ...cliEnv, HOME: withKeychain.t.home } });
        expect(status.json<{ token: { source: string } }>().token.source).toBe("keychain");

        expect(await filesContaining(h.t.home, token)).toEqual([]);
        expect(await filesContaining(withKeychain.t.home, token)).toEqual([]);
        const allLogs = [
          ...h.logs,
          ...withKeychain.logs,
          login.stdout,
          login.stderr,
          status.stdout,
          status.stderr,
        ];
        expect(allLogs.join("\n")).not.toContain(token);
        expect(withKeychain.logs.some((line) => line.includes("the token is [redacted]"))).toBe(true);
      } finally {
        await withKeychain.close();
        const logout = await runCli(["logout"], { env: cliEnv });
        expect(logout.stdout).toContain("Removed the backend token.");
      }
    },
  );

  it.skipIf(!keychainAvailable)(
    "a secret parked in the fallback file moves into the keychain once one is reachable",
    async () => {
      t = await makeTempHome();
      const logger = createLogger({ sink: () => undefined });
      const keychainService = service();
      const broken = createSecretStore({
        paths: t.paths,
        logger,
        service: keychainService,
        keychain: keytarKeychain({
          load: () => {
            throw new Error("no keychain yet");
          },
        }),
      });
      await broken.set(AUTH_TOKEN_ACCOUNT, "parked-token");
      const file = path.join(t.paths.executorHome, "secrets.json");
      expect(await fs.readFile(file, "utf8")).toContain("parked-token");

      const real = createSecretStore({ paths: t.paths, logger, service: keychainService });
      expect(await real.get(AUTH_TOKEN_ACCOUNT)).toBe("parked-token");
      expect(real.location()).toBe("keychain");
      await expect(fs.access(file)).rejects.toThrow();
      expect(await workingKeychain.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBe("parked-token");
      expect(await real.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
      expect(await real.get(AUTH_TOKEN_ACCOUNT)).toBeNull();
    },
  );
});

describe("keytar and @napi-rs/keyring side by side", () => {
  it.skipIf(!keytarAvailable)(
    "a token saved with keytar by an earlier Gatehouse is read as it is",
    async () => {
      t = await makeTempHome();
      const keychainService = service();
      await keytarKeychain().setPassword(keychainService, AUTH_TOKEN_ACCOUNT, "saved-by-keytar");
      const store = createSecretStore({
        paths: t.paths,
        logger: createLogger({ sink: () => undefined }),
        service: keychainService,
      });
      expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("saved-by-keytar");
      expect(store.location()).toBe("keychain");
      expect(await store.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
      expect(await keytarKeychain().getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBeNull();
    },
  );

  it.skipIf(!keytarAvailable || !keyringAvailable || process.platform !== "linux")(
    "on Linux the two bindings keep separate Secret Service items, so a token parked in @napi-rs/keyring's moves into keytar's once keytar loads",
    async () => {
      t = await makeTempHome();
      const logger = createLogger({ sink: () => undefined });
      const keychainService = service();
      const keytar = keytarKeychain();
      const keyring = napiKeyringKeychain();
      await keytar.setPassword(keychainService, AUTH_TOKEN_ACCOUNT, "in-keytar-item");
      expect(await keyring.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBeNull();
      await keytar.deletePassword(keychainService, AUTH_TOKEN_ACCOUNT);

      const withoutKeytar = createSecretStore({
        paths: t.paths,
        logger,
        service: keychainService,
        keychains: [
          keytarKeychain({
            load: () => {
              throw new Error("keytar did not build");
            },
          }),
          keyring,
        ],
      });
      await withoutKeytar.set(AUTH_TOKEN_ACCOUNT, "parked-in-keyring");
      expect(withoutKeytar.location()).toBe("keychain");
      expect(await keyring.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBe("parked-in-keyring");
      await expect(fs.access(path.join(t.paths.executorHome, "secrets.json"))).rejects.toThrow();

      const both = createSecretStore({ paths: t.paths, logger, service: keychainService });
      expect(await both.get(AUTH_TOKEN_ACCOUNT)).toBe("parked-in-keyring");
      expect(await keytar.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBe("parked-in-keyring");
      expect(await keyring.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBeNull();
      expect(await both.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
      expect(await keytar.getPassword(keychainService, AUTH_TOKEN_ACCOUNT)).toBeNull();
    },
  );
});

describe("machines without a keychain", () => {
  it("the token goes to E/secrets.json (0600 in a 0700 folder) with one loud warning", async () => {
    t = await makeTempHome();
    const lines: string[] = [];
    const logger = createLogger({ sink: (line) => lines.push(line) });
    const store = createSecretStore({
      paths: t.paths,
      logger,
      keychain: keytarKeychain({
        load: () => {
          throw new Error("no Secret Service");
        },
      }),
    });
    await store.set(AUTH_TOKEN_ACCOUNT, "file-token-1");
    await store.set(AUTH_TOKEN_ACCOUNT, "file-token-2");
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("file-token-2");
    expect(store.location()).toBe("file");
    const file = path.join(t.paths.executorHome, "secrets.json");
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(t.paths.executorHome)).mode & 0o777).toBe(0o700);
    const warnings = lines.filter((l) => l.includes("No OS keychain is reachable"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file);
    expect(lines.join("\n")).not.toContain("file-token");

    expect(await store.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
    await expect(fs.access(file)).rejects.toThrow();
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBeNull();
  });

  it("a keychain that does not answer in time counts as no keychain", async () => {
    t = await makeTempHome();
    const hanging = keytarKeychain({
      timeoutMs: 50,
      load: () => ({
        getPassword: () => new Promise<string | null>(() => undefined),
        setPassword: () => new Promise<void>(() => undefined),
        deletePassword: () => new Promise<boolean>(() => undefined),
      }),
    });
    const store = createSecretStore({
      paths: t.paths,
      logger: createLogger({ sink: () => undefined }),
      keychain: hanging,
    });
    await store.set(AUTH_TOKEN_ACCOUNT, "slow-token");
    expect(store.location()).toBe("file");
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("slow-token");
  });

  it("`gatehouse login` never takes the token from the command line, refuses an empty one and a bad URL", async () => {
    t = await makeTempHome();
    const argv = await runCli(["login", "secret-on-argv"], { env: t.env, input: "" });
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain("the token is not taken from the command line");
    const empty = await runCli(["login"], { env: t.env, input: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("no token given");
    const badUrl = await runCli(["login", "--backend", "ftp://x"], { env: t.env, input: "tok\n" });
    expect(badUrl.code).toBe(2);
    await expect(fs.access(t.paths.executorHome)).rejects.toThrow();
  });

  it("`gatehouse login` saves the token and backend URL, and a device in sign-in-required reconnects at once", async () => {
    h = await startHarness({ deviceToken: null });
    await h.secrets.set(AUTH_TOKEN_ACCOUNT, "stale-token");
    await h.device.start();
    await h.waitForState("sign-in-required");

    const login = await runCli(["login", "--backend", h.backend.url, "--json"], {
      env: h.t.env,
      input: "test-token",
    });
    expect(login.code).toBe(0);
    expect(login.json()).toMatchObject({
      saved: true,
      location: "file",
      backendUrl: h.backend.url,
      deviceId: h.deviceId,
    });
    await h.waitForState("registered");
    expect(await filesContaining(h.t.paths.executorHome, "stale-token")).toEqual([]);

    const logout = await runCli(["logout", "--json"], { env: h.t.env });
    expect(logout.json()).toEqual({ removed: true, stillFrom: [] });
    await waitFor(() => h!.device.state().lastError === "No auth token configured", {
      what: "the device to sign out",
    });
    expect(h.device.state().state).toBe("unconfigured");
  });
});
