// Reads a child's output pipe into one reused buffer (issue 12, exec.flood; docs/decisions.md
// "Performance"). A Node stream allocates a fresh 64 KiB buffer for every read and frees it only at
// the next garbage collection: under a flood that is a malloc, fresh pages faulted in and a Buffer
// object per read, about half of a Node reader's CPU. Node's own `onread` option of net.Socket reads
// into a buffer the caller gives instead; child_process does not offer it for a child's stdio, so the
// pipe handle it created is handed to a socket that has it. Where that handle is not what we expect
// (another runtime, a future Node), the ordinary stream is read as before.
import net from "node:net";
import type { Readable } from "node:stream";
import { ReadMemory } from "./read-memory.js";

/** One read at most; a read returns what the pipe holds (≈ 200 KiB for a Linux socket pair). */
const READ_BUFFER_BYTES = 256 * 1024;

/**
 * Shared by every pipe this thread reads: a read's callback runs to its end before the next read of
 * any pipe starts, so no two reads are ever in it at once. Allocated on first use.
 */
let sharedBuffer: Buffer | null = null;

/** What Node's net.Socket constructor takes (its `handle` option is what child_process itself uses). */
interface SocketOnHandleOptions extends net.SocketConstructorOpts, net.ConnectOpts {
  handle: object;
}

export interface PipeReader {
  /** Whether reads land in the shared buffer (false: the stream's own chunks, fallback). */
  readonly reusesBuffer: boolean;
  pause(): void;
  resume(): void;
  /** Stops reading and closes our end (a process still writing gets EPIPE/SIGPIPE); `onClose` follows. */
  destroy(): void;
}

export interface PipeReaderCallbacks {
  /**
   * Each read, in order. `bytes` may be a view of the shared buffer: valid only during this call
   * (copy what you keep). It is never empty.
   */
  onChunk(bytes: Buffer): void;
  /** Once, when the pipe is closed: end of output, a read error, or destroy(). */
  onClose(): void;
}

/** The pipe handle child_process made (`stream._handle`), when it can read into a caller's buffer. */
function userBufferHandle(stream: Readable): object | null {
  if (!(stream instanceof net.Socket)) return null;
  const handle: unknown = (stream as unknown as { _handle?: unknown })._handle;
  if (typeof handle !== "object" || handle === null) return null;
  const useUserBuffer: unknown = (handle as { useUserBuffer?: unknown }).useUserBuffer;
  return typeof useUserBuffer === "function" ? handle : null;
}

/**
 * Reads `stream` (a child's stdout or stderr from `spawn(…, { stdio: "pipe" })`, not read yet) until
 * it closes. Call it in the tick of the spawn, before the event loop can read anything.
 */
export function readPipe(stream: Readable, callbacks: PipeReaderCallbacks): PipeReader {
  const handle = userBufferHandle(stream);
  if (!handle) return readStream(stream, callbacks);
  // child_process resumes a child's stdio streams nobody read when the child exits: this one must
  // stay quiet, as the handle is read through `socket` from now on.
  stream.readable = false;
  sharedBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const buffer = sharedBuffer;
  const options: SocketOnHandleOptions = {
    handle,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (bytes: number) => {
        callbacks.onChunk(buffer.subarray(0, bytes));
        return true;
      },
    },
  };
  const socket = new net.Socket(options);
  socket.on("error", () => undefined); // a read error: 'close' follows
  socket.on("close", () => callbacks.onClose());
  socket.resume(); // flowing: the end of the output ends and closes the socket
  return {
    reusesBuffer: true,
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    destroy: () => socket.destroy(),
  };
}

/** The fallback: the stream's own chunks, with the young collections that keep its memory small. */
function readStream(stream: Readable, callbacks: PipeReaderCallbacks): PipeReader {
  const memory = new ReadMemory();
  stream.on("data", (chunk: Buffer) => {
    callbacks.onChunk(chunk);
    memory.read(chunk.length);
  });
  stream.on("error", () => undefined); // a destroyed pipe; 'close' follows
  stream.on("close", () => callbacks.onClose());
  return {
    reusesBuffer: false,
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    destroy: () => stream.destroy(),
  };
}
