// E/secrets.json: where secrets go when no keychain binding answers. 0600 in a 0700 folder. Inside the
// tray app, where Electron's `safeStorage` can encrypt with a key the OS keeps (Keychain, DPAPI, a
// Secret Service or KWallet), a value is stored sealed (`sealed`, base64 ciphertext) instead of in
// plain text (`secrets`); one account has one entry, sealed or plain, never both.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { AppPaths } from "../core/paths.js";
import { InvalidFileError, readJsonFile, withFileLock, writeJsonFile } from "../core/store/index.js";

export const SecretsFileSchema = z.looseObject({
  version: z.literal(1),
  secrets: z.record(z.string(), z.string()).default({}),
  /** Electron safeStorage ciphertext, base64; only the tray app can open it. */
  sealed: z.record(z.string(), z.string()).optional(),
});
export type SecretsFile = z.infer<typeof SecretsFileSchema>;

export function secretsFilePath(paths: Pick<AppPaths, "executorHome">): string {
  return path.join(paths.executorHome, "secrets.json");
}

/** The slice of Electron's `safeStorage` used here (main.ts passes the real one). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: "basic_text" means a key built into Chromium, i.e. no protection at all. */
  getSelectedStorageBackend?(): string;
}

/** Linux backends whose key a keyring service holds; anything else ("basic_text", "unknown") protects nothing. */
const PROTECTING_LINUX_BACKENDS = new Set(["gnome_libsecret", "kwallet", "kwallet5", "kwallet6"]);

/** Why safeStorage cannot seal right now, or null when it can. */
export function safeStorageProblem(safeStorage: SafeStorageLike, platform = process.platform): string | null {
  if (!safeStorage.isEncryptionAvailable()) return "Electron safeStorage has no encryption available";
  if (platform === "linux") {
    const backend = safeStorage.getSelectedStorageBackend?.() ?? "unknown";
    if (!PROTECTING_LINUX_BACKENDS.has(backend))
      return `Electron safeStorage would use "${backend}", which no keyring protects`;
  }
  return null;
}

export interface SecretsFileRead {
  value: string | null;
  /** How `value` was stored (null: not found). */
  form: "sealed" | "plain" | null;
  /** A sealed entry exists that this process cannot open (no safeStorage here, or a changed key). */
  unreadableSealed: string | null;
}

export interface SecretsFileStore {
  readonly file: string;
  /** Whether the next write is sealed (null) or plain text (the reason it is not sealed). */
  sealProblem(): string | null;
  read(account: string): Promise<SecretsFileRead>;
  /** Stores the value sealed when safeStorage can, else in plain text; returns which. */
  write(account: string, value: string): Promise<"sealed" | "plain">;
  /** Removes both forms of `account`; deletes the file once it holds nothing. True when something went. */
  remove(account: string): Promise<boolean>;
}

export function secretsFileStore(
  paths: Pick<AppPaths, "executorHome">,
  safeStorage: SafeStorageLike | null,
): SecretsFileStore {
  const file = secretsFilePath(paths);
  const sealProblem = (): string | null =>
    safeStorage
      ? safeStorageProblem(safeStorage)
      : "not running inside the tray app (no Electron safeStorage)";

  const load = async (): Promise<SecretsFile | null> => {
    const result = await readJsonFile(file, SecretsFileSchema);
    if (result.status === "missing") return null;
    if (result.status === "invalid") throw new InvalidFileError(file, result.error);
    return result.value;
  };

  const save = async (next: SecretsFile): Promise<void> => {
    const sealed = next.sealed ?? {};
    if (Object.keys(next.secrets).length === 0 && Object.keys(sealed).length === 0) {
      await fs.rm(file, { force: true });
      return;
    }
    const { sealed: _dropped, ...rest } = next;
    const value = Object.keys(sealed).length > 0 ? { ...rest, sealed } : rest;
    await writeJsonFile(file, SecretsFileSchema, value, { mode: 0o600, dirMode: 0o700 });
  };

  return {
    file,
    sealProblem,

    async read(account) {
      const current = await load();
      const plain = current?.secrets[account] ?? null;
      const sealed = current?.sealed?.[account];
      const plainRead = (unreadableSealed: string | null): SecretsFileRead => ({
        value: plain,
        form: plain === null ? null : "plain",
        unreadableSealed,
      });
      if (sealed === undefined) return plainRead(null);
      const problem = sealProblem();
      if (!safeStorage || problem !== null) return plainRead(problem ?? "no safeStorage");
      try {
        const value = safeStorage.decryptString(Buffer.from(sealed, "base64"));
        return { value, form: "sealed", unreadableSealed: null };
      } catch (error) {
        return plainRead(`safeStorage could not decrypt it (${(error as Error).message})`);
      }
    },

    write: (account, value) =>
      withFileLock(file, async () => {
        const current = (await load()) ?? { version: 1 as const, secrets: {} };
        const secrets = { ...current.secrets };
        const sealed = { ...(current.sealed ?? {}) };
        let form: "sealed" | "plain";
        if (safeStorage && sealProblem() === null) {
          sealed[account] = safeStorage.encryptString(value).toString("base64");
          delete secrets[account];
          form = "sealed";
        } else {
          secrets[account] = value;
          delete sealed[account];
          form = "plain";
        }
        await save({ ...current, secrets, sealed });
        return form;
      }),

    remove: (account) =>
      withFileLock(file, async () => {
        const current = await load();
        if (!current) return false;
        const inPlain = account in current.secrets;
        const inSealed = current.sealed !== undefined && account in current.sealed;
        if (!inPlain && !inSealed) return false;
        const secrets = { ...current.secrets };
        const sealed = { ...(current.sealed ?? {}) };
        delete secrets[account];
        delete sealed[account];
        await save({ ...current, secrets, sealed });
        return true;
      }),
  };
}
