import { describe, expect, it } from "vitest";
import type { CapabilitiesPort } from "../../../src/device/deps.js";
import type { CapabilitySync } from "../../../src/core/capabilities/index.js";

describe("capability sync as the device's port", () => {
  it("CapabilitySync satisfies the device's CapabilitiesPort", () => {
    const port: (sync: CapabilitySync) => CapabilitiesPort = (sync) => sync;
    expect(typeof port).toBe("function");
  });
});
