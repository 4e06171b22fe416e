import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import { normaliseToken, resolveAuthToken } from "../../../src/secrets/auth-token.js";
import { AUTH_TOKEN_ACCOUNT, type SecretStore } from "../../../src/secrets/secret-store.js";

/** A fake secret store: a Map (the keychain itself is exercised in test/integration/secrets). */
function fakeSecrets(values: Record<string, string> = {}): SecretStore {
  const map = new Map(Object.entries(values));
  return {
    get: async (account) => map.get(account) ?? null,
    set: async (account, value) => void map.set(account, value),
    delete: async (account) => map.delete(account),
    location: () => "keychain",
  };
}

describe("token normalisation", () => {
  it.each([
    ["Bearer wg-token", "wg-token"],
    ["bEaReR\t  wg-token  ", "wg-token"],
    ["Token wg-token", "Token wg-token"],
    ["wg-token", "wg-token"],
    ["  wg-token\n", "wg-token"],
  ])("%j becomes %j", (raw, expected) => {
    expect(normaliseToken(raw)).toBe(expected);
  });

  it("a blank token is no token", () => {
    expect(normaliseToken("   ")).toBeNull();
    expect(normaliseToken(undefined)).toBeNull();
  });
});

describe("token lookup order", () => {
  const logger = createLogger({ sink: () => undefined });

  it("WEGENT_AUTH_TOKEN wins over the keychain and the file", async () => {
    const found = await resolveAuthToken({
      env: { WEGENT_AUTH_TOKEN: " Bearer from-env " },
      secrets: fakeSecrets({ [AUTH_TOKEN_ACCOUNT]: "from-keychain" }),
      configToken: "from-file",
      logger,
    });
    expect(found).toEqual({ token: "from-env", source: "env" });
  });

  it("the keychain comes before connection.auth_token of the device config", async () => {
    const found = await resolveAuthToken({
      env: { WEGENT_AUTH_TOKEN: "   " },
      secrets: fakeSecrets({ [AUTH_TOKEN_ACCOUNT]: "from-keychain" }),
      configToken: "from-file",
      logger,
    });
    expect(found).toEqual({ token: "from-keychain", source: "secret-store" });
  });

  it("the device config's token is used last, and nothing found is null", async () => {
    expect(
      await resolveAuthToken({ env: {}, secrets: fakeSecrets(), configToken: "Bearer old", logger }),
    ).toEqual({
      token: "old",
      source: "device-config",
    });
    expect(await resolveAuthToken({ env: {}, secrets: fakeSecrets(), configToken: "", logger })).toBeNull();
  });

  it("every token found is redacted from later log lines", async () => {
    const lines: string[] = [];
    const captured = createLogger({ sink: (line) => lines.push(line) });
    await resolveAuthToken({
      env: {},
      secrets: fakeSecrets(),
      configToken: "Token plain-secret-value",
      logger: captured,
    });
    captured.info("the token is Token plain-secret-value");
    expect(lines.join("\n")).not.toContain("plain-secret-value");
  });
});
