import { describe, expect, it } from "vitest";
import {
  computeMac,
  macMatches,
  NonceCache,
  signFrame,
  withinTtl,
} from "../../../src/approval-server/frame-auth.js";

const EXAMPLE = {
  token: "secret",
  nonce: "0123456789abcdef0123456789abcdef",
  ts: 1700000000000,
  body: '{"command":["echo","hi"],"cwd":"/tmp"}',
  mac: "79c88e25e38d8755bf78b464ca0522411354688f8ce8825457ed9ccc4bce7b8f",
};

describe("frame authentication", () => {
  it("reproduces the worked HMAC example of the protocol", () => {
    expect(computeMac(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body)).toBe(EXAMPLE.mac);
    expect(macMatches(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body, EXAMPLE.mac)).toBe(true);
    expect(
      macMatches(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body, EXAMPLE.mac.toUpperCase()),
    ).toBe(true);
  });

  it("refuses a mac made with another token, another body, or another timestamp", () => {
    expect(macMatches("secret2", EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body, EXAMPLE.mac)).toBe(false);
    expect(
      macMatches(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body.replace("hi", "ho"), EXAMPLE.mac),
    ).toBe(false);
    expect(macMatches(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts + 1, EXAMPLE.body, EXAMPLE.mac)).toBe(false);
    expect(macMatches(EXAMPLE.token, EXAMPLE.nonce, EXAMPLE.ts, EXAMPLE.body, "00")).toBe(false);
  });

  it("signs frames that verify, each with a fresh nonce", () => {
    const a = signFrame("tok-tok-tok-tok-tok", "pong", "1", "{}", 5);
    const b = signFrame("tok-tok-tok-tok-tok", "pong", "1", "{}", 5);
    expect(a.nonce).not.toBe(b.nonce);
    expect(macMatches("tok-tok-tok-tok-tok", a.nonce, a.ts, a.body, a.mac)).toBe(true);
  });

  it("accepts timestamps up to 10 s away and no further", () => {
    expect(withinTtl(0, 10_000)).toBe(true);
    expect(withinTtl(20_000, 10_000)).toBe(true);
    expect(withinTtl(0, 11_000)).toBe(false);
    expect(withinTtl(21_000, 10_000)).toBe(false);
  });
});

describe("nonce memory", () => {
  it("refuses a nonce seen within twice the TTL and accepts it again afterwards", () => {
    const cache = new NonceCache(10, 20_000);
    expect(cache.check("aa".repeat(8), 1_000)).toBe("fresh");
    expect(cache.check("AA".repeat(8), 15_000)).toBe("replay");
    expect(cache.check("aa".repeat(8), 21_001)).toBe("fresh");
  });

  it("when full of live nonces refuses new ones instead of forgetting any", () => {
    const cache = new NonceCache(3, 20_000);
    for (const n of ["a1", "a2", "a3"]) expect(cache.check(n.repeat(8), 0)).toBe("fresh");
    expect(cache.check("b1".repeat(8), 1)).toBe("full");
    expect(cache.check("a1".repeat(8), 2)).toBe("replay");
    expect(cache.size).toBe(3);
    // once the old ones expire there is room again
    expect(cache.check("b1".repeat(8), 20_001)).toBe("fresh");
    expect(cache.size).toBe(1);
  });
});
