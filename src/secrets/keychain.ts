// The OS keychain through keytar, loaded lazily: a machine where the native module cannot load, or
// where no keychain service answers (Linux without a Secret Service), is "no keychain", not a crash.
import { createRequire } from "node:module";

export interface KeychainBackend {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, value: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** No keychain answered: keytar failed to load, threw, or did not answer in time. */
export class KeychainUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "KeychainUnavailableError";
  }
}

type KeytarModule = KeychainBackend;

function loadKeytar(): KeytarModule {
  const require = createRequire(import.meta.url);
  return require("keytar") as KeytarModule;
}

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

/**
 * keytar behind `KeychainUnavailableError`: every failure (module missing, no D-Bus, no Secret
 * Service, locked and refused, timeout) is reported as the keychain being unavailable for that call.
 */
export function keytarKeychain(
  options: { timeoutMs?: number; load?: () => KeytarModule } = {},
): KeychainBackend {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let module: KeytarModule | undefined;
  const keytar = (): KeytarModule => {
    if (!module) {
      try {
        module = (options.load ?? loadKeytar)();
      } catch (error) {
        throw new KeychainUnavailableError(`keytar could not be loaded (${(error as Error).message})`);
      }
    }
    return module;
  };
  const call = async <T>(what: string, fn: (k: KeytarModule) => Promise<T>): Promise<T> => {
    const k = keytar();
    let started: Promise<T>;
    try {
      started = fn(k);
    } catch (error) {
      throw new KeychainUnavailableError((error as Error).message);
    }
    return withTimeout(started, timeoutMs, what);
  };
  return {
    getPassword: (service, account) => call("a read", (k) => k.getPassword(service, account)),
    setPassword: (service, account, value) => call("a write", (k) => k.setPassword(service, account, value)),
    deletePassword: (service, account) => call("a delete", (k) => k.deletePassword(service, account)),
  };
}
