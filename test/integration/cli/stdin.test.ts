// Standard input as one-shot commands read it (src/cli/stdin.ts): blocking reads of descriptor 0, and a
// stream from where they stopped when the descriptor refuses to block. Each case is a real process with
// a real file, pipe or non-blocking pipe on its descriptor 0; the hook reads its input this way.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const STDIN_MODULE = path.join(REPO_ROOT, "dist/src/cli/stdin.js");

/**
 * A Node process that reads all of its standard input with readStandardInput and prints it back.
 * `nonBlocking`: it first opens process.stdin as a stream, which puts a pipe in non-blocking mode.
 */
function reader(nonBlocking: boolean): string[] {
  const script = `
    import { readStandardInput } from ${JSON.stringify(STDIN_MODULE)};
    if (${nonBlocking}) { process.stdin.pause(); process.stdout.write("ready\\n"); }
    const text = await readStandardInput(() => process.stdin);
    process.stdout.write(JSON.stringify({ text }));`;
  return ["--input-type=module", "-e", script];
}

interface Read {
  text: string;
  code: number | null;
}

function runReader(
  args: string[],
  stdin: "pipe" | number,
  feed?: (child: ReturnType<typeof spawn>) => void,
): Promise<Read> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: [stdin, "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const json = out.slice(out.indexOf("{"));
      if (code !== 0) reject(new Error(`reader exited with ${code}: ${err}`));
      else resolve({ text: (JSON.parse(json) as { text: string }).text, code });
    });
    feed?.(child);
  });
}

/** Over four times the 64 KiB read size, with multi-byte characters across every read boundary. */
const LARGE = `{"command":"${"é€😀x".repeat(30_000)}"}`;

let t: TempHome;
beforeAll(async () => {
  t = await makeTempHome("gh-stdin-");
});
afterAll(async () => t?.cleanup());

describe("reading standard input to its end", () => {
  it("reads a file given as standard input", async () => {
    const file = path.join(t.home, "input.json");
    fs.writeFileSync(file, LARGE);
    const fd = fs.openSync(file, "r");
    try {
      expect((await runReader(reader(false), fd)).text).toBe(LARGE);
    } finally {
      fs.closeSync(fd);
    }
  });

  it("reads a pipe whose writer sends more than one read holds, character for character", async () => {
    const read = await runReader(reader(false), "pipe", (child) => child.stdin!.end(LARGE));
    expect(read.text).toBe(LARGE);
  });

  it("reads an empty pipe as empty text", async () => {
    const read = await runReader(reader(false), "pipe", (child) => child.stdin!.end());
    expect(read.text).toBe("");
  });

  it("reads a non-blocking pipe as a stream from where the blocking reads stopped", async () => {
    const read = await runReader(reader(true), "pipe", (child) => {
      // the first half before the reader starts, the rest once it is reading (or refused to block)
      const half = Buffer.from(LARGE).subarray(0, 100_001);
      child.stdin!.write(half);
      let said = "";
      child.stdout!.on("data", (d: string) => {
        said += d;
        if (said.includes("ready\n")) child.stdin!.end(Buffer.from(LARGE).subarray(half.length));
      });
    });
    expect(read.text).toBe(LARGE);
  });
});
