// The app's one redactor. Secrets are registered once (the logger's `addSecret` registers here) and
// every value that leaves the process or lands on disk passes through it: log lines, acks and events
// to the backend, approval-socket replies, E/status.json, last-sync.json, IPC to the UI, CLI output.

const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{4,}/gi;
export const REDACTED = "[redacted]";

/** Shortest value taken as a secret: shorter ones would blank ordinary words. */
export const MIN_SECRET_LENGTH = 4;

/** Values nested deeper than this are replaced as a whole (a walk never recurses without bound). */
const MAX_DEPTH = 256;

export interface Redactor {
  /** Registers a secret: from now on it never appears in anything this redactor passes. */
  add(secret: string | null | undefined): void;
  /**
   * Withdraws one registration of `secret` (a task's key once its turn has ended and nothing more of
   * the turn can leave the process). A secret registered more than once stays until each is withdrawn.
   */
  forget(secret: string | null | undefined): void;
  /** How many distinct secrets are registered. */
  readonly size: number;
  /** `text` with every registered secret (and any `Bearer <token>`) replaced by `[redacted]`. */
  text(text: string): string;
  /** True when `text` holds a registered secret in any of its forms (what `text` would hide, bearer tokens aside). */
  contains(text: string): boolean;
  /**
   * A copy of `value` with every string (keys included) redacted; numbers, booleans and null are kept,
   * anything else that JSON would not carry (functions, undefined) is left out as JSON would.
   */
  value<T>(value: T): T;
}

/**
 * The forms a secret takes in what we send: as is, JSON-escaped (a secret with a quote, a backslash or
 * a control character inside a JSON text), and URL-encoded (inside a URL or a form).
 */
function formsOf(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  // Longest first, so a form never leaves a tail of a longer one behind.
  return [...forms].sort((a, b) => b.length - a.length);
}

export function createRedactor(): Redactor {
  let forms: string[] = [];
  /** Each registered secret and how many registrations hold it. */
  const known = new Map<string, number>();
  const rebuildForms = () => {
    const all = new Set<string>();
    for (const secret of known.keys()) for (const form of formsOf(secret)) all.add(form);
    forms = [...all].sort((a, b) => b.length - a.length);
  };

  const text = (input: string): string => {
    let out = input;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out.replace(BEARER, `$1 ${REDACTED}`);
  };

  const value = <T>(input: T): T => redactValue(input, text) as T;

  return {
    add(secret) {
      if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) return;
      const held = known.get(secret) ?? 0;
      known.set(secret, held + 1);
      if (held > 0) return;
      for (const form of formsOf(secret)) if (!forms.includes(form)) forms.push(form);
      forms.sort((a, b) => b.length - a.length);
    },
    forget(secret) {
      if (typeof secret !== "string") return;
      const held = known.get(secret);
      if (held === undefined) return;
      if (held > 1) {
        known.set(secret, held - 1);
        return;
      }
      known.delete(secret);
      rebuildForms(); // another secret may share a form (its JSON or URL spelling): keep what it needs
    },
    get size() {
      return known.size;
    },
    text,
    contains: (input) => forms.some((form) => input.includes(form)),
    value,
  };
}

/** Redacts a JSON-like value without recursion (an explicit stack), so depth cannot exhaust the stack. */
function redactValue(input: unknown, text: (s: string) => string): unknown {
  const leaf = (raw: unknown): { done: true; value: unknown } | { done: false; value: object } => {
    if (raw instanceof Error) return { done: true, value: text(raw.message) };
    // What JSON would send for it (Date, URL and the like turn into strings here).
    const v = hasToJson(raw) ? raw.toJSON() : raw;
    if (typeof v === "string") return { done: true, value: text(v) };
    if (v === null || typeof v === "number" || typeof v === "boolean") return { done: true, value: v };
    if (typeof v === "bigint") return { done: true, value: v };
    if (typeof v !== "object") return { done: true, value: undefined };
    if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return { done: true, value: v };
    return { done: false, value: v };
  };
  const first = leaf(input);
  if (first.done) return first.value;

  const root: unknown = Array.isArray(first.value) ? [] : {};
  const stack: { from: object; to: Record<string, unknown> | unknown[]; depth: number; path: Ancestors }[] = [
    {
      from: first.value,
      to: root as Record<string, unknown>,
      depth: 1,
      path: { node: first.value, up: null },
    },
  ];
  while (stack.length > 0) {
    const { from, to, depth, path } = stack.pop()!;
    const entries: [string, unknown][] = Array.isArray(from)
      ? Array.from(from, (v: unknown, i): [string, unknown] => [String(i), v])
      : Object.entries(from);
    for (const [key, child] of entries) {
      const resolved = leaf(child);
      let copy: unknown;
      if (resolved.done) copy = resolved.value;
      else if (depth >= MAX_DEPTH) copy = REDACTED;
      else if (within(path, resolved.value))
        copy = "[circular]"; // JSON would refuse it; never loop
      else {
        copy = Array.isArray(resolved.value) ? [] : {};
        const up = { node: resolved.value, up: path };
        stack.push({ from: resolved.value, to: copy as Record<string, unknown>, depth: depth + 1, path: up });
      }
      if (Array.isArray(to)) to[Number(key)] = copy === undefined ? null : copy;
      else if (copy !== undefined) {
        // defineProperty: a key such as `__proto__` stays a plain key of the copy.
        Object.defineProperty(to, text(key), {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return root;
}

/** The objects from the root down to the one being copied (at most MAX_DEPTH of them). */
interface Ancestors {
  node: object;
  up: Ancestors | null;
}

function within(path: Ancestors | null, node: object): boolean {
  for (let p = path; p; p = p.up) if (p.node === node) return true;
  return false;
}

function hasToJson(v: unknown): v is { toJSON(): unknown } {
  return typeof v === "object" && v !== null && typeof (v as { toJSON?: unknown }).toJSON === "function";
}
