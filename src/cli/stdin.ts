// Standard input to its end, read with blocking reads of descriptor 0. A one-shot command that needs
// all of its input before it can do anything (the hook, on every tool call an agent makes) then creates
// no stream and starts no thread pool (issue 12). A descriptor that refuses to block (EAGAIN: a
// non-blocking pipe) is read on as a stream from where the blocking reads stopped.
import fs from "node:fs";

const CHUNK_BYTES = 64 * 1024;

/** Every byte on `stream` (a Buffer or text chunks). */
export async function readAllBytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** All of standard input as UTF-8 text; `stream` is process.stdin, created only when it is needed. */
export async function readStandardInput(stream: () => NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for (;;) {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let read: number;
    try {
      read = fs.readSync(0, buffer, 0, CHUNK_BYTES, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EOF") break; // Windows: the writer closed its end of the pipe
      if (code !== "EAGAIN") throw error;
      chunks.push(await readAllBytes(stream()));
      break;
    }
    if (read === 0) break;
    chunks.push(buffer.subarray(0, read));
  }
  return Buffer.concat(chunks).toString("utf8");
}
