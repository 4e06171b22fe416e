import { describe, expect, it } from "vitest";
import { capCommandAck, cutUtf8, MAX_ACK_BYTES, serialisedBytes } from "../../../src/device/ack-size.js";
import type { CommandAck } from "../../../src/device/deps.js";

function ack(stdout: string, stderr = ""): CommandAck {
  return {
    success: true,
    exit_code: 0,
    stdout,
    stderr,
    duration: 0.5,
    timed_out: false,
    stdout_truncated: false,
    stderr_truncated: false,
  };
}

describe("command ack size cap", () => {
  it("a small ack is left as it is", () => {
    const small = ack("hello\n");
    expect(capCommandAck(small)).toBe(small);
  });

  it("stdout is cut first and flagged, keeping the ack under 980,000 bytes", () => {
    const capped = capCommandAck(ack("a".repeat(2_000_000), "err"));
    expect(serialisedBytes(capped)).toBeLessThan(MAX_ACK_BYTES);
    expect(serialisedBytes(capped)).toBeGreaterThan(MAX_ACK_BYTES - 100);
    expect(capped.stdout_truncated).toBe(true);
    expect(capped.stderr).toBe("err");
    expect(capped.stderr_truncated).toBe(false);
  });

  it("stderr is cut when stdout alone cannot make room", () => {
    const capped = capCommandAck(ack("", "e".repeat(1_500_000)));
    expect(serialisedBytes(capped)).toBeLessThan(MAX_ACK_BYTES);
    expect(capped.stderr_truncated).toBe(true);
    expect(capped.stdout_truncated).toBe(false);
  });

  it("characters that JSON escapes and multi-byte characters still end under the cap", () => {
    const capped = capCommandAck(ack("\u0001".repeat(300_000), "é€😀".repeat(200_000)));
    expect(serialisedBytes(capped)).toBeLessThan(MAX_ACK_BYTES);
    expect(capped.stderr).not.toContain("\uFFFD");
  });

  it("cutting never splits a UTF-8 character", () => {
    expect(cutUtf8("é€😀", 4)).toBe("é");
    expect(cutUtf8("é€😀", 5)).toBe("é€");
    expect(cutUtf8("abc", 10)).toBe("abc");
  });
});
