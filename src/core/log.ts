// One logger for the app. Secrets are redacted here, at the logger, so no caller has to remember:
// registered secret values are replaced wherever they appear, and bearer tokens are masked. The
// logger carries the process's one redactor (src/core/redact.ts): whatever else leaves the process
// (acks, status files, socket replies, IPC, CLI output) passes through `logger.redact`.
import { createRedactor, MIN_SECRET_LENGTH, type Redactor } from "./redact.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `scope`. */
  child(scope: string): Logger;
  /** Registers a secret value: it never appears in any line written, or value redacted, after this. */
  addSecret(value: string | undefined | null): void;
  /** Withdraws one `addSecret` of `value` (Redactor.forget): for a secret whose use has ended. */
  forgetSecret(value: string | undefined | null): void;
  /** True when `text` holds a registered secret (what `redact` would hide): keeps secrets out of child environments. */
  containsSecret(text: string): boolean;
  /** A copy of `value` with every registered secret (and any bearer token) replaced by `[redacted]`. */
  redact<T>(value: T): T;
  /** The redactor this logger (and every child) shares. */
  readonly redactor: Redactor;
}

export type LogSink = (line: string) => void;

interface LoggerState {
  level: LogLevel;
  sink: LogSink;
  redactor: Redactor;
  now: () => Date;
}

function makeLogger(state: LoggerState, scope: string | undefined): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[state.level]) return;
    const prefix = `${state.now().toISOString()} ${level.toUpperCase()}${scope ? ` [${scope}]` : ""}`;
    const extra = fields && Object.keys(fields).length ? ` ${safeJson(fields)}` : "";
    state.sink(state.redactor.text(`${prefix} ${message}${extra}`));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (child) => makeLogger(state, scope ? `${scope}/${child}` : child),
    addSecret: (value) => state.redactor.add(value),
    forgetSecret: (value) => state.redactor.forget(value),
    containsSecret: (text) => state.redactor.contains(text),
    redact: (value) => state.redactor.value(value),
    redactor: state.redactor,
  };
}

/** True when `text` holds one of `secrets` (values shorter than the redactor's minimum are not secrets). */
export function containsSecret(text: string, secrets: Iterable<string>): boolean {
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && text.includes(secret)) return true;
  }
  return false;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (v instanceof Error ? v.message : v));
  } catch {
    return "[unserialisable]";
  }
}

export function createLogger(
  options: { level?: LogLevel; sink?: LogSink; now?: () => Date; redactor?: Redactor } = {},
): Logger {
  return makeLogger(
    {
      level: options.level ?? "info",
      sink: options.sink ?? ((line) => process.stderr.write(`${line}\n`)),
      redactor: options.redactor ?? createRedactor(),
      now: options.now ?? (() => new Date()),
    },
    undefined,
  );
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = createLogger({ sink: () => undefined, level: "error" });
