// A wall clock that never reads earlier than it already did, for a long-running process's decisions
// about lifetimes (allowlist entries' end times, elevated mode): a wall clock set back must not bring
// an expired entry or elevation back (issue 30). Frame timestamps keep the plain wall clock (the
// approval server has its own rule for a clock set back: frame-auth.ts).
export function neverBackwards(clock: () => number): () => number {
  let latest = Number.NEGATIVE_INFINITY;
  return () => {
    latest = Math.max(latest, clock());
    return latest;
  };
}
