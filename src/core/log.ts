// One logger for the app. Secrets are redacted here, at the logger, so no caller has to remember:
// registered secret values are replaced wherever they appear, and bearer tokens are masked.
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `scope`. */
  child(scope: string): Logger;
  /** Registers a secret value: it never appears in any line written after this. */
  addSecret(value: string | undefined | null): void;
  /** True when `text` holds a registered secret (what `redact` would hide): keeps secrets out of child environments. */
  containsSecret(text: string): boolean;
}

export type LogSink = (line: string) => void;

const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/** Shorter registered values are not treated as secrets (they would match ordinary text). */
const MIN_SECRET_LENGTH = 4;

export function redact(text: string, secrets: ReadonlySet<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join("[redacted]");
  }
  return out.replace(BEARER, "$1 [redacted]");
}

interface LoggerState {
  level: LogLevel;
  sink: LogSink;
  secrets: Set<string>;
  now: () => Date;
}

function makeLogger(state: LoggerState, scope: string | undefined): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[state.level]) return;
    const prefix = `${state.now().toISOString()} ${level.toUpperCase()}${scope ? ` [${scope}]` : ""}`;
    const extra = fields && Object.keys(fields).length ? ` ${safeJson(fields)}` : "";
    state.sink(redact(`${prefix} ${message}${extra}`, state.secrets));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (child) => makeLogger(state, scope ? `${scope}/${child}` : child),
    addSecret: (value) => {
      if (value) state.secrets.add(value);
    },
    containsSecret: (text) => containsSecret(text, state.secrets),
  };
}

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

export function createLogger(options: { level?: LogLevel; sink?: LogSink; now?: () => Date } = {}): Logger {
  return makeLogger(
    {
      level: options.level ?? "info",
      sink: options.sink ?? ((line) => process.stderr.write(`${line}\n`)),
      secrets: new Set(),
      now: options.now ?? (() => new Date()),
    },
    undefined,
  );
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = createLogger({ sink: () => undefined, level: "error" });
