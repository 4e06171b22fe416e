// Benchmarks (bench.md): each file `*.bench.ts` exports `benchmarks`, a list of these. Each measures
// its own baseline in the same run and reports a ratio, because absolute times drift on shared machines.
import type { AllowlistEntry, ApprovalsState } from "../../src/core/approvals/index.js";
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target: string;
  ok: boolean;
  /** Extra figures (p99, RSS, …). */
  details?: Record<string, number | string>;
}

export interface Benchmark {
  name: string;
  run(): Promise<BenchResult>;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** An in-memory approvals state: allowlist security with these entries for every agent (no file read). */
export function benchApprovals(allowlist: AllowlistEntry[]): ApprovalsState {
  return {
    status: "ok",
    path: "/bench/exec-approvals.json",
    file: {
      version: 1,
      socket: { path: "/bench/x.sock", token: "t".repeat(43) },
      defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" },
      agents: { "*": { allowlist } },
    },
  };
}
