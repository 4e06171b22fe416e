// Cancels of tasks that have not arrived yet (device-protocol.md §6.3): remembered for 10 minutes and
// consumed by a matching `task:execute`; close-session forgets them (§6.4). Every entry lives equally
// long and the map keeps insertion order, so expired entries are always at the front: pruning stops
// at the first live one (a flood of cancels costs constant time each, not time that grows with the
// flood), and at most `MAX_REMEMBERED_CANCELS` are kept (the oldest go first).
export const CANCEL_MEMORY_MS = 10 * 60 * 1000;
export const MAX_REMEMBERED_CANCELS = 10_000;

/** Cancels of tasks that have not arrived yet, keyed `subtask:<id>` or `task:<id>`, with their expiry. */
export class RememberedCancels {
  private readonly entries = new Map<string, { expires: number; taskId: string }>();
  constructor(private readonly now: () => number = Date.now) {}

  remember(request: { taskId: string; subtaskId: string | null }): void {
    this.prune();
    const key = request.subtaskId !== null ? `subtask:${request.subtaskId}` : `task:${request.taskId}`;
    this.entries.delete(key); // a renewed cancel moves to the back, keeping the order by expiry
    this.entries.set(key, { expires: this.now() + CANCEL_MEMORY_MS, taskId: request.taskId });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_REMEMBERED_CANCELS) break;
      this.entries.delete(oldest);
    }
  }

  /** True (and forgotten) when a live cancel matches the subtask or the task. */
  consume(taskId: string, subtaskId: string): boolean {
    this.prune();
    for (const key of [`subtask:${subtaskId}`, `task:${taskId}`]) {
      if (this.entries.delete(key)) return true;
    }
    return false;
  }

  /** Forgets every remembered cancel of the task, by task id or by one of its subtasks. */
  forgetTask(taskId: string): void {
    for (const [key, entry] of this.entries) if (entry.taskId === taskId) this.entries.delete(key);
  }

  size(): number {
    this.prune();
    return this.entries.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expires > now) return;
      this.entries.delete(key);
    }
  }
}
