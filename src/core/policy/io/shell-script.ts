// Parsing a shell string for the policy: tree-sitter-bash builds the command tree (shell-tree-sitter.ts),
// and sh-syntax (mvdan/sh compiled to WebAssembly, an independent, strict shell parser) must agree that
// the script is valid and on where each top-level statement starts and whether it runs in the background.
// tree-sitter recovers from errors and has known gaps, so the second parser is cheap insurance: any
// disagreement is a parse error, and a quirk of either parser can only make Gatehouse ask.
// Results are memoised in a small LRU: the same command text always parses the same way.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { getProcessor, type File as ShFile } from "sh-syntax";
import { ShellSyntaxError, type Script } from "../shell-ast.js";
import { parseBash } from "../shell-tree-sitter.js";

export type ParsedScript = { ok: true; script: Script } | { ok: false; error: string };

type ShProcessor = (text: string, options?: { keepComments?: boolean }) => Promise<ShFile>;

/** The two WebAssembly calls used here (the project's TypeScript libs do not declare WebAssembly). */
interface Wasm {
  compile(bytes: Uint8Array): Promise<unknown>;
  instantiate(module: unknown, imports: unknown): Promise<unknown>;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** Compiles sh-syntax's WebAssembly once per process; each parse then only instantiates it. */
let compiledProcessor: Promise<ShProcessor> | null = null;
function shSyntax(): Promise<ShProcessor> {
  compiledProcessor ??= (async () => {
    const wasmPath = createRequire(import.meta.url).resolve("sh-syntax/main.wasm");
    const module = await wasm.compile(await fs.readFile(wasmPath));
    const instantiate = (imports: unknown) => wasm.instantiate(module, imports);
    return getProcessor(
      instantiate as unknown as Parameters<typeof getProcessor>[0],
    ) as unknown as ShProcessor;
  })();
  return compiledProcessor;
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
    file = await (await processor)(text, { keepComments: false });
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

  constructor(private readonly capacity = 512) {}

  parse(text: string): Promise<ParsedScript> {
    return this.memo(`parse\0${text}`, () => parseScriptChecked(text));
  }

  /** Memoises `compute()` under `key` (keys longer than 64 KiB are computed every time). */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit as Promise<T>;
    }
    const result = compute();
    if (key.length <= 64 * 1024) {
      this.entries.set(key, result);
      if (this.entries.size > this.capacity) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return result;
  }
}
