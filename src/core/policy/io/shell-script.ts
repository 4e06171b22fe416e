// Parsing a shell string for the policy: tree-sitter-bash builds the command tree (shell-tree-sitter.ts),
// and sh-syntax (mvdan/sh compiled to WebAssembly, an independent, strict shell parser) must agree that
// the script is valid and on where each top-level statement starts and whether it runs in the background.
// tree-sitter recovers from errors and has known gaps, so the second parser is cheap insurance: any
// disagreement is a parse error, and a quirk of either parser can only make Gatehouse ask.
// Results are memoised in a small LRU: the same command text always parses the same way.
// node:fs's `promises`, loaded on first use: a command given as argv never parses a script (issue 12)
import { promises as fs } from "node:fs";
import { createRequire } from "node:module";
import type * as ShSyntaxPackage from "sh-syntax";
import type { IParseError, File as ShFile } from "sh-syntax";
import { ShellSyntaxError, type Script } from "../shell-ast.js";
import { parseBash } from "../shell-tree-sitter.js";

export type ParsedScript = { ok: true; script: Script } | { ok: false; error: string };

type ShProcessor = (text: string) => ShFile;

/** The WebAssembly calls used here (the project's TypeScript libs do not declare WebAssembly). */
interface Wasm {
  compile(bytes: Uint8Array): Promise<unknown>;
  instantiate(module: unknown, imports: unknown): Promise<{ exports: Record<string, unknown> }>;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** TinyGo's runtime glue, installed as a global by sh-syntax's entry module. */
interface GoRuntime {
  importObject: unknown;
  run(instance: unknown): Promise<unknown>;
}

/** What is used of sh-syntax's entry module, imported on the first parse (see shSyntax()). */
type ShSyntaxModule = Pick<typeof ShSyntaxPackage, "LangVariant" | "ParseError">;

/** sh-syntax's `process` export and what it needs: its memory and TinyGo's C-style allocator. */
interface ShExports {
  memory: { buffer: ArrayBuffer };
  malloc(size: number): number;
  free(pointer: number): void;
  process(...args: (number | boolean)[]): number;
}

/**
 * A fresh instance serves this many parses, or until its memory passes MAX_INSTANCE_MEMORY, then the
 * next parse starts another: WebAssembly memory never shrinks, and one long command must not pin it.
 */
const PARSES_PER_INSTANCE = 20_000;
const MAX_INSTANCE_MEMORY = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One live sh-syntax instance, reused across parses (instantiating its WebAssembly and starting the Go
 * runtime cost ≈ 4 ms, the parse itself tens of µs). Calls are synchronous, so parses never overlap.
 * It makes the `process` call sh-syntax's own processor makes for a parse (bash, no comments, no
 * recovery), with one difference that matters only for a kept instance: the inputs are copied into
 * blocks from TinyGo's `malloc` (freed after the call), because the package's `wasmAlloc` returns
 * the address of a slice header, and writing the text there overruns the heap — harmless in an
 * instance used once, fatal after a few thousand parses. Anything but a clean result or a parse
 * error — a trap inside the module — drops the instance: the next parse gets a fresh one.
 */
class ShSyntaxInstance {
  private exports: ShExports | null = null;
  private parses = 0;

  constructor(
    private readonly module: unknown,
    private readonly sh: ShSyntaxModule,
  ) {}

  async ready(): Promise<ShProcessor> {
    if (this.exports === null || this.worn()) {
      this.exports = null;
      const Go = (globalThis as unknown as { Go: new () => GoRuntime }).Go;
      const go = new Go();
      const instance = await wasm.instantiate(this.module, go.importObject);
      void go.run(instance);
      this.exports = instance.exports as unknown as ShExports;
      this.parses = 0;
    }
    const exports = this.exports;
    return (text) => this.parse(exports, text);
  }

  private worn(): boolean {
    return (
      this.parses >= PARSES_PER_INSTANCE ||
      (this.exports?.memory.buffer.byteLength ?? 0) > MAX_INSTANCE_MEMORY
    );
  }

  private parse(exports: ShExports, text: string): ShFile {
    this.parses++;
    let resultText: string;
    try {
      resultText = callProcess(exports, text, this.sh.LangVariant.LangBash);
    } catch (error) {
      if (this.exports === exports) this.exports = null; // a trap may leave its heap in any state
      throw error;
    }
    if (!resultText.startsWith('{"') || !resultText.endsWith("}")) {
      throw new this.sh.ParseError({ Incomplete: true, Text: resultText });
    }
    const { file, parseError, message } = JSON.parse(resultText) as {
      file: ShFile;
      parseError?: IParseError | null;
      message?: string;
    };
    if (parseError || message) {
      throw parseError == null ? new SyntaxError(message) : new this.sh.ParseError(parseError);
    }
    return file;
  }
}

/** One `process` call as sh-syntax's processor makes it for a parse; returns the JSON it answers. */
function callProcess(exports: ShExports, text: string, bash: number): string {
  const { memory, malloc, free, process } = exports;
  const source = encoder.encode(text);
  const blocks: number[] = [];
  const put = (bytes: Uint8Array): number => {
    const pointer = malloc(Math.max(1, bytes.byteLength));
    if (pointer === 0) throw new Error("sh-syntax is out of memory");
    blocks.push(pointer);
    new Uint8Array(memory.buffer).set(bytes, pointer);
    return pointer;
  };
  let resultPointer: number;
  try {
    const filePath = put(new Uint8Array(0));
    const textPointer = put(source);
    const stopAt = put(new Uint8Array(0));
    // prettier-ignore
    resultPointer = process(
      filePath, 0, 0,
      textPointer, source.byteLength, source.byteLength,
      false, // print
      false, // keepComments
      bash,
      stopAt, 0, 0,
      0, // recoverErrors
      false, // simplify
      2, // indent (printer only)
      true, true, true, false, false, false, false, // printer options (unused for a parse)
    );
  } finally {
    for (const pointer of blocks) free(pointer);
  }
  const result = new Uint8Array(memory.buffer).subarray(resultPointer);
  const end = result.indexOf(0);
  return decoder.decode(result.subarray(0, end));
}

/**
 * Compiles sh-syntax's WebAssembly once per process and keeps one instance alive between parses. The
 * package is imported here, on the first parse: a command given as argv needs no parser (issue 12).
 */
let liveInstance: Promise<ShSyntaxInstance> | null = null;
async function shSyntax(): Promise<ShProcessor> {
  liveInstance ??= (async () => {
    const sh = await import("sh-syntax");
    const wasmPath = createRequire(import.meta.url).resolve("sh-syntax/main.wasm");
    return new ShSyntaxInstance(await wasm.compile(await fs.readFile(wasmPath)), sh);
  })();
  liveInstance.catch(() => (liveInstance = null));
  return (await liveInstance).ready();
}

function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), "utf8");
}

/** Parses with both parsers; see the file comment. Never throws for bad input. */
export async function parseScriptChecked(text: string): Promise<ParsedScript> {
  // both WebAssembly modules load on the first call: start the second while the first one reads
  const processor = shSyntax();
  processor.catch(() => undefined);
  let script: Script;
  try {
    script = await parseBash(text);
  } catch (error) {
    if (error instanceof ShellSyntaxError)
      return { ok: false, error: describe(text, error.message, error.offset) };
    throw error;
  }
  let file: ShFile;
  try {
    file = (await processor)(text);
  } catch (error) {
    const message = (error as { Text?: string; message?: string }).Text ?? (error as Error).message;
    return { ok: false, error: `the shell parser rejected it: ${message}` };
  }
  // sh-syntax's JSON names the statement list `Stmt` in some releases and `Stmts` in others.
  const statements = ((file as unknown as { Stmts?: unknown[]; Stmt?: unknown[] }).Stmts ??
    (file as unknown as { Stmt?: unknown[] }).Stmt ??
    []) as { Pos: { Offset: number }; Background: boolean }[];
  const agrees =
    statements.length === script.length &&
    statements.every((stmt, i) => {
      const mine = script[i];
      return (
        mine !== undefined &&
        stmt.Pos.Offset === byteOffset(text, mine.start) &&
        stmt.Background === mine.background
      );
    });
  if (!agrees) return { ok: false, error: "the command could not be split into statements reliably" };
  return { ok: true, script };
}

function describe(text: string, message: string, offset: number): string {
  const line = text.slice(0, offset).split("\n").length;
  return text.includes("\n") ? `${message} (line ${line})` : message;
}

/**
 * An LRU of parse results (and of what the analyser derives from them) by text. Pure memoisation: it only
 * ever returns what computing again would return, so sharing one across calls is safe.
 */
export class ScriptCache {
  private readonly entries = new Map<string, Promise<unknown>>();
  /** The key used last: already the most recent entry, nothing to reorder. */
  private newest: string | null = null;

  constructor(private readonly capacity = 512) {}

  parse(text: string): Promise<ParsedScript> {
    return this.memo(`parse\0${text}`, () => parseScriptChecked(text));
  }

  /** Memoises `compute()` under `key` (keys longer than 64 KiB are computed every time). */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      if (key !== this.newest) {
        this.entries.delete(key);
        this.entries.set(key, hit);
        this.newest = key;
      }
      return hit as Promise<T>;
    }
    const result = compute();
    if (key.length <= 64 * 1024) {
      this.entries.set(key, result);
      this.newest = key;
      if (this.entries.size > this.capacity) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return result;
  }
}
