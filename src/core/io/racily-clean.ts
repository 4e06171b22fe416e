// Git's "racily clean" rule, for every cache that trusts a file's or a folder's time stamps to say it
// has not changed (PATH folder listings, the kernel's executability answers, the approvals store's
// state): an answer is kept only when the stamps were more than GRANULARITY_MS older than the wall
// clock read before the `stat`, so a change made afterwards cannot carry the same stamps (coarse
// kernel clocks, 2 s FAT / 1 s ext3 granularity), and only while the wall clock has not been set
// since (a clock set back could repeat a stamp).

/** Margin between a stamp and the look that trusts it: above every supported timestamp granularity. */
export const GRANULARITY_MS = 2_000;
/** How far the wall clock may drift from the monotonic clock (NTP slewing) before trusted answers are dropped. */
export const MAX_CLOCK_SHIFT_MS = 500;

/** Wall clock minus monotonic clock: moves when the wall clock is set. Kept with each trusted answer. */
export function clockOffset(): number {
  return Date.now() - performance.now();
}

/** Whether stamps whose latest is `changedMs` were settled at `wallBefore` (the wall clock read before the stat). */
export function settledBefore(changedMs: number, wallBefore: number): boolean {
  return changedMs <= wallBefore - GRANULARITY_MS;
}

/** Whether the wall clock has not been set since `offset` (a `clockOffset()`) was taken. */
export function clockUnsetSince(offset: number): boolean {
  return Math.abs(clockOffset() - offset) <= MAX_CLOCK_SHIFT_MS;
}
