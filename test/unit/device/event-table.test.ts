// Backend events live in one table: the set of events the device answers is derived from it, so an
// event with a handler is never answered "Unsupported event" and one without a handler always is.
import { describe, expect, it } from "vitest";
import { DEVICE_EVENTS, HANDLED_EVENTS } from "../../../src/device/event-handlers.js";

describe("the device event table", () => {
  it("answers exactly the events it has handlers for", () => {
    expect([...HANDLED_EVENTS].sort()).toEqual(Object.keys(DEVICE_EVENTS).sort());
    expect(HANDLED_EVENTS.has("device:start_code_server_session")).toBe(false);
  });

  it("gives every event a handler and a refusal ack", () => {
    for (const spec of Object.values(DEVICE_EVENTS)) {
      expect(typeof spec.handle).toBe("function");
      expect(spec.refusal("over budget")).toBeTruthy();
    }
  });
});
