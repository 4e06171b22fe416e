import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  checkFrameTime,
  computeMac,
  computeMacV1,
  FRAME_MAX_AGE_MS,
  FRAME_MAX_AHEAD_MS,
  macInput,
  macMatches,
  NONCE_MEMORY_MS,
  NonceCache,
  signFrame,
  type MacFields,
} from "../../../src/approval-server/frame-auth.js";

/** docs/approval-protocol-v2.md, "Worked example". */
const REQUEST: MacFields = {
  direction: "request",
  type: "approval.request",
  id: "c0ffee01",
  nonce: "0123456789abcdef0123456789abcdef",
  ts: 1700000000000,
  body: '{"command":["echo","hi"],"cwd":"/tmp"}',
};
const REQUEST_MAC = "d64bafc01054543e1420c13706d72effdf30db25b5ed8ed63658be1ecf7eb46b";
const REPLY: MacFields = {
  direction: "reply",
  type: "decision",
  id: "c0ffee01",
  nonce: "fedcba9876543210fedcba9876543210",
  ts: 1700000000250,
  body: '{"decision":"deny","decidedBy":"policy","reason":"example","re":"0123456789abcdef0123456789abcdef"}',
};
const REPLY_MAC = "e6295ac6296da3f667e5b944748b54d2eb316f6fbaaebe1e630d923f8daef8d4";

describe("frame authentication, protocol v2", () => {
  it("reproduces the worked example of docs/approval-protocol-v2.md, request and reply", () => {
    expect(macInput(REQUEST)).toBe(
      'gatehouse-approval/2\nrequest\napproval.request\nc0ffee01\n0123456789abcdef0123456789abcdef\n1700000000000\n{"command":["echo","hi"],"cwd":"/tmp"}',
    );
    expect(computeMac("secret", REQUEST)).toBe(REQUEST_MAC);
    expect(computeMac("secret", REPLY)).toBe(REPLY_MAC);
    expect(macMatches("secret", REQUEST, REQUEST_MAC.toUpperCase())).toBe(true);
    // The same bytes any HMAC implementation gets (here: node's, directly).
    expect(createHmac("sha256", "secret").update(macInput(REPLY)).digest("hex")).toBe(REPLY_MAC);
  });

  it("refuses the mac once any covered field changes: type, direction, id, nonce, ts, body, token", () => {
    const changed: MacFields[] = [
      { ...REQUEST, type: "exec.run" },
      { ...REQUEST, direction: "reply" },
      { ...REQUEST, id: "c0ffee02" },
      { ...REQUEST, nonce: "1123456789abcdef0123456789abcdef" },
      { ...REQUEST, ts: REQUEST.ts + 1 },
      { ...REQUEST, body: REQUEST.body.replace("hi", "ho") },
    ];
    for (const fields of changed) expect(macMatches("secret", fields, REQUEST_MAC)).toBe(false);
    expect(macMatches("secret2", REQUEST, REQUEST_MAC)).toBe(false);
    expect(macMatches("secret", REQUEST, "00")).toBe(false);
  });

  it("keeps v1's mac as v1 defined it (the v1 worked example), covering no type", () => {
    const v1 = computeMacV1("secret", REQUEST.nonce, REQUEST.ts, REQUEST.body);
    expect(v1).toBe("79c88e25e38d8755bf78b464ca0522411354688f8ce8825457ed9ccc4bce7b8f");
    expect(v1).not.toBe(REQUEST_MAC);
  });

  it("signs frames that verify, each with a fresh nonce", () => {
    const a = signFrame("tok-tok-tok-tok-tok", "reply", "pong", "1", "{}", 5);
    const b = signFrame("tok-tok-tok-tok-tok", "reply", "pong", "1", "{}", 5);
    expect(a.v).toBe(2);
    expect(a.nonce).not.toBe(b.nonce);
    expect(macMatches("tok-tok-tok-tok-tok", { direction: "reply", ...a }, a.mac)).toBe(true);
    expect(macMatches("tok-tok-tok-tok-tok", { direction: "request", ...a }, a.mac)).toBe(false);
  });
});

describe("the clock window", () => {
  it("accepts frames up to 10 s old and 1 s ahead, both ends included, and nothing beyond", () => {
    const now = 100_000;
    expect(checkFrameTime(now - FRAME_MAX_AGE_MS, now)).toBe("ok");
    expect(checkFrameTime(now - FRAME_MAX_AGE_MS - 1, now)).toBe("too-old");
    expect(checkFrameTime(now + FRAME_MAX_AHEAD_MS, now)).toBe("ok");
    expect(checkFrameTime(now + FRAME_MAX_AHEAD_MS + 1, now)).toBe("ahead");
  });

  it("refuses a frame dated before the server started, however fresh", () => {
    expect(checkFrameTime(99_999, 100_500, 100_000)).toBe("before-start");
    expect(checkFrameTime(100_000, 100_500, 100_000)).toBe("ok");
  });
});

describe("nonce memory", () => {
  it("remembers a nonce exactly as long as its frame can pass the clock check (the boundary included)", () => {
    const cache = new NonceCache(10);
    const acceptedAt = 1_000_000;
    const ts = acceptedAt + FRAME_MAX_AHEAD_MS; // dated as far ahead as allowed
    expect(cache.check("aa".repeat(8), acceptedAt)).toBe("fresh");
    const lastInstant = ts + FRAME_MAX_AGE_MS;
    expect(lastInstant).toBe(acceptedAt + NONCE_MEMORY_MS);
    expect(checkFrameTime(ts, lastInstant)).toBe("ok");
    expect(cache.check("AA".repeat(8), lastInstant)).toBe("replay");
    expect(checkFrameTime(ts, lastInstant + 1)).toBe("too-old");
    expect(cache.check("aa".repeat(8), lastInstant + 1)).toBe("fresh");
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
