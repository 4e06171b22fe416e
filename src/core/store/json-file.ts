// zod-validated JSON files. Reading never "repairs" a file: an invalid file is reported with its
// path and the schema error and left as it is. Updates re-read, apply and write under a lock.
// node:fs's `promises`, loaded on first use: the served hook never reads a file asynchronously (issue 12)
import { promises as fs, readFileSync } from "node:fs";
import { parse, safeParse, type z } from "zod/mini";
import { writeFileAtomic, type AtomicWriteOptions } from "./atomic-write.js";
import { withFileLock } from "./file-lock.js";

/** A zod schema, classic or zod/mini (hot paths use zod/mini, which starts several times faster). */
export type JsonSchema = z.core.$ZodType;

export type JsonReadResult<T> =
  { status: "ok"; value: T } | { status: "missing" } | { status: "invalid"; error: string };

export class InvalidFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file} is invalid: ${detail}. Fix or remove the file; it was left unchanged.`);
    this.name = "InvalidFileError";
  }
}

/** A readable one-line summary of a zod error: `path.to.field: message; …`. */
export function describeZodError(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

export function parseJsonText<S extends JsonSchema>(text: string, schema: S): JsonReadResult<z.output<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { status: "invalid", error: `not valid JSON (${(error as Error).message})` };
  }
  const parsed = safeParse(schema, raw);
  if (!parsed.success) return { status: "invalid", error: describeZodError(parsed.error) };
  return { status: "ok", value: parsed.data };
}

export async function readJsonFile<S extends JsonSchema>(
  file: string,
  schema: S,
): Promise<JsonReadResult<z.output<S>>> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    return unreadable(error);
  }
  return parseJsonText(text, schema);
}

/**
 * readJsonFile, blocking: for the small files a one-shot command reads before it can do anything else
 * (the hook's settings and socket credentials), where no other work could overlap the read and the
 * thread pool would start only for it.
 */
export function readJsonFileSync<S extends JsonSchema>(file: string, schema: S): JsonReadResult<z.output<S>> {
  const read = readFileBytesSync(file);
  return read.status === "ok" ? parseJsonText(read.bytes.toString("utf8"), schema) : read;
}

/** A file's bytes, blocking, or why there are none (missing, unreadable), as readJsonFileSync reports it. */
export function readFileBytesSync(
  file: string,
): { status: "ok"; bytes: Buffer } | { status: "missing" } | { status: "invalid"; error: string } {
  try {
    return { status: "ok", bytes: readFileSync(file) };
  } catch (error) {
    return unreadable(error);
  }
}

function unreadable(error: unknown): { status: "missing" } | { status: "invalid"; error: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return { status: "missing" };
  return { status: "invalid", error: `unreadable (${code ?? (error as Error).message})` };
}

/** Reads a file that must be valid when present; `fallback` when it is missing. */
export async function loadJsonFile<S extends JsonSchema>(
  file: string,
  schema: S,
  fallback: () => z.output<S>,
): Promise<z.output<S>> {
  const result = await readJsonFile(file, schema);
  if (result.status === "ok") return result.value;
  if (result.status === "missing") return fallback();
  throw new InvalidFileError(file, result.error);
}

export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export async function writeJsonFile<S extends JsonSchema>(
  file: string,
  schema: S,
  value: z.output<S>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const checked = parse(schema, value); // never write what we could not read back
  await writeFileAtomic(file, formatJson(checked), options);
}

/**
 * Read-modify-write under the file's lock. `update` receives the current value (or `initial()` when
 * the file is missing) and returns the new value, or `undefined` to leave the file untouched.
 * An invalid file throws `InvalidFileError` and is never overwritten.
 */
export async function updateJsonFile<S extends JsonSchema, R = void>(
  file: string,
  schema: S,
  initial: () => z.output<S>,
  update: (
    current: z.output<S>,
  ) => { value: z.output<S>; result: R } | undefined | Promise<{ value: z.output<S>; result: R } | undefined>,
  options: AtomicWriteOptions = {},
): Promise<R | undefined> {
  return withFileLock(file, async () => {
    const current = await loadJsonFile(file, schema, initial);
    const next = await update(current);
    if (next === undefined) return undefined;
    await writeJsonFile(file, schema, next.value, options);
    return next.result;
  });
}
