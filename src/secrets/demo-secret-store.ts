// A secret store that only lives in memory: for `gatehouse demo`, which must never touch the OS
// keychain or leave a secrets file behind. Not for the app itself (nothing survives a restart).
import type { SecretStore } from "./secret-store.js";

export function createDemoSecretStore(initial: Record<string, string> = {}): SecretStore {
  const values = new Map(Object.entries(initial));
  return {
    get: async (account) => values.get(account) ?? null,
    set: async (account, value) => {
      values.set(account, value);
    },
    delete: async (account) => values.delete(account),
    location: () => "unknown",
  };
}
