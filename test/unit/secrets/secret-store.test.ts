// The order the secret store tries its places in, and how a secret moves between them. The keychains
// here are in-memory stand-ins (the real bindings against gnome-keyring are in
// test/integration/secrets), and safeStorage is a stand-in too (no Electron binary runs here); the
// fallback file is the real one in a temp home.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import {
  KeychainUnavailableError,
  keytarKeychain,
  type KeychainBackend,
} from "../../../src/secrets/keychain.js";
import {
  AUTH_TOKEN_ACCOUNT,
  createSecretStore,
  secretsFilePath,
  type SafeStorageLike,
} from "../../../src/secrets/secret-store.js";
import { safeStorageProblem } from "../../../src/secrets/secrets-file.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

/** A keychain kept in a Map of OS items shared by backends with the same `item` (a stand-in). */
function memoryKeychain(name: string, items: Map<string, string>, item = name) {
  let reachable = true;
  const check = () => {
    if (!reachable) throw new KeychainUnavailableError(`${name} is not reachable`);
  };
  const key = (service: string, account: string) => `${item}|${service}|${account}`;
  const backend: KeychainBackend = {
    name,
    item,
    getPassword: async (service, account) => (check(), items.get(key(service, account)) ?? null),
    setPassword: async (service, account, value) => {
      check();
      items.set(key(service, account), value);
    },
    deletePassword: async (service, account) => (check(), items.delete(key(service, account))),
  };
  return {
    backend,
    value: (account = AUTH_TOKEN_ACCOUNT) => items.get(key("Gatehouse", account)) ?? null,
    setReachable: (flag: boolean) => (reachable = flag),
  };
}

const missingKeytar = keytarKeychain({
  load: () => {
    throw new Error("Cannot find module 'keytar'\nRequire stack:\n- /somewhere");
  },
});

/** A stand-in for Electron's safeStorage: reversible, and visibly not plain text. */
function fakeSafeStorage(backend = "gnome_libsecret"): SafeStorageLike & { available: boolean } {
  const fake = {
    available: true,
    isEncryptionAvailable: () => fake.available,
    encryptString: (plain: string) => Buffer.from(`sealed:${Buffer.from(plain).toString("hex")}`),
    decryptString: (sealed: Buffer) => {
      const text = sealed.toString();
      if (!text.startsWith("sealed:")) throw new Error("not sealed by this key");
      return Buffer.from(text.slice("sealed:".length), "hex").toString();
    },
    getSelectedStorageBackend: () => backend,
  };
  return fake;
}

let t: TempHome | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ sink: (line) => lines.push(line) }) };
}

const fileText = async () => fs.readFile(secretsFilePath(t!.paths), "utf8");
const fileExists = async () =>
  fs.access(secretsFilePath(t!.paths)).then(
    () => true,
    () => false,
  );

describe("the order of the keychains", () => {
  it("where keytar is missing, the next binding stores the secret: no file, no warning", async () => {
    t = await makeTempHome();
    const { lines, logger } = capture();
    const keyring = memoryKeychain("keyring", new Map());
    const store = createSecretStore({ paths: t.paths, logger, keychains: [missingKeytar, keyring.backend] });
    await store.set(AUTH_TOKEN_ACCOUNT, "tok-1");
    expect(store.location()).toBe("keychain");
    expect(keyring.value()).toBe("tok-1");
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("tok-1");
    expect(await fileExists()).toBe(false);
    expect(lines.join("\n")).not.toContain("No OS keychain");
  });

  it("a secret parked in a later binding's item moves into the first once it answers, and the copy goes", async () => {
    t = await makeTempHome();
    const { lines, logger } = capture();
    const items = new Map<string, string>();
    const keytar = memoryKeychain("keytar", items);
    const keyring = memoryKeychain("keyring", items);
    keytar.setReachable(false);
    const store = createSecretStore({ paths: t.paths, logger, keychains: [keytar.backend, keyring.backend] });
    await store.set(AUTH_TOKEN_ACCOUNT, "parked");
    expect(keyring.value()).toBe("parked");

    keytar.setReachable(true);
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("parked");
    expect(keytar.value()).toBe("parked");
    expect(keyring.value()).toBeNull();
    expect(lines.join("\n")).toContain(
      'Moved the secret "wegent-auth-token" from keyring into the OS keychain (keytar).',
    );
    expect(lines.join("\n")).not.toContain("parked");
  });

  it("saving through the first keychain removes older copies parked in later items and in the file", async () => {
    t = await makeTempHome();
    const { logger } = capture();
    const items = new Map<string, string>();
    const keytar = memoryKeychain("keytar", items);
    const keyring = memoryKeychain("keyring", items);
    const onlyFile = createSecretStore({ paths: t.paths, logger, keychain: missingKeytar });
    await onlyFile.set(AUTH_TOKEN_ACCOUNT, "old-in-file");
    await keyring.backend.setPassword("Gatehouse", AUTH_TOKEN_ACCOUNT, "old-in-keyring");

    const store = createSecretStore({ paths: t.paths, logger, keychains: [keytar.backend, keyring.backend] });
    await store.set(AUTH_TOKEN_ACCOUNT, "new");
    expect(keytar.value()).toBe("new");
    expect(keyring.value()).toBeNull();
    expect(await fileExists()).toBe(false);
  });

  it("two bindings over the same OS item (macOS) are one store: a save never deletes what it just wrote", async () => {
    t = await makeTempHome();
    const { logger } = capture();
    const items = new Map<string, string>();
    const keytar = memoryKeychain("keytar", items, "generic-password");
    const keyring = memoryKeychain("keyring", items, "generic-password");
    const store = createSecretStore({ paths: t.paths, logger, keychains: [keytar.backend, keyring.backend] });
    await store.set(AUTH_TOKEN_ACCOUNT, "shared");
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("shared");
    expect(keyring.value()).toBe("shared");
    expect(await store.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
    expect(keytar.value()).toBeNull();
  });

  it("logout deletes the secret from every keychain that answers and from the file", async () => {
    t = await makeTempHome();
    const { logger } = capture();
    const items = new Map<string, string>();
    const keytar = memoryKeychain("keytar", items);
    const keyring = memoryKeychain("keyring", items);
    await keytar.backend.setPassword("Gatehouse", AUTH_TOKEN_ACCOUNT, "a");
    await keyring.backend.setPassword("Gatehouse", AUTH_TOKEN_ACCOUNT, "b");
    await createSecretStore({ paths: t.paths, logger, keychain: missingKeytar }).set(AUTH_TOKEN_ACCOUNT, "c");
    const store = createSecretStore({ paths: t.paths, logger, keychains: [keytar.backend, keyring.backend] });
    expect(await store.delete(AUTH_TOKEN_ACCOUNT)).toBe(true);
    expect([keytar.value(), keyring.value(), await fileExists()]).toEqual([null, null, false]);
    expect(await store.delete(AUTH_TOKEN_ACCOUNT)).toBe(false);
  });

  it("with no keychain at all the warning names every binding's reason once, without Node's require stack", async () => {
    t = await makeTempHome();
    const { lines, logger } = capture();
    const keyring = memoryKeychain("keyring", new Map());
    keyring.setReachable(false);
    const store = createSecretStore({ paths: t.paths, logger, keychains: [missingKeytar, keyring.backend] });
    await store.set(AUTH_TOKEN_ACCOUNT, "x");
    await store.get(AUTH_TOKEN_ACCOUNT);
    const warnings = lines.filter((l) => l.includes("No OS keychain is reachable"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("keytar: keytar could not be loaded (Cannot find module 'keytar')");
    expect(warnings[0]).toContain("keyring: keyring is not reachable");
    expect(warnings[0]).not.toContain("Require stack");
    expect(store.location()).toBe("file");
  });
});

describe("the fallback file inside the tray app (Electron safeStorage)", () => {
  it("holds the secret sealed, never in plain text, and without the plain-text warning", async () => {
    t = await makeTempHome();
    const { lines, logger } = capture();
    const store = createSecretStore({
      paths: t.paths,
      logger,
      keychain: missingKeytar,
      safeStorage: fakeSafeStorage(),
    });
    await store.set(AUTH_TOKEN_ACCOUNT, "app-token");
    expect(await fileText()).not.toContain("app-token");
    expect(JSON.parse(await fileText())).toMatchObject({ version: 1, secrets: {}, sealed: {} });
    expect((await fs.stat(secretsFilePath(t.paths))).mode & 0o777).toBe(0o600);
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("app-token");
    expect(store.location()).toBe("keychain");
    expect(lines.join("\n")).not.toContain("anyone who can read your files");
    expect(lines.join("\n")).toContain("sealed with Electron safeStorage");
  });

  it("the CLI cannot open the app's sealed value, says so once, and its own login replaces it", async () => {
    t = await makeTempHome();
    const app = createSecretStore({
      paths: t.paths,
      logger: capture().logger,
      keychain: missingKeytar,
      safeStorage: fakeSafeStorage(),
    });
    await app.set(AUTH_TOKEN_ACCOUNT, "sealed-by-app");
    const { lines, logger } = capture();
    const cli = createSecretStore({ paths: t.paths, logger, keychain: missingKeytar });
    expect(await cli.get(AUTH_TOKEN_ACCOUNT)).toBeNull();
    await cli.get(AUTH_TOKEN_ACCOUNT);
    expect(lines.filter((l) => l.includes("sealed by the Gatehouse tray app"))).toHaveLength(1);

    await cli.set(AUTH_TOKEN_ACCOUNT, "from-cli");
    const file = JSON.parse(await fileText()) as { secrets: object; sealed?: object };
    expect(file.secrets).toEqual({ [AUTH_TOKEN_ACCOUNT]: "from-cli" });
    expect(file.sealed).toBeUndefined();
    // The app reads the newer token, and seals it on the way.
    expect(await app.get(AUTH_TOKEN_ACCOUNT)).toBe("from-cli");
    expect(await fileText()).not.toContain("from-cli");
  });

  it("a sealed value moves into a keychain that answers later", async () => {
    t = await makeTempHome();
    const { logger } = capture();
    const keytar = memoryKeychain("keytar", new Map());
    keytar.setReachable(false);
    const store = createSecretStore({
      paths: t.paths,
      logger,
      keychains: [keytar.backend],
      safeStorage: fakeSafeStorage(),
    });
    await store.set(AUTH_TOKEN_ACCOUNT, "sealed-then-moved");
    keytar.setReachable(true);
    expect(await store.get(AUTH_TOKEN_ACCOUNT)).toBe("sealed-then-moved");
    expect(keytar.value()).toBe("sealed-then-moved");
    expect(await fileExists()).toBe(false);
  });

  it("safeStorage that protects nothing (Linux basic_text, or no encryption) is not used", async () => {
    expect(safeStorageProblem(fakeSafeStorage("basic_text"), "linux")).toContain("basic_text");
    expect(safeStorageProblem(fakeSafeStorage("kwallet5"), "linux")).toBeNull();
    expect(safeStorageProblem(fakeSafeStorage("basic_text"), "darwin")).toBeNull();
    const unavailable = fakeSafeStorage();
    unavailable.available = false;
    expect(safeStorageProblem(unavailable, "darwin")).toContain("no encryption");

    t = await makeTempHome();
    const { lines, logger } = capture();
    const store = createSecretStore({
      paths: t.paths,
      logger,
      keychain: missingKeytar,
      safeStorage: fakeSafeStorage(process.platform === "linux" ? "basic_text" : "unknown"),
    });
    if (process.platform !== "linux") return;
    await store.set(AUTH_TOKEN_ACCOUNT, "plain-because-basic-text");
    expect(await fileText()).toContain("plain-because-basic-text");
    expect(store.location()).toBe("file");
    expect(lines.filter((l) => l.includes("No OS keychain is reachable"))).toHaveLength(1);
  });
});

describe("loading the bindings", () => {
  it("importing the secret store never loads a binding; a missing one is 'no keychain' for that call", async () => {
    let loads = 0;
    const keychain = keytarKeychain({
      load: () => {
        loads += 1;
        throw new Error("Cannot find module 'keytar'");
      },
    });
    expect(loads).toBe(0);
    await expect(keychain.getPassword("Gatehouse", "a")).rejects.toBeInstanceOf(KeychainUnavailableError);
    expect(loads).toBe(1);
  });

  it("the secrets file path is E/secrets.json", async () => {
    t = await makeTempHome();
    expect(secretsFilePath(t.paths)).toBe(path.join(t.paths.executorHome, "secrets.json"));
  });
});
