// Whole-table edits of a user's TOML file (Codex's config.toml) that keep everything else as the user
// wrote it, comments and order included: smol-toml reads, but writing it back would drop comments. A
// table (with its sub-tables) is cut out line by line and new tables are appended at the end; the result
// is parsed again and must mean exactly what was intended, else nothing is written.
import { isDeepStrictEqual } from "node:util";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { isRecord } from "../../../shared/is-record.js";

type Table = Record<string, unknown>;

/** The key path of a line that is a lone `[a."b".c]` header, else null (arrays of tables included). */
function headerPath(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("[")) return null;
  let parsed: unknown;
  try {
    parsed = parseToml(`${trimmed}\n`);
  } catch {
    return null;
  }
  const out: string[] = [];
  let node = parsed;
  for (;;) {
    if (Array.isArray(node)) node = node[0];
    if (!isRecord(node)) return null;
    const keys = Object.keys(node);
    if (keys.length === 0) return out.length > 0 ? out : null;
    if (keys.length > 1) return null;
    out.push(keys[0]!);
    node = node[keys[0]!];
  }
}

function startsWith(pathKeys: string[], prefix: string[]): boolean {
  return prefix.length <= pathKeys.length && prefix.every((k, i) => pathKeys[i] === k);
}

export interface TableEdit {
  /** Tables to remove, each with its sub-tables (e.g. `["plugins", "x@m"]`). */
  remove: string[][];
  /** Tables to (re)write, appended at the end: path → its plain key/value pairs. */
  set: Array<{ path: string[]; values: Table }>;
}

function setIn(root: Table, keys: string[], value: unknown): void {
  let node = root;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Table;
  }
  node[keys.at(-1)!] = value;
}

function deleteIn(root: Table, keys: string[]): void {
  let node: unknown = root;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node)) return;
    node = node[key];
  }
  if (isRecord(node)) delete node[keys.at(-1)!];
}

/** The document without empty tables: `[plugins]` with nothing left in it means nothing to Codex. */
function withoutEmptyTables(value: Table): Table {
  const out: Table = {};
  for (const [key, item] of Object.entries(value)) {
    if (isRecord(item) && !(item instanceof Date)) {
      const inner = withoutEmptyTables(item);
      if (Object.keys(inner).length > 0) out[key] = inner;
    } else out[key] = item;
  }
  return out;
}

function sameMeaning(a: Table, b: Table): boolean {
  return isDeepStrictEqual(withoutEmptyTables(a), withoutEmptyTables(b));
}

/** What the document must mean after the edit. */
export function intendedTables(parsed: Table, edit: TableEdit): Table {
  const next = structuredClone(parsed);
  for (const p of edit.remove) deleteIn(next, p);
  for (const { path: p, values } of edit.set) setIn(next, p, structuredClone(values));
  return next;
}

export type TableEditResult = { ok: true; text: string; changed: boolean } | { ok: false; error: string };

/**
 * Applies `edit` to `text`. Unchanged when the document already means the intended content. Fails
 * (with the reason) when the text cannot be edited table-wise, e.g. the tables are written inline.
 */
export function editTomlTables(text: string, edit: TableEdit): TableEditResult {
  let parsed: Table;
  try {
    // Plain objects (smol-toml's have no prototype), so deep comparison sees content only.
    parsed = structuredClone(parseToml(text)) as Table;
  } catch (error) {
    return { ok: false, error: `not valid TOML (${(error as Error).message.split("\n")[0] ?? ""})` };
  }
  const intended = intendedTables(parsed, edit);
  if (sameMeaning(parsed, intended)) return { ok: true, text, changed: false };
  const cut = [...edit.remove, ...edit.set.map((s) => s.path)];
  const lines = text.split("\n");
  const kept: string[] = [];
  let dropping = false;
  let pending: string[] = []; // blank and comment lines: they go with what follows them
  for (const line of lines) {
    const header = headerPath(line);
    if (header !== null) {
      // Comments right above a header belong to it; a blank line already kept is not doubled.
      if (dropping && kept.at(-1)?.trim() === "") while (pending[0]?.trim() === "") pending.shift();
      kept.push(...pending);
      pending = [];
      dropping = cut.some((p) => startsWith(header, p));
      if (!dropping) kept.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      pending.push(line);
      continue;
    }
    if (!dropping) kept.push(...pending, line);
    pending = [];
  }
  kept.push(...pending);
  let out = kept.join("\n").replace(/\n*$/, "");
  for (const { path: p, values } of edit.set) {
    const doc: Table = {};
    setIn(doc, p, values);
    out += `${out === "" ? "" : "\n\n"}${stringifyToml(doc).trim()}`;
  }
  out = out === "" ? "" : `${out}\n`;
  let check: unknown;
  try {
    check = structuredClone(parseToml(out));
  } catch (error) {
    return {
      ok: false,
      error: `cannot be edited table by table (${(error as Error).message.split("\n")[0]})`,
    };
  }
  if (!sameMeaning(check as Table, intended))
    return {
      ok: false,
      error: "cannot be edited table by table (the tables are not written as [table] headers)",
    };
  return { ok: true, text: out, changed: true };
}
