// Allowlist usage bookkeeping for one approvals store (exec-policy.md "Deciding", last paragraph).
// Each `recordUse` is a locked, fsynced rewrite of the approvals file, so a service that runs many
// commands sends them one at a time, and merges the lastUsed* notes of unlimited entries that pile
// up meanwhile into one write. Uses of entries with a `usesLeft` limit are never merged: the store
// counts an entry down once per call, and every run must count.
import type { ApprovalsStore } from "../core/approvals/index.js";
import type { Logger } from "../core/log.js";

export interface EntryUse {
  entryId: string;
  command: string;
  resolvedPath: string | null;
}

interface Batch {
  agentId: string;
  uses: Map<string, EntryUse>;
  mergeable: boolean;
  done: Promise<void>;
  resolve: () => void;
}

export class UsageRecorder {
  /** Batches not started yet, in order. */
  private readonly queue: Batch[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly approvals: Pick<ApprovalsStore, "recordUse">,
    private readonly logger: Logger,
  ) {}

  /** Resolves once these uses are written (or the write failed and was logged); never rejects. */
  record(agentId: string, uses: EntryUse[], countsUses: boolean): Promise<void> {
    if (uses.length === 0) return Promise.resolve();
    let batch = countsUses ? undefined : this.queue.find((b) => b.mergeable && b.agentId === agentId);
    if (!batch) {
      let resolve: () => void = () => undefined;
      const done = new Promise<void>((r) => (resolve = r));
      batch = { agentId, uses: new Map(), mergeable: !countsUses, done, resolve };
      this.queue.push(batch);
    }
    for (const use of uses) batch.uses.set(use.entryId, use); // the latest use of an entry wins
    this.draining ??= this.drain();
    return batch.done;
  }

  /** Resolves when everything recorded so far is written (for shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    for (let batch = this.queue.shift(); batch; batch = this.queue.shift()) {
      try {
        await this.approvals.recordUse(batch.agentId, [...batch.uses.values()]);
      } catch (error) {
        this.logger.warn("could not record allowlist usage", { error, agentId: batch.agentId });
      }
      batch.resolve();
    }
    this.draining = null;
  }
}
