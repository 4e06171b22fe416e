// Terminal task events that could not be sent (device-protocol.md §6.2: "Without a registered
// connection, events are dropped, except each task's terminal event, which is kept and sent right after
// the next successful registration"). Kept on disk in `E/outbox/<subtask_id>.json` (atomic, 0600 in a
// 0700 folder), so they survive an app restart too.
//
// Delivery: each event is emitted, then its file is deleted synchronously in the same tick, so the only
// window for a duplicate is a crash between those two calls (then the event is sent again after the
// restart: at least once). A file is never deleted before its emit, so nothing is lost to a crash
// either. Socket.IO emits without an ack, so an event written to a socket that dies in the same moment
// can still be lost; that is the protocol's limit, not the outbox's.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../core/log.js";
import { writeFileAtomic } from "../core/store/index.js";

export interface TerminalOutbox {
  /** Keeps a terminal event until the next registration (the latest one per subtask). */
  keep(eventType: string, body: Record<string, unknown>): void;
  /** Emits every kept event, oldest first, forgetting each right after its emit. */
  flush(emit: (eventType: string, body: Record<string, unknown>) => void): void;
  pending(): number;
}

/** Keeps events in memory only (tests of the connection loop; an app without a home folder). */
export function memoryOutbox(): TerminalOutbox {
  let kept: Array<{ eventType: string; body: Record<string, unknown> }> = [];
  return {
    keep: (eventType, body) => void kept.push({ eventType, body }),
    flush(emit) {
      const pending = kept;
      kept = [];
      for (const { eventType, body } of pending) emit(eventType, body);
    },
    pending: () => kept.length,
  };
}

export const OutboxFileSchema = z.object({
  version: z.literal(1),
  event_type: z.string().min(1),
  kept_at: z.number(),
  body: z.record(z.string(), z.unknown()),
});
export type OutboxFile = z.infer<typeof OutboxFileSchema>;

interface Entry {
  key: string;
  file: OutboxFile;
  /** The disk write in flight, if any. */
  writing: Promise<void> | null;
  /** Emitted: its file goes as soon as it exists. */
  sent: boolean;
  /** A newer event of the same subtask took its place (and its file). */
  replaced: boolean;
}

export function outboxDir(executorHome: string): string {
  return path.join(executorHome, "outbox");
}

function keyOf(body: Record<string, unknown>): string {
  const subtask = body.subtask_id;
  const text = typeof subtask === "number" || typeof subtask === "string" ? String(subtask) : "";
  return /^\d{1,30}$/.test(text) ? text : `event-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
}

export class DiskOutbox implements TerminalOutbox {
  private readonly entries = new Map<string, Entry>();
  private readonly writes = new Set<Promise<void>>();
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(
    readonly dir: string,
    options: { logger: Logger; now?: () => number },
  ) {
    this.logger = options.logger.child("outbox");
    this.now = options.now ?? Date.now;
  }

  /** Reads the events a previous run of the app left (call before the first registration). */
  async load(): Promise<void> {
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const name of names.sort()) {
      const full = path.join(this.dir, name);
      if (name.startsWith(".") && name.includes(".gatehouse-")) {
        await fsp.rm(full, { force: true }); // a temp file of a write that was cut short
        continue;
      }
      if (!name.endsWith(".json")) continue;
      const key = name.slice(0, -".json".length);
      if (this.entries.has(key)) continue;
      let parsed: OutboxFile | null = null;
      try {
        const result = OutboxFileSchema.safeParse(JSON.parse(await fsp.readFile(full, "utf8")));
        if (result.success) parsed = result.data;
      } catch {
        parsed = null;
      }
      if (!parsed) {
        const aside = `${full}.corrupt-${this.now()}`;
        this.logger.warn(`Set aside an unreadable kept task event: ${aside}`);
        await fsp.rename(full, aside).catch(() => undefined);
        continue;
      }
      this.entries.set(key, { key, file: parsed, writing: null, sent: false, replaced: false });
    }
    if (this.entries.size > 0) {
      this.logger.info(`${this.entries.size} task result(s) kept from an earlier run wait for the backend`);
    }
  }

  keep(eventType: string, body: Record<string, unknown>): void {
    const key = keyOf(body);
    const previous = this.entries.get(key);
    if (previous) previous.replaced = true; // its file is overwritten below
    const entry: Entry = {
      key,
      file: { version: 1, event_type: eventType, kept_at: this.now(), body },
      writing: null,
      sent: false,
      replaced: false,
    };
    this.entries.set(key, entry);
    const write = (previous?.writing ?? Promise.resolve())
      .then(() =>
        writeFileAtomic(this.fileOf(key), `${JSON.stringify(entry.file)}\n`, { mode: 0o600, dirMode: 0o700 }),
      )
      .then(
        () => {
          // Sent while the write was in flight: the file must not outlive the emit.
          if (entry.sent && !entry.replaced) this.unlink(key);
        },
        (error: unknown) =>
          this.logger.error(
            `Could not keep a task result on disk (kept in memory only): ${(error as Error).message}`,
          ),
      )
      .finally(() => {
        entry.writing = null;
        this.writes.delete(write);
      });
    entry.writing = write;
    this.writes.add(write);
  }

  flush(emit: (eventType: string, body: Record<string, unknown>) => void): void {
    const ordered = [...this.entries.values()].sort((a, b) => a.file.kept_at - b.file.kept_at);
    for (const entry of ordered) {
      emit(entry.file.event_type, entry.file.body);
      entry.sent = true;
      this.entries.delete(entry.key);
      if (!entry.writing) this.unlink(entry.key);
    }
  }

  pending(): number {
    return this.entries.size;
  }

  /** Resolves once every write started so far has landed (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  private fileOf(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  private unlink(key: string): void {
    try {
      fs.unlinkSync(this.fileOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.logger.warn(`Could not remove a sent task result: ${(error as Error).message}`);
      }
    }
  }
}
