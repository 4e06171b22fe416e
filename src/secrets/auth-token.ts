// The backend token: its normal form and where it is looked up (device-protocol.md §1, §2).
import type { Logger } from "../core/log.js";
import type { Env } from "../core/paths.js";
import { AUTH_TOKEN_ACCOUNT, type SecretStore } from "./secret-store.js";

/**
 * Removes a leading `Bearer` + whitespace (any case), then trims: `"bEaReR\t  wg-token  "` → `wg-token`.
 * `"Token wg-token"` stays as it is. Blank → null.
 */
export function normaliseToken(raw: string | null | undefined): string | null {
  if (typeof raw !== "string") return null;
  const token = raw
    .trim()
    .replace(/^bearer\s+/i, "")
    .trim();
  return token === "" ? null : token;
}

export type TokenSource = "env" | "secret-store" | "device-config";

export interface ResolvedToken {
  token: string;
  source: TokenSource;
}

/**
 * Lookup order: `WEGENT_AUTH_TOKEN`, the secret store (keychain), then `connection.auth_token` of
 * device-config.json (read-only, for an existing executor install). Every value found is registered
 * with the logger so it can never appear in a log line.
 */
export async function resolveAuthToken(input: {
  env: Env;
  secrets: SecretStore;
  configToken?: string | null;
  logger: Logger;
}): Promise<ResolvedToken | null> {
  const register = (raw: string | null | undefined): string | null => {
    input.logger.addSecret(raw?.trim());
    const token = normaliseToken(raw);
    input.logger.addSecret(token);
    return token;
  };
  const fromEnv = register(input.env.WEGENT_AUTH_TOKEN);
  if (fromEnv) return { token: fromEnv, source: "env" };
  const fromStore = register(await input.secrets.get(AUTH_TOKEN_ACCOUNT));
  if (fromStore) return { token: fromStore, source: "secret-store" };
  const fromConfig = register(input.configToken);
  if (fromConfig) return { token: fromConfig, source: "device-config" };
  return null;
}
