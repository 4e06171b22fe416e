import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readPipe } from "../../../src/executor/pipe-reader.js";

/** Reads `stream` to its close; every chunk copied (they may be views of the shared buffer). */
function readAll(stream: Parameters<typeof readPipe>[0]) {
  const chunks: Buffer[] = [];
  let reader: ReturnType<typeof readPipe> | undefined;
  const closed = new Promise<Buffer>((resolve) => {
    reader = readPipe(stream, {
      onChunk: (bytes) => chunks.push(Buffer.from(bytes)),
      onClose: () => resolve(Buffer.concat(chunks)),
    });
  });
  return { reader: reader!, closed };
}

describe("reading a child's output pipe", () => {
  it("reads a child's pipe into the shared buffer and sees its end", async () => {
    const child = spawn("sh", ["-c", "printf 'out'; printf 'err' >&2"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = readAll(child.stdout);
    const err = readAll(child.stderr);
    // On this Node the fast path is taken; should a future Node drop it, this says so (and the fallback still reads).
    expect(out.reader.reusesBuffer).toBe(true);
    expect((await out.closed).toString()).toBe("out");
    expect((await err.closed).toString()).toBe("err");
  });

  it("reads two pipes flooding at once, each byte to its own reader", async () => {
    // Both pipes share one read buffer: what each reader copied must still be its own child's bytes.
    const pattern = (letter: string) => `for i in $(seq 1 3000); do printf '%s%05d\\n' ${letter} $i; done`;
    const a = spawn("bash", ["-c", pattern("a")], { stdio: ["ignore", "pipe", "ignore"] });
    const b = spawn("bash", ["-c", pattern("b")], { stdio: ["ignore", "pipe", "ignore"] });
    const [outA, outB] = await Promise.all([readAll(a.stdout).closed, readAll(b.stdout).closed]);
    const expected = (letter: string) =>
      Array.from({ length: 3000 }, (_, i) => `${letter}${String(i + 1).padStart(5, "0")}\n`).join("");
    expect(outA.toString()).toBe(expected("a"));
    expect(outB.toString()).toBe(expected("b"));
  });

  it("pauses and resumes a child's pipe without losing or reordering bytes", async () => {
    // A pattern with no short period, so a lost, repeated or reordered read shows.
    const script =
      "const b = Buffer.alloc(3e6); for (let i = 0; i < b.length; i++) b[i] = (i * 7 + (i >>> 11)) & 255; process.stdout.write(b);";
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => {
      const reader = readPipe(child.stdout, {
        onChunk: (bytes) => {
          chunks.push(Buffer.from(bytes));
          reader.pause();
          setImmediate(() => reader.resume());
        },
        onClose: resolve,
      });
    });
    await closed;
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(3_000_000);
    const wrong = all.findIndex((byte, i) => byte !== ((i * 7 + (i >>> 11)) & 255));
    expect(wrong).toBe(-1);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("falls back to the stream's own chunks for a stream that is not a child's pipe", async () => {
    const stream = new PassThrough();
    const { reader, closed } = readAll(stream);
    expect(reader.reusesBuffer).toBe(false);
    stream.write("hello ");
    stream.end("world");
    expect((await closed).toString()).toBe("hello world");
  });

  it("closes when destroyed, while the child still writes", async () => {
    const child = spawn("sh", ["-c", "while :; do echo y; done"], { stdio: ["ignore", "pipe", "ignore"] });
    let got = 0;
    const closed = new Promise<void>((resolve) => {
      const reader = readPipe(child.stdout, {
        onChunk: (bytes) => {
          got += bytes.length;
          if (got > 100_000) reader.destroy();
        },
        onClose: resolve,
      });
    });
    await closed;
    // The writer is left with a closed pipe: it ends by SIGPIPE (what `yes | head` does), not by us.
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once("exit", (c, s) => resolve([c, s])),
    );
    expect(code === null ? signal : code).not.toBe(0);
    expect(got).toBeGreaterThan(100_000);
  });
});
