// Reads a child's output pipe; past the first 64 KiB, into one reused buffer (issue 12, exec.flood;
// docs/decisions.md "Performance"). A Node stream allocates a fresh 64 KiB buffer for every read and
// frees it only at the next garbage collection: under a flood that is a malloc, fresh pages faulted
// in and a Buffer object per read, about half of a Node reader's CPU. Node's own `onread` option of
// net.Socket reads into a buffer the caller gives instead; child_process does not offer it for a
// child's stdio, so the pipe handle it created is handed to a socket that has it. That socket costs
// about 0.1 ms to make, so it is made only for output that goes on (most commands print little).
// Where the handle is not what we expect (another runtime, a future Node), the stream is read as
// before, with read-memory.ts keeping its memory small.
import net from "node:net";
import type { Readable } from "node:stream";
import { ReadMemory } from "./read-memory.js";

/** One read at most; a read returns what the pipe holds (≈ 200 KiB for a Linux socket pair). */
const READ_BUFFER_BYTES = 256 * 1024;
/** Output up to this size is read as the stream's own chunks (no socket to make). */
export const SWITCH_AFTER_BYTES = 64 * 1024;

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
  /** Whether reads land in the shared buffer now (before the switch, or in the fallback: no). */
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

interface Controls {
  pause(): void;
  resume(): void;
  destroy(): void;
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
 * Moves the pipe handle from `stream` to a socket reading into the shared buffer. Only between two
 * reads, with nothing buffered in `stream`: the handle reads on, its next read lands in the socket.
 */
function socketOnSharedBuffer(stream: Readable, handle: object, callbacks: PipeReaderCallbacks): net.Socket {
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
  // The old stream lets go of the handle: nothing it is asked later (child_process resumes a child's
  // unread stdio at exit; a destroy) reaches the handle, which `socket` reads and closes from now on.
  (stream as unknown as { _handle: unknown })._handle = null;
  stream.readable = false;
  socket.on("error", () => undefined); // a read error: 'close' follows
  socket.on("close", () => callbacks.onClose());
  socket.resume(); // flowing: the end of the output ends and closes the socket
  return socket;
}

/**
 * Reads `stream` (a child's stdout or stderr from `spawn(…, { stdio: "pipe" })`) until it closes.
 * Call it in the tick of the spawn, before the event loop can read anything.
 */
export function readPipe(stream: Readable, callbacks: PipeReaderCallbacks): PipeReader {
  let target: Controls = stream;
  let onShared = false;
  let handle = userBufferHandle(stream);
  let bytesRead = 0;
  const memory = new ReadMemory();

  const onData = (chunk: Buffer) => {
    callbacks.onChunk(chunk);
    bytesRead += chunk.length;
    if (
      handle &&
      bytesRead >= SWITCH_AFTER_BYTES &&
      !stream.destroyed &&
      stream.readableFlowing === true && // nobody holds it paused …
      stream.readableLength === 0 // … and nothing read waits in it
    ) {
      stream.off("data", onData);
      stream.off("close", onStreamClose);
      target = socketOnSharedBuffer(stream, handle, callbacks);
      onShared = true;
      handle = null;
      return;
    }
    memory.read(chunk.length);
  };
  const onStreamClose = () => callbacks.onClose();

  stream.on("data", onData);
  stream.on("error", () => undefined); // a destroyed pipe; 'close' follows
  stream.on("close", onStreamClose);
  return {
    get reusesBuffer() {
      return onShared;
    },
    pause: () => target.pause(),
    resume: () => target.resume(),
    destroy: () => target.destroy(),
  };
}
