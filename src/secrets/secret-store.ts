// The app's secret store: the OS keychain, and a 0600 file in E only where no keychain is reachable
// (architecture.md). The choice is made per call, so a keychain that comes up later (a Secret Service
// started after the app) is used from then on, and a secret parked in the file moves into it.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../core/log.js";
import type { AppPaths, Env } from "../core/paths.js";
import {
  readJsonFile,
  updateJsonFile,
  withFileLock,
  writeJsonFile,
  InvalidFileError,
} from "../core/store/index.js";
import { keytarKeychain, KeychainUnavailableError, type KeychainBackend } from "./keychain.js";

export const KEYCHAIN_SERVICE = "Gatehouse";
export const AUTH_TOKEN_ACCOUNT = "wegent-auth-token";

export type SecretLocation = "keychain" | "file" | "unknown";

export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
  /** Where the last call found the secrets: the keychain, the fallback file, or unknown (no call yet). */
  location(): SecretLocation;
}

export const SecretsFileSchema = z.looseObject({
  version: z.literal(1),
  secrets: z.record(z.string(), z.string()).default({}),
});
export type SecretsFile = z.infer<typeof SecretsFileSchema>;

export function secretsFilePath(paths: Pick<AppPaths, "executorHome">): string {
  return path.join(paths.executorHome, "secrets.json");
}

export interface SecretStoreOptions {
  paths: Pick<AppPaths, "executorHome">;
  logger: Logger;
  /** Default: keytar. */
  keychain?: KeychainBackend;
  /** Keychain service name (default `Gatehouse`; tests use their own so they never touch the user's item). */
  service?: string;
}

/**
 * The app's store for one home: keytar service `Gatehouse`, or `GATEHOUSE_KEYCHAIN_SERVICE` when set
 * (separate items for a second Gatehouse home on the same account, and for tests).
 */
export function secretStoreFor(paths: Pick<AppPaths, "executorHome">, env: Env, logger: Logger): SecretStore {
  const service = env.GATEHOUSE_KEYCHAIN_SERVICE?.trim() || KEYCHAIN_SERVICE;
  return createSecretStore({ paths, logger, service });
}

export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const file = secretsFilePath(options.paths);
  const keychain = options.keychain ?? keytarKeychain();
  const service = options.service ?? KEYCHAIN_SERVICE;
  const logger = options.logger.child("secrets");
  let location: SecretLocation = "unknown";
  let warned = false;

  const fellBack = (error: KeychainUnavailableError): void => {
    location = "file";
    if (warned) return;
    warned = true;
    logger.warn(
      `No OS keychain is reachable (${error.message}). Secrets are kept in ${file} (mode 0600) instead: ` +
        "anyone who can read your files can read them. Start or unlock a keychain (on Linux a Secret " +
        "Service such as gnome-keyring or KWallet) and they move into it on next use.",
    );
  };

  const readFileSecret = async (account: string): Promise<string | null> => {
    const result = await readJsonFile(file, SecretsFileSchema);
    if (result.status === "missing") return null;
    if (result.status === "invalid") throw new InvalidFileError(file, result.error);
    return result.value.secrets[account] ?? null;
  };

  const writeFileSecret = (account: string, value: string): Promise<unknown> =>
    updateJsonFile(
      file,
      SecretsFileSchema,
      () => ({ version: 1 as const, secrets: {} }),
      (current) => ({
        value: { ...current, secrets: { ...current.secrets, [account]: value } },
        result: undefined,
      }),
      { mode: 0o600, dirMode: 0o700 },
    );

  /** Removes `account` from the file; deletes the file once it holds nothing. */
  const removeFileSecret = (account: string): Promise<boolean> =>
    withFileLock(file, async () => {
      const result = await readJsonFile(file, SecretsFileSchema);
      if (result.status === "missing") return false;
      if (result.status === "invalid") throw new InvalidFileError(file, result.error);
      if (!(account in result.value.secrets)) return false;
      const secrets = { ...result.value.secrets };
      delete secrets[account];
      if (Object.keys(secrets).length === 0) {
        await fs.rm(file, { force: true });
      } else {
        await writeJsonFile(file, SecretsFileSchema, { ...result.value, secrets }, { mode: 0o600 });
      }
      return true;
    });

  const unavailable = (error: unknown): KeychainUnavailableError => {
    if (error instanceof KeychainUnavailableError) return error;
    throw error;
  };

  return {
    location: () => location,

    async get(account) {
      let value: string | null;
      try {
        value = await keychain.getPassword(service, account);
      } catch (error) {
        fellBack(unavailable(error));
        const fromFile = await readFileSecret(account);
        logger.addSecret(fromFile);
        return fromFile;
      }
      location = "keychain";
      if (value !== null) {
        logger.addSecret(value);
        return value;
      }
      // Parked in the file while no keychain was reachable: move it now that one is.
      const parked = await readFileSecret(account);
      if (parked === null) return null;
      logger.addSecret(parked);
      try {
        await keychain.setPassword(service, account, parked);
        await removeFileSecret(account);
        logger.info(`Moved the secret "${account}" from ${file} into the OS keychain.`);
      } catch (error) {
        logger.warn(
          `Could not move the secret "${account}" into the OS keychain: ${(error as Error).message}`,
        );
      }
      return parked;
    },

    async set(account, value) {
      logger.addSecret(value);
      try {
        await keychain.setPassword(service, account, value);
      } catch (error) {
        fellBack(unavailable(error));
        await writeFileSecret(account, value);
        return;
      }
      location = "keychain";
      await removeFileSecret(account); // an older copy parked in the file must not outlive this one
    },

    async delete(account) {
      let deleted = false;
      try {
        deleted = await keychain.deletePassword(service, account);
        location = "keychain";
      } catch (error) {
        fellBack(unavailable(error));
      }
      const fromFile = await removeFileSecret(account);
      return deleted || fromFile;
    },
  };
}
