// The app's secret store (architecture.md): the first keychain binding that answers — keytar, then
// @napi-rs/keyring — and E/secrets.json only where none does (sealed with Electron safeStorage inside
// the tray app, else plain text with one loud warning). The choice is made per call, so a keychain
// that comes up later is used from then on, and a secret parked in a later place (the other binding's
// item, the file) moves into it.
import type { Logger } from "../core/log.js";
import type { AppPaths, Env } from "../core/paths.js";
import { defaultKeychains, KeychainUnavailableError, type KeychainBackend } from "./keychain.js";
import { secretsFileStore, type SafeStorageLike } from "./secrets-file.js";

export {
  SecretsFileSchema,
  secretsFilePath,
  type SafeStorageLike,
  type SecretsFile,
} from "./secrets-file.js";

export const KEYCHAIN_SERVICE = "Gatehouse";
export const AUTH_TOKEN_ACCOUNT = "wegent-auth-token";

/** "keychain" also covers a value sealed with Electron safeStorage (its key is in the OS keychain). */
export type SecretLocation = "keychain" | "file" | "unknown";

export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
  /** Where the last call found the secrets: the keychain, the fallback file, or unknown (no call yet). */
  location(): SecretLocation;
}

export interface SecretStoreOptions {
  paths: Pick<AppPaths, "executorHome">;
  logger: Logger;
  /** The keychains to try, in order (default: keytar, then @napi-rs/keyring). */
  keychains?: readonly KeychainBackend[];
  /** Shorthand for `keychains: [keychain]` (tests: a loader that throws = a machine without a keychain). */
  keychain?: KeychainBackend;
  /** Electron's safeStorage, inside the tray app: then the fallback file holds values sealed with it. */
  safeStorage?: SafeStorageLike | null;
  /** Keychain service name (default `Gatehouse`; tests use their own so they never touch the user's item). */
  service?: string;
}

/**
 * The app's store for one home: keychain service `Gatehouse`, or `GATEHOUSE_KEYCHAIN_SERVICE` when set
 * (separate items for a second Gatehouse home on the same account, and for tests).
 */
export function secretStoreFor(
  paths: Pick<AppPaths, "executorHome">,
  env: Env,
  logger: Logger,
  options: Pick<SecretStoreOptions, "safeStorage"> = {},
): SecretStore {
  const service = env.GATEHOUSE_KEYCHAIN_SERVICE?.trim() || KEYCHAIN_SERVICE;
  return createSecretStore({ paths, logger, service, safeStorage: options.safeStorage ?? null });
}

/** A keychain that answered, and its place in the order. */
interface Answer<T> {
  index: number;
  value: T;
}

export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const keychains = options.keychains ?? (options.keychain ? [options.keychain] : defaultKeychains());
  const fileStore = secretsFileStore(options.paths, options.safeStorage ?? null);
  const file = fileStore.file;
  const service = options.service ?? KEYCHAIN_SERVICE;
  const logger = options.logger.child("secrets");
  let location: SecretLocation = "unknown";
  const told = new Set<string>();
  const once = (key: string, say: () => void): void => {
    if (told.has(key)) return;
    told.add(key);
    say();
  };

  const unavailable = (error: unknown): KeychainUnavailableError => {
    if (error instanceof KeychainUnavailableError) return error;
    throw error;
  };

  /** Runs `fn` on each keychain in order until one answers; the reasons of those that did not. */
  const firstAnswer = async <T>(
    fn: (keychain: KeychainBackend) => Promise<T>,
  ): Promise<{ answer: Answer<T> | null; reasons: string[] }> => {
    const reasons: string[] = [];
    for (const [index, keychain] of keychains.entries()) {
      try {
        return { answer: { index, value: await fn(keychain) }, reasons };
      } catch (error) {
        reasons.push(`${keychain.name}: ${unavailable(error).message}`);
      }
    }
    return { answer: null, reasons };
  };

  /**
   * No keychain answered: the file is used; say so once per store (loud only for plain text, and only
   * when a secret is really kept there: `status`/`logout` with nothing stored print nothing).
   */
  const fellBack = (reasons: string[], holdsSecret = true): void => {
    const sealProblem = fileStore.sealProblem();
    location = sealProblem === null ? "keychain" : "file";
    const why = reasons.length > 0 ? reasons.join("; ") : "none configured";
    if (sealProblem === null) {
      once("sealed", () =>
        logger.info(
          `No OS keychain binding answered (${why}). Secrets are kept in ${file}, sealed with Electron safeStorage.`,
        ),
      );
      return;
    }
    if (!holdsSecret) return;
    once("plain", () =>
      logger.warn(
        `No OS keychain is reachable (${why}). Secrets are kept in ${file} (mode 0600) instead: ` +
          "anyone who can read your files can read them. Start or unlock a keychain (on Linux a Secret " +
          "Service such as gnome-keyring or KWallet) and they move into it on next use.",
      ),
    );
  };

  /** Reads the file; a plain value is sealed on the way when safeStorage can (inside the tray app). */
  const readFile = async (account: string): Promise<string | null> => {
    const read = await fileStore.read(account);
    if (read.form === "plain" && fileStore.sealProblem() === null)
      await fileStore.write(account, read.value!);
    if (read.unreadableSealed)
      once(`sealed:${account}`, () =>
        logger.warn(
          `${file} holds "${account}" sealed by the Gatehouse tray app, which this process cannot open ` +
            `(${read.unreadableSealed}).`,
        ),
      );
    logger.addSecret(read.value);
    return read.value;
  };

  /** Later keychains that are a different OS item than keychain `index` (where a copy may be parked). */
  const laterItems = (index: number): KeychainBackend[] =>
    keychains.slice(index + 1).filter((k) => k.item !== keychains[index]!.item);

  /** Best effort: removes copies parked after keychain `index` (other items, the file). */
  const removeParkedCopies = async (index: number, account: string): Promise<void> => {
    for (const later of laterItems(index)) {
      await later.deletePassword(service, account).catch(unavailable);
    }
    await fileStore.remove(account);
  };

  /** A secret parked after keychain `index` (in a later binding's item or the file), or null. */
  const findParked = async (
    index: number,
    account: string,
  ): Promise<{ value: string; from: string } | null> => {
    for (const later of laterItems(index)) {
      const value = await later.getPassword(service, account).catch((error: unknown) => {
        unavailable(error);
        return null;
      });
      if (value !== null) return { value, from: later.name };
    }
    const fromFile = await readFile(account);
    return fromFile === null ? null : { value: fromFile, from: file };
  };

  return {
    location: () => location,

    async get(account) {
      const { answer, reasons } = await firstAnswer((k) => k.getPassword(service, account));
      if (!answer) {
        const value = await readFile(account);
        fellBack(reasons, value !== null);
        return value;
      }
      location = "keychain";
      if (answer.value !== null) {
        logger.addSecret(answer.value);
        return answer.value;
      }
      // Parked while this keychain was unreachable: move it in now that it answers.
      const parked = await findParked(answer.index, account);
      if (parked === null) return null;
      logger.addSecret(parked.value);
      const keychain = keychains[answer.index]!;
      try {
        await keychain.setPassword(service, account, parked.value);
        await removeParkedCopies(answer.index, account);
        logger.info(
          `Moved the secret "${account}" from ${parked.from} into the OS keychain (${keychain.name}).`,
        );
      } catch (error) {
        logger.warn(
          `Could not move the secret "${account}" into the OS keychain: ${(error as Error).message}`,
        );
      }
      return parked.value;
    },

    async set(account, value) {
      logger.addSecret(value);
      const { answer, reasons } = await firstAnswer((k) => k.setPassword(service, account, value));
      if (!answer) {
        fellBack(reasons);
        await fileStore.write(account, value);
        return;
      }
      location = "keychain";
      // An older copy parked in a later place must not outlive this one (nor come back later).
      await removeParkedCopies(answer.index, account);
    },

    async delete(account) {
      let deleted = false;
      let reached = false;
      const reasons: string[] = [];
      for (const keychain of keychains) {
        try {
          if (await keychain.deletePassword(service, account)) deleted = true;
          reached = true;
        } catch (error) {
          reasons.push(`${keychain.name}: ${unavailable(error).message}`);
        }
      }
      const fromFile = await fileStore.remove(account);
      if (reached) location = "keychain";
      else fellBack(reasons, fromFile);
      return deleted || fromFile;
    },
  };
}
