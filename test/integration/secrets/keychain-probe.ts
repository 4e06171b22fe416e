// Whether a keychain binding works here, and what the suite expects: scripts/with-keyring.sh sets
// GATEHOUSE_REQUIRE_KEYCHAIN=1 after starting a fresh, unlocked gnome-keyring (then a keychain that
// does not answer fails the suite instead of skipping); .ci/run sets GATEHOUSE_REQUIRE_KEYTAR=1 for its
// main run (it installs libsecret-1-dev, so keytar must have built), and its fresh-install step
// GATEHOUSE_EXPECT_NO_KEYTAR=1 (then keytar must NOT load, or that step would prove nothing).
import { randomBytes } from "node:crypto";
import type { KeychainBackend } from "../../../src/secrets/keychain.js";

export const keychainRequired = process.env.GATEHOUSE_REQUIRE_KEYCHAIN === "1";
export const keytarRequired = process.env.GATEHOUSE_REQUIRE_KEYTAR === "1";
export const keytarExpectedMissing = process.env.GATEHOUSE_EXPECT_NO_KEYTAR === "1";

/** Null when `keychain` stores, gives back and deletes a value; else why not. */
export async function keychainProblem(keychain: KeychainBackend): Promise<string | null> {
  const service = `Gatehouse-probe-${randomBytes(4).toString("hex")}`;
  try {
    await keychain.setPassword(service, "probe", "value");
    const back = await keychain.getPassword(service, "probe");
    await keychain.deletePassword(service, "probe");
    return back === "value" ? null : `${keychain.name} did not give back what was stored`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The session bus of the test run, for child processes that must reach its Secret Service. */
export function sessionBusEnv(): Record<string, string> {
  const address = process.env.DBUS_SESSION_BUS_ADDRESS;
  return address ? { DBUS_SESSION_BUS_ADDRESS: address } : {};
}

export const HOW_TO_RUN_WITH_A_KEYCHAIN =
  "Run them with: dbus-run-session -- bash -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets; " +
  "GATEHOUSE_REQUIRE_KEYCHAIN=1 npx vitest run test/integration/secrets'";
