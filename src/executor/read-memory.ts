// Keeps a process that reads a flood of output small (issue 12, docs/decisions.md "Performance").
// Node allocates a fresh 64 KiB buffer for every read from a pipe and V8 frees them only at its next
// young-generation collection, which it starts by itself once about 32 MiB of them are waiting: a bare
// Node reader of 1 GiB grows by ~40 MiB. A young collection after every few MiB read (a fraction of a
// millisecond each: the young generation is small) keeps the growth to a few of those buffers.
import v8 from "node:v8";
import vm from "node:vm";

/** Bytes read between two young collections. */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

type Collect = (options: { type: "minor" | "major" }) => void;
let collect: Collect | null | undefined;

/**
 * V8's `gc`, given only to a fresh context (never to this one's global scope); null where the flag is
 * refused (the collection then happens as V8 decides, with the larger growth).
 */
function youngCollector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    collect = typeof gc === "function" ? (gc as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Counts bytes read from a child; collects the young generation every COLLECT_EVERY_BYTES. */
export class ReadMemory {
  private sinceCollect = 0;

  read(bytes: number): void {
    this.sinceCollect += bytes;
    if (this.sinceCollect < COLLECT_EVERY_BYTES) return;
    this.sinceCollect = 0;
    youngCollector()?.({ type: "minor" });
  }
}
