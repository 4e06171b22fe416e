import { describe, expect, it } from "vitest";
import { LineReader } from "../../../src/approval-server/framing.js";
import { RateLimiter } from "../../../src/approval-server/limits.js";

describe("JSON Lines framing", () => {
  it("splits lines across chunks and ignores blank lines", () => {
    const reader = new LineReader(100);
    expect(reader.push(Buffer.from('{"a":1}\n{"b"'))).toEqual([{ kind: "line", line: '{"a":1}' }]);
    expect(reader.push(Buffer.from(':2}\r\n\n{"c":3}\n'))).toEqual([
      { kind: "line", line: '{"b":2}' },
      { kind: "line", line: '{"c":3}' },
    ]);
  });

  it("keeps multi-byte characters split between chunks intact", () => {
    const reader = new LineReader(100);
    const bytes = Buffer.from('{"w":"é✓"}\n');
    expect(reader.push(bytes.subarray(0, 8))).toEqual([]);
    expect(reader.push(bytes.subarray(8))).toEqual([{ kind: "line", line: '{"w":"é✓"}' }]);
  });

  it("reports a line over the limit once, without buffering it, and then reads nothing more", () => {
    const reader = new LineReader(10);
    expect(reader.push(Buffer.from("0123456789"))).toEqual([]);
    expect(reader.push(Buffer.from("x"))).toEqual([{ kind: "too_large" }]);
    expect(reader.push(Buffer.from("\n{}\n"))).toEqual([]);
    const exact = new LineReader(10);
    expect(exact.push(Buffer.from("0123456789\n"))).toEqual([{ kind: "line", line: "0123456789" }]);
    expect(new LineReader(10).push(Buffer.from("01234567890\n"))).toEqual([{ kind: "too_large" }]);
  });
});

describe("per-connection rate limit", () => {
  it("allows the configured number per second and recovers as the window slides", () => {
    const limiter = new RateLimiter(5);
    const t = 1_000_000;
    for (let i = 0; i < 5; i++) expect(limiter.allow(t + i)).toBe(true);
    expect(limiter.allow(t + 50)).toBe(false);
    expect(limiter.allow(t + 999)).toBe(false);
    expect(limiter.allow(t + 1_000)).toBe(true);
    expect(limiter.allow(t + 5_000)).toBe(true);
  });
});
