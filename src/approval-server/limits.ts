// The approval socket's limits (approval-protocol.md "Framing", "Limits"). Tests shorten some of
// them; production uses the defaults.
import { NONCE_MEMORY_MS } from "./frame-auth.js";
import { MAX_LINE_BYTES } from "./framing.js";

export interface ServerLimits {
  maxLineBytes: number;
  /** The first frame must arrive within this long. */
  firstFrameMs: number;
  /** A connection with no traffic and nothing in flight is closed after this long. */
  idleMs: number;
  /** Requests per connection per second before `rate_limited`. */
  requestsPerSecond: number;
  /** Requests per second on all connections together before `rate_limited` (checked before a nonce is remembered). */
  requestsPerSecondTotal: number;
  /** Error replies a connection may earn in its life before it is closed. */
  maxInvalidFrames: number;
  /** Prompts pending in all before `busy`. */
  maxPendingPrompts: number;
  /**
   * Accepted nonces remembered at most (then `busy`). Default: what the total rate can bring in while
   * a nonce is remembered (nonceCapacityFor), so a client within the limits never sees `busy`.
   */
  nonceCapacity: number;
  /** Reading from a connection pauses while this many reply bytes wait to be sent. */
  maxQueuedReplyBytes: number;
}

/**
 * Nonces that can be alive at once when at most `requestsPerSecondTotal` are accepted in any second:
 * each is remembered NONCE_MEMORY_MS (11 s), plus one second for the limiter's window edges.
 */
export function nonceCapacityFor(requestsPerSecondTotal: number): number {
  return requestsPerSecondTotal * (Math.ceil(NONCE_MEMORY_MS / 1000) + 1);
}

const REQUESTS_PER_SECOND_TOTAL = 20_000;

export const DEFAULT_LIMITS: ServerLimits = {
  maxLineBytes: MAX_LINE_BYTES,
  firstFrameMs: 5_000,
  idleMs: 60_000,
  requestsPerSecond: 2_000,
  requestsPerSecondTotal: REQUESTS_PER_SECOND_TOTAL,
  maxInvalidFrames: 10,
  maxPendingPrompts: 32,
  nonceCapacity: nonceCapacityFor(REQUESTS_PER_SECOND_TOTAL),
  maxQueuedReplyBytes: 4 * 1024 * 1024,
};

/** A sliding one-second window counted in 100 ms buckets: cheap, and no burst at window edges. */
export class RateLimiter {
  private readonly buckets = new Array<number>(10).fill(0);
  private bucketStart = 0;
  private total = 0;

  constructor(private readonly perSecond: number) {}

  /** Counts one request at `now`; false when the last second already holds `perSecond`. */
  allow(now: number): boolean {
    this.advance(now);
    if (this.total >= this.perSecond) return false;
    const index = Math.floor(now / 100) % 10;
    this.buckets[index] = (this.buckets[index] ?? 0) + 1;
    this.total++;
    return true;
  }

  private advance(now: number): void {
    const current = Math.floor(now / 100);
    if (this.bucketStart === 0 || current - this.bucketStart >= 10) {
      this.buckets.fill(0);
      this.total = 0;
      this.bucketStart = current;
      return;
    }
    while (this.bucketStart < current) {
      this.bucketStart++;
      const index = this.bucketStart % 10;
      this.total -= this.buckets[index] ?? 0;
      this.buckets[index] = 0;
    }
  }
}
