// What every CLI command receives: paths from the environment, streams, and a logger on stderr.
import { createLogger, type Logger } from "../core/log.js";
import { resolvePaths, type AppPaths, type Env } from "../core/paths.js";

export interface CliContext {
  env: Env;
  paths: AppPaths;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  logger: Logger;
}

export function createCliContext(env: Env = process.env): CliContext {
  return {
    env,
    paths: resolvePaths(env),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    logger: createLogger({ level: env.GATEHOUSE_LOG_LEVEL === "debug" ? "debug" : "info" }),
  };
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
}
