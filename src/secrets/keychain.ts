// The OS keychain through native bindings that are loaded lazily: keytar (optional: it compiles from
// source where its prebuilt download is unreachable, and needs libsecret's headers on Linux) and
// @napi-rs/keyring (prebuilt binaries inside its npm packages). A binding that is missing or cannot
// load, or a keychain service that does not answer (Linux without a Secret Service), is "no keychain"
// for that call, never a crash and never a failed import.
import { createRequire } from "node:module";

/** The three calls a keychain binding offers, keyed by service and account (keytar's API). */
export interface KeychainModule {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, value: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface KeychainBackend extends KeychainModule {
  /** For messages: "keytar", "@napi-rs/keyring". */
  readonly name: string;
  /**
   * Which OS item the binding reads and writes for a service and account. Two backends with the same
   * item are one store (never move a secret from one to the other: deleting the "old" copy would
   * delete the new one).
   */
  readonly item: string;
}

/** No keychain answered: the binding failed to load, threw, or did not answer in time. */
export class KeychainUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "KeychainUnavailableError";
  }
}

const requireHere = createRequire(import.meta.url);

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new KeychainUnavailableError(`the keychain did not answer ${what} within ${ms} ms`)),
      ms,
    );
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new KeychainUnavailableError(error instanceof Error ? error.message : String(error)));
      },
    );
  });
}

export interface GuardOptions {
  /** Per call (default 5 s): a keychain that hangs (a Secret Service waiting on a prompt) is no keychain. */
  timeoutMs?: number;
  /** Replaces the module loader (tests: a loader that throws is a machine where the binding is missing). */
  load?: () => KeychainModule;
}

/**
 * A binding behind `KeychainUnavailableError`: every failure (module missing, no D-Bus, no Secret
 * Service, locked and refused, timeout) is reported as the keychain being unavailable for that call.
 * The module is loaded on first use; a failed load is retried on the next call (cheap), so a binding
 * installed while the app runs is picked up.
 */
function guardedKeychain(
  identity: { name: string; item: string },
  defaultLoad: () => KeychainModule,
  options: GuardOptions,
): KeychainBackend {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let module: KeychainModule | undefined;
  const loaded = (): KeychainModule => {
    if (!module) {
      try {
        module = (options.load ?? defaultLoad)();
      } catch (error) {
        // First line only: Node appends the whole require stack.
        const reason = String((error as Error).message).split("\n")[0];
        throw new KeychainUnavailableError(`${identity.name} could not be loaded (${reason})`);
      }
    }
    return module;
  };
  const call = async <T>(what: string, fn: (k: KeychainModule) => Promise<T>): Promise<T> => {
    const k = loaded();
    let started: Promise<T>;
    try {
      started = fn(k);
    } catch (error) {
      throw new KeychainUnavailableError((error as Error).message);
    }
    return withTimeout(started, timeoutMs, what);
  };
  return {
    ...identity,
    getPassword: (service, account) => call("a read", (k) => k.getPassword(service, account)),
    setPassword: (service, account, value) => call("a write", (k) => k.setPassword(service, account, value)),
    deletePassword: (service, account) => call("a delete", (k) => k.deletePassword(service, account)),
  };
}

/** keytar (macOS Keychain, Windows Credential Manager `service/account`, Secret Service on Linux). */
export function keytarKeychain(options: GuardOptions = {}): KeychainBackend {
  return guardedKeychain(
    { name: "keytar", item: "keytar" },
    () => requireHere("keytar") as KeychainModule,
    options,
  );
}

interface KeyringEntry {
  getPassword(): Promise<string | null>;
  setPassword(password: string): Promise<void>;
  deletePassword(): Promise<boolean>;
}
interface KeyringBinding {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: string } },
  ) => KeyringEntry;
}

/** @napi-rs/keyring through keytar's three calls. */
function loadNapiKeyring(): KeychainModule {
  const { AsyncEntry } = requireHere("@napi-rs/keyring") as KeyringBinding;
  // On Linux it would fall back to the kernel keyring (emptied at reboot) when no Secret Service
  // answers: pinned to the Secret Service, so that case is "no keychain" and the caller decides.
  const options = process.platform === "linux" ? { linux: { store: "secret-service" } } : undefined;
  const entry = (service: string, account: string): KeyringEntry => new AsyncEntry(service, account, options);
  return {
    getPassword: (service, account) => entry(service, account).getPassword(),
    setPassword: (service, account, value) => entry(service, account).setPassword(value),
    deletePassword: (service, account) => entry(service, account).deletePassword(),
  };
}

/**
 * @napi-rs/keyring (keyring-rs). On macOS it reads and writes keytar's item (a generic password with
 * the same service and account). On Linux its Secret Service item carries `username` where keytar's
 * carries `account` (measured: neither sees the other's), and on Windows its credential is named
 * `account.service` where keytar's is `service/account`: there it is a separate item.
 */
export function napiKeyringKeychain(options: GuardOptions = {}): KeychainBackend {
  return guardedKeychain(
    { name: "@napi-rs/keyring", item: process.platform === "darwin" ? "keytar" : "napi-rs-keyring" },
    loadNapiKeyring,
    options,
  );
}

/** The keychains the app tries, in order: keytar (where it installed), then @napi-rs/keyring. */
export function defaultKeychains(options: Pick<GuardOptions, "timeoutMs"> = {}): KeychainBackend[] {
  return [keytarKeychain(options), napiKeyringKeychain(options)];
}
