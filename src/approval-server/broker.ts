// The prompt broker: one queue of pending prompts (oldest first) between the gate, which asks, and
// presenters, which show prompts to a person (the Electron UI, a terminal, another Gatehouse).
// `request` is the gate's PromptFn. With no presenter attached it answers `no-approver` at once, so
// askFallback decides immediately instead of after the prompt timeout (and nobody reads it as a timeout).
import type { PromptAnswer, PromptDecision, PromptRequest } from "../core/policy/types.js";

/** Something that shows prompts to a person and reports their answers through `decide`. */
export interface Presenter {
  /** `ui` (the app's renderer), `tty`, `ask-via`, … */
  kind: string;
  /** A new pending prompt; call `decide` once the person has answered. */
  show(prompt: PromptRequest, decide: (answer: PromptAnswer) => void): void;
  /** The prompt is no longer pending (decided elsewhere, expired or withdrawn): stop showing it. */
  withdraw(id: string, decision: PromptDecision): void;
}

export type BrokerEvent =
  | { type: "added"; prompt: PromptRequest }
  | {
      type: "removed";
      id: string;
      decision: PromptDecision;
      /** `decided` by a presenter, `expired` at expiresAt, `withdrawn` (every requester left), `closed`. */
      why: "decided" | "expired" | "withdrawn" | "closed" | "no-presenter";
    };

export type BrokerListener = (event: BrokerEvent) => void;

export interface PromptBrokerOptions {
  now?: () => number;
  /** Pending prompts in all; `canAccept` says false beyond it (the socket answers `busy`). */
  maxPending?: number;
}

interface Waiter {
  resolve: (answer: PromptAnswer) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Pending {
  prompt: PromptRequest;
  key: string;
  waiters: Set<Waiter>;
  timer: NodeJS.Timeout;
}

/** Requests for the same command in the same place by the same agent and session share a prompt. */
export function coalescingKey(prompt: PromptRequest): string {
  const c = prompt.command;
  return JSON.stringify([
    prompt.sessionKey,
    prompt.agentId,
    prompt.cwd,
    c.argv ?? null,
    c.command ?? null,
    c.shell ?? null,
  ]);
}

export class PromptBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly byKey = new Map<string, Pending>();
  private readonly presenters = new Set<Presenter>();
  private readonly listeners = new Set<BrokerListener>();
  private readonly now: () => number;
  private readonly maxPending: number;

  constructor(options: PromptBrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxPending = options.maxPending ?? 32;
  }

  /** Shows prompts to `presenter` (including those already pending); returns the detach function. */
  attach(presenter: Presenter): () => void {
    this.presenters.add(presenter);
    for (const entry of this.pending.values()) this.show(presenter, entry);
    return () => this.detach(presenter);
  }

  /**
   * The app's own UI: it reads `list()` and the events and answers through `decide()`. Attaching it
   * makes `ping` report `ui: true`.
   */
  attachUi(): () => void {
    return this.attach({ kind: "ui", show: () => undefined, withdraw: () => undefined });
  }

  /** Whether a person can be asked (any presenter attached). */
  hasPresenter(): boolean {
    return this.presenters.size > 0;
  }

  presenterKinds(): string[] {
    return [...this.presenters].map((p) => p.kind);
  }

  /** Pending prompts, oldest first. */
  list(): PromptRequest[] {
    return [...this.pending.values()].map((entry) => entry.prompt);
  }

  /** How many requests wait on a pending prompt (duplicates share one); 0 when it is not pending. */
  waitingOn(id: string): number {
    return this.pending.get(id)?.waiters.size ?? 0;
  }

  get size(): number {
    return this.pending.size;
  }

  /** False when `prompt` would need a new slot and `maxPending` prompts already wait. */
  canAccept(prompt: PromptRequest): boolean {
    return this.pending.size < this.maxPending || this.byKey.has(coalescingKey(prompt));
  }

  on(listener: BrokerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Answers a pending prompt; false when no prompt with that id is pending (already decided, expired). */
  decide(id: string, answer: PromptAnswer): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.finish(entry, answer, "decided");
    return true;
  }

  /** The gate's PromptFn: resolves with the person's answer, `timeout` at expiresAt, `cancelled` on abort. */
  request = (prompt: PromptRequest, signal?: AbortSignal): Promise<PromptAnswer> => {
    if (signal?.aborted) return Promise.resolve({ decision: "cancelled" });
    if (this.presenters.size === 0) return Promise.resolve({ decision: "no-approver" });
    return new Promise<PromptAnswer>((resolve) => {
      const key = coalescingKey(prompt);
      let entry = this.byKey.get(key);
      if (!entry) {
        const delay = Math.max(0, prompt.expiresAt - this.now());
        const created: Pending = {
          prompt,
          key,
          waiters: new Set(),
          timer: setTimeout(() => this.finish(created, { decision: "timeout" }, "expired"), delay),
        };
        entry = created;
        this.pending.set(prompt.id, entry);
        this.byKey.set(key, entry);
        this.emit({ type: "added", prompt });
        for (const presenter of this.presenters) this.show(presenter, entry);
      }
      const target = entry;
      const waiter: Waiter = { resolve, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => this.leave(target, waiter);
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      target.waiters.add(waiter);
    });
  };

  /** Withdraws every pending prompt (`cancelled`): the app is stopping. */
  close(): void {
    for (const entry of [...this.pending.values()]) this.finish(entry, { decision: "cancelled" }, "closed");
  }

  private detach(presenter: Presenter): void {
    if (!this.presenters.delete(presenter)) return;
    if (this.presenters.size > 0) return;
    // Nobody is left to ask: askFallback decides what is pending, as if nobody had been reachable.
    for (const entry of [...this.pending.values()])
      this.finish(entry, { decision: "no-approver" }, "no-presenter");
  }

  private show(presenter: Presenter, entry: Pending): void {
    const id = entry.prompt.id;
    presenter.show(entry.prompt, (answer) => {
      if (this.pending.get(id) === entry) this.finish(entry, answer, "decided");
    });
  }

  private leave(entry: Pending, waiter: Waiter): void {
    if (!entry.waiters.delete(waiter)) return;
    waiter.resolve({ decision: "cancelled" });
    if (entry.waiters.size === 0 && this.pending.get(entry.prompt.id) === entry) {
      this.finish(entry, { decision: "cancelled" }, "withdrawn");
    }
  }

  private finish(
    entry: Pending,
    answer: PromptAnswer,
    why: Extract<BrokerEvent, { type: "removed" }>["why"],
  ): void {
    if (this.pending.get(entry.prompt.id) !== entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(entry.prompt.id);
    this.byKey.delete(entry.key);
    for (const waiter of entry.waiters) {
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(answer);
    }
    entry.waiters.clear();
    for (const presenter of this.presenters) presenter.withdraw(entry.prompt.id, answer.decision);
    this.emit({ type: "removed", id: entry.prompt.id, decision: answer.decision, why });
  }

  private emit(event: BrokerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // a listener's failure must not stop the others or the decision
      }
    }
  }
}
