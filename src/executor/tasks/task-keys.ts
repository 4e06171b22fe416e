// The keys of the agent tasks running now (task provenance, docs/approval-protocol-v2.md "Task proof"):
// each turn's agent process gets a fresh key in its environment when it starts, and the key is forgotten
// the moment that process has exited, so a proof from a task that ended never holds again. The approval
// server asks `lookup` for every request that carries a proof. Kept in memory only: a restart of
// Gatehouse stops every task, and with them every key.
import { newTaskKey } from "../../approval-server/task-proof.js";
import type { VerifiedTask } from "../../shared/schemas/prompt.js";

interface Issued {
  key: string;
  verified: VerifiedTask;
}

export class TaskKeys {
  private readonly byTask = new Map<string, Issued>();

  /** A new key for the task's next agent process; a key still held by the task's previous turn stops counting. */
  issue(verified: VerifiedTask): string {
    const key = newTaskKey();
    this.byTask.set(verified.taskId, { key, verified: { ...verified } });
    return key;
  }

  /** The task's agent process has exited: its key stops counting (unless a newer turn already holds another). */
  revoke(taskId: string, key: string): void {
    if (this.byTask.get(taskId)?.key === key) this.byTask.delete(taskId);
  }

  /** The running task's key and facts, or null (the approval server's TaskKeyLookup). */
  lookup = (taskId: string): { key: string; verified: VerifiedTask } | null => {
    const issued = this.byTask.get(taskId);
    return issued ? { key: issued.key, verified: { ...issued.verified } } : null;
  };

  /** Tasks holding a key now. */
  get size(): number {
    return this.byTask.size;
  }

  /** Every key stops counting (the engine stops). */
  clear(): void {
    this.byTask.clear();
  }
}
