// Per-frame authentication (approval-protocol.md "Authentication of every frame"): HMAC-SHA256 over
// `nonce:ts:body` with the socket token, a clock window, and a bounded memory of accepted nonces.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Accepted clock difference between sender and receiver. */
export const FRAME_TTL_MS = 10_000;

/** `hex(HMAC-SHA256(key = token as UTF-8, message = nonce + ":" + ts + ":" + body))`, lowercase. */
export function computeMac(token: string, nonce: string, ts: number, body: string): string {
  return createHmac("sha256", token).update(`${nonce}:${ts}:${body}`).digest("hex");
}

/** Constant-time check of a 64-hex mac (any case) against the expected one. */
export function macMatches(token: string, nonce: string, ts: number, body: string, mac: string): boolean {
  const expected = createHmac("sha256", token).update(`${nonce}:${ts}:${body}`).digest();
  if (mac.length !== 64) return false;
  const given = Buffer.from(mac, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A fresh 32-hex nonce (16 random bytes). */
export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Nonces from a pool refilled 4 KiB at a time: one call into the CSPRNG per 256 nonces instead of
 * one per frame (it showed in the socket's profile). One per server or client, never shared.
 */
export class NonceSource {
  private pool = Buffer.alloc(0);
  private offset = 0;

  next(): string {
    if (this.offset + 16 > this.pool.length) {
      this.pool = randomBytes(4096);
      this.offset = 0;
    }
    const nonce = this.pool.toString("hex", this.offset, this.offset + 16);
    this.offset += 16;
    return nonce;
  }
}

export interface SignedEnvelope {
  v: 1;
  type: string;
  id: string;
  nonce: string;
  ts: number;
  body: string;
  mac: string;
}

export function signFrame(
  token: string,
  type: string,
  id: string,
  body: string,
  now: number,
  nonce: string = newNonce(),
): SignedEnvelope {
  return { v: 1, type, id, nonce, ts: now, body, mac: computeMac(token, nonce, now, body) };
}

export function withinTtl(ts: number, now: number, ttlMs = FRAME_TTL_MS): boolean {
  return Math.abs(now - ts) <= ttlMs;
}

export type NonceCheck = "fresh" | "replay" | "full";

/**
 * Remembers accepted nonces for twice the TTL. Bounded: when full of nonces still inside their
 * window it refuses new ones (`full`) instead of forgetting one, so a flood can neither grow it
 * without bound nor reopen a replay. Insertion order is expiry order (one clock), so expired
 * nonces are dropped from the front.
 */
export class NonceCache {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly capacity = 200_000,
    private readonly rememberMs = 2 * FRAME_TTL_MS,
  ) {}

  get size(): number {
    return this.seen.size;
  }

  /** Records `nonce` when it is new and there is room. */
  check(nonce: string, now: number): NonceCheck {
    this.evictExpired(now);
    const key = nonce.toLowerCase();
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return "replay";
    if (this.seen.size >= this.capacity) return "full";
    this.seen.delete(key); // an expired twin: re-insert at the back to keep expiry order
    this.seen.set(key, now + this.rememberMs);
    return "fresh";
  }

  private evictExpired(now: number): void {
    for (const [nonce, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(nonce);
    }
  }
}
