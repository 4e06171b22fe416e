// What every CLI command receives: paths from the environment, streams, and a logger on stderr.
// stdout and stderr pass through the logger's redactor: nothing a command prints (a status file, a
// sync error, a command's output) can show a secret this process knows.
import { createLogger, type Logger } from "../core/log.js";
import { resolvePaths, type AppPaths, type Env } from "../core/paths.js";
import type { Redactor } from "../core/redact.js";
import { readStandardInput } from "./stdin.js";

export interface CliContext {
  env: Env;
  paths: AppPaths;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** All of standard input as text (blocking reads: no stream, no thread pool; src/cli/stdin.ts). */
  readStdin(): Promise<string>;
  logger: Logger;
}

export function createCliContext(env: Env = process.env): CliContext {
  const logger = createLogger({ level: env.GATEHOUSE_LOG_LEVEL === "debug" ? "debug" : "info" });
  return {
    env,
    paths: resolvePaths(env),
    stdout: redactingStream(process.stdout, logger.redactor),
    stderr: redactingStream(process.stderr, logger.redactor),
    // process.stdin is a getter that builds a stream: only a command that reads it pays for that
    get stdin() {
      return process.stdin;
    },
    readStdin: () => readStandardInput(() => process.stdin),
    logger,
  };
}

/**
 * `stream` whose `write` redacts text first; everything else is the stream itself. Raw bytes (a
 * command's own output passed through by `gatehouse exec`) go as they are: they may be binary.
 */
export function redactingStream<S extends NodeJS.WritableStream>(stream: S, redactor: Redactor): S {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === "string" ? redactor.text(chunk) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, key) {
      if (key === "write") return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function printJson(ctx: CliContext, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(ctx: CliContext, text: string): void {
  ctx.stdout.write(`${text}\n`);
}

/** Exit status of a command that found the approvals file invalid (the file is left as it is). */
export const EXIT_APPROVALS_INVALID = 3;

/** Says why the approvals file is invalid on stderr; returns EXIT_APPROVALS_INVALID. */
export function approvalsFileInvalid(ctx: CliContext, command: string, error: string): number {
  ctx.stderr.write(`gatehouse ${command}: ${error}\n`);
  return EXIT_APPROVALS_INVALID;
}

/**
 * Exit status of a command that refused to read a home another user could write (src/core/io/trust.ts):
 * the same as an invalid approvals file — nothing runs until it is fixed.
 */
export const EXIT_UNTRUSTED_HOME = EXIT_APPROVALS_INVALID;

/** A usage or input error: message on stderr, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type CommandHandler = (args: string[], ctx: CliContext) => Promise<number>;

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  run: CommandHandler;
  /**
   * How the command says no when it must not run at all (the home cannot be trusted). Default: the
   * message on stderr and EXIT_UNTRUSTED_HOME. A hook answers with a deny instead: an error exit
   * would let the agent CLI go ahead.
   */
  refuse?: (ctx: CliContext, message: string, args: string[]) => number;
}
