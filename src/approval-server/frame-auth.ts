// Per-frame authentication, protocol v2 (docs/approval-protocol-v2.md): HMAC-SHA256 with the socket
// token over the direction, type, id, nonce, timestamp and body; a clock window that starts no
// earlier than the server did; and a memory of accepted nonces that lasts exactly as long as a frame
// can pass the clock check. v1's mac (approval-protocol.md) is kept only to document and test it.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How old a frame may be when it arrives. */
export const FRAME_MAX_AGE_MS = 10_000;
/**
 * How far ahead of the receiver's clock a frame may be dated. Sender and receiver read one clock (the
 * same machine), so this only absorbs a small step back of the wall clock between signing and checking.
 */
export const FRAME_MAX_AHEAD_MS = 1_000;
/**
 * How long an accepted nonce is remembered: a frame accepted at `now` is dated at most
 * `now + FRAME_MAX_AHEAD_MS`, so it can pass the clock check until `now + AHEAD + AGE` inclusive.
 */
export const NONCE_MEMORY_MS = FRAME_MAX_AHEAD_MS + FRAME_MAX_AGE_MS;

export type FrameDirection = "request" | "reply";

/** What a v2 mac covers. `type` and `id` never hold a newline (the frame schema refuses them). */
export interface MacFields {
  direction: FrameDirection;
  type: string;
  id: string;
  nonce: string;
  ts: number;
  body: string;
}

export const MAC_CONTEXT_V2 = "gatehouse-approval/2";

/** The exact bytes a v2 mac is computed over (UTF-8): seven lines, the body last and as sent. */
export function macInput(fields: MacFields): string {
  return [
    MAC_CONTEXT_V2,
    fields.direction,
    fields.type,
    fields.id,
    fields.nonce,
    String(fields.ts),
    fields.body,
  ].join("\n");
}

/** v2: `hex(HMAC-SHA256(key = token as UTF-8, message = macInput(fields)))`, lowercase. */
export function computeMac(token: string, fields: MacFields): string {
  return createHmac("sha256", token).update(macInput(fields)).digest("hex");
}

/** Constant-time check of a 64-hex v2 mac (any case). */
export function macMatches(token: string, fields: MacFields, mac: string): boolean {
  if (mac.length !== 64) return false;
  const expected = createHmac("sha256", token).update(macInput(fields)).digest();
  const given = Buffer.from(mac, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * v1's mac, `HMAC(token, nonce + ":" + ts + ":" + body)` (approval-protocol.md). It covers neither the
 * type nor the direction: a signed `policy.explain` could be re-sent as `exec.run`. No longer accepted.
 */
export function computeMacV1(token: string, nonce: string, ts: number, body: string): string {
  return createHmac("sha256", token).update(`${nonce}:${ts}:${body}`).digest("hex");
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
  v: 2;
  type: string;
  id: string;
  nonce: string;
  ts: number;
  body: string;
  mac: string;
}

export function signFrame(
  token: string,
  direction: FrameDirection,
  type: string,
  id: string,
  body: string,
  now: number,
  nonce: string = newNonce(),
): SignedEnvelope {
  return {
    v: 2,
    type,
    id,
    nonce,
    ts: now,
    body,
    mac: computeMac(token, { direction, type, id, nonce, ts: now, body }),
  };
}

export type FrameTime = "ok" | "before-start" | "too-old" | "ahead";

/**
 * The clock check. A frame passes while `now - AGE <= ts <= now + AHEAD` (both ends inclusive) and, on
 * a server, `ts >= notBefore` (its start: nothing signed before it can be a request to it, so a frame
 * captured before a restart never passes again).
 */
export function checkFrameTime(ts: number, now: number, notBefore = Number.NEGATIVE_INFINITY): FrameTime {
  if (ts < notBefore) return "before-start";
  if (ts < now - FRAME_MAX_AGE_MS) return "too-old";
  if (ts > now + FRAME_MAX_AHEAD_MS) return "ahead";
  return "ok";
}

export type NonceCheck = "fresh" | "replay" | "full";

/**
 * Remembers accepted nonces for NONCE_MEMORY_MS, inclusive: a nonce is refused while `now <= until`,
 * the same instant up to which checkFrameTime still lets its frame through. Bounded: when full of live
 * nonces it refuses new ones (`full`) instead of forgetting one, so a flood can neither grow it without
 * bound nor reopen a replay. Insertion order is expiry order (one clock, one duration), so expired
 * nonces are dropped from the front.
 */
export class NonceCache {
  private readonly seen = new Map<string, number>();
  /**
   * The latest timestamp a forgotten nonce's frame can carry (its acceptance + FRAME_MAX_AHEAD_MS). A
   * nonce is forgotten once the wall clock passed its memory; if the clock is then set back, its frame
   * would pass the clock check again with nothing left to recognise it: frames dated at or before this
   * are refused (issue 30: a clock stepped forward, then back, reopened a replay).
   */
  private forgotten = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly capacity = 200_000,
    private readonly rememberMs = NONCE_MEMORY_MS,
  ) {}

  get size(): number {
    return this.seen.size;
  }

  /** Frames dated at or before this may carry a nonce that was forgotten (see `forgotten`). */
  get forgottenUpTo(): number {
    return this.forgotten;
  }

  /** Records `nonce` when it is new and there is room. */
  check(nonce: string, now: number): NonceCheck {
    this.evictExpired(now);
    const key = nonce.toLowerCase();
    const until = this.seen.get(key);
    if (until !== undefined && now <= until) return "replay";
    if (this.seen.size >= this.capacity) return "full";
    this.seen.delete(key); // an expired twin: re-insert at the back to keep expiry order
    this.seen.set(key, now + this.rememberMs);
    return "fresh";
  }

  private evictExpired(now: number): void {
    for (const [nonce, until] of this.seen) {
      if (now <= until) break;
      this.seen.delete(nonce);
      this.forgotten = Math.max(this.forgotten, until - this.rememberMs + FRAME_MAX_AHEAD_MS);
    }
  }
}
