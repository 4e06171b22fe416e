// Allowlist usage bookkeeping for one approvals store (exec-policy.md "Deciding", last paragraph).
// Each `recordUse` is a locked, fsynced rewrite of the approvals file (which the UI watches), so a
// service that runs many commands writes one at a time, and gathers the lastUsed* notes of an agent's
// entries for 2 s into one write, each note keeping the time of its use (docs/decisions.md "Usage
// notes"). Uses of entries with a `usesLeft` limit are not counted here: the gate takes them when it
// decides (ApprovalsStore.consumeUses), before the run may start.
import type { ApprovalsStore } from "../core/approvals/index.js";
import type { Logger } from "../core/log.js";

export const NOTES_DELAY_MS = 2_000;

export interface EntryUse {
  entryId: string;
  command: string;
  resolvedPath: string | null;
  /** When it was used (epoch ms); the recorder sets it. */
  at?: number;
}

interface Batch {
  agentId: string;
  uses: Map<string, EntryUse>;
  dueAt: number;
  done: Promise<void>;
  resolve: () => void;
}

export interface UsageRecorderOptions {
  /** How long notes gather before they are written (default 2 s). */
  notesDelayMs?: number;
  now?: () => number;
}

export class UsageRecorder {
  /** Batches not started yet. */
  private readonly queue: Batch[] = [];
  private writing: Batch | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly notesDelayMs: number;
  private readonly now: () => number;

  constructor(
    private readonly approvals: Pick<ApprovalsStore, "recordUse">,
    private readonly logger: Logger,
    options: UsageRecorderOptions = {},
  ) {
    this.notesDelayMs = options.notesDelayMs ?? NOTES_DELAY_MS;
    this.now = options.now ?? Date.now;
  }

  /** Resolves once these uses are written (or the write failed and was logged); never rejects. */
  record(agentId: string, uses: EntryUse[]): Promise<void> {
    if (uses.length === 0) return Promise.resolve();
    let batch = this.queue.find((b) => b.agentId === agentId);
    if (!batch) {
      let resolve: () => void = () => undefined;
      const done = new Promise<void>((r) => (resolve = r));
      const dueAt = this.now() + this.notesDelayMs;
      batch = { agentId, uses: new Map(), dueAt, done, resolve };
      this.queue.push(batch);
    }
    const at = this.now();
    for (const use of uses) batch.uses.set(use.entryId, { ...use, at }); // the latest use of an entry wins
    this.schedule();
    return batch.done;
  }

  /** Writes gathering notes now and resolves when everything recorded so far is written (shutdown). */
  async idle(): Promise<void> {
    for (const batch of this.queue) batch.dueAt = 0;
    this.schedule();
    for (;;) {
      const pending = [...this.queue, ...(this.writing ? [this.writing] : [])];
      if (pending.length === 0) return;
      await Promise.all(pending.map((b) => b.done));
    }
  }

  private schedule(): void {
    if (this.writing) return; // the end of the current write schedules again
    const index = this.queue.findIndex((b) => b.dueAt <= this.now());
    if (index >= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      const [batch] = this.queue.splice(index, 1);
      if (batch) void this.write(batch);
      return;
    }
    const next = Math.min(...this.queue.map((b) => b.dueAt));
    if (Number.isFinite(next) && !this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = null;
          this.schedule();
        },
        Math.max(0, next - this.now()),
      );
    }
  }

  private async write(batch: Batch): Promise<void> {
    this.writing = batch;
    try {
      await this.approvals.recordUse(batch.agentId, [...batch.uses.values()]);
    } catch (error) {
      this.logger.warn("could not record allowlist usage", { error, agentId: batch.agentId });
    }
    this.writing = null;
    batch.resolve();
    this.schedule();
  }
}
