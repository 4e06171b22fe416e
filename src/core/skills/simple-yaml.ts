// A fast path for the frontmatter most skills have: top-level `key: value` lines whose values are
// plain scalars, quoted strings, JSON or simple flow lists, or `|` / `|-` blocks. It returns exactly
// what the `yaml` package (YAML 1.2 core schema) returns for those documents, and `null` for anything
// else, so the caller falls back to the real parser (which also reports every error). Parsing 2 000
// skills with the full parser alone costs more than the whole catalogue.scan budget.
//
// Equivalence with `yaml` is pinned by a property test (test/unit/skills/simple-yaml.test.ts).

const KEY = /^([A-Za-z][A-Za-z0-9_-]*):(?: |$)/;
const NULL = /^(?:~|null|Null|NULL)$/;
const BOOL_TRUE = /^(?:true|True|TRUE)$/;
const BOOL_FALSE = /^(?:false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
/** Characters that may not start a plain scalar (or that we leave to the full parser). */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Plain text safe inside a simple flow list item: no quotes, brackets, commas, colons or comments. */
const FLOW_ITEM = /^[A-Za-z0-9_](?:[A-Za-z0-9_ ./+-]*[A-Za-z0-9_./+-])?$/;
/** Anything outside YAML's printable set (and a stray BOM) goes to the full parser. */
const NOT_PRINTABLE = /[^\t\n\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]/u;
const SINGLE_QUOTED = /^'((?:[^']|'')*)'$/;

const NO_VALUE = Symbol("no value");
type Value = unknown | typeof NO_VALUE;

/** Core-schema resolution of a plain scalar (null, bool, int, float, or string). */
export function resolvePlain(text: string): unknown {
  if (text === "" || NULL.test(text)) return null;
  if (BOOL_TRUE.test(text)) return true;
  if (BOOL_FALSE.test(text)) return false;
  if (INT.test(text)) return Number.parseInt(text, 10);
  if (OCT.test(text)) return Number.parseInt(text.slice(2), 8);
  if (HEX.test(text)) return Number.parseInt(text.slice(2), 16);
  if (FLOAT.test(text)) return Number.parseFloat(text);
  if (INF.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  if (NAN.test(text)) return Number.NaN;
  return text;
}

/** Number of object keys written in JSON text (a JSON.parse result has fewer when keys repeat). */
function countJsonKeys(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    let k = j + 1;
    while (text[k] === " " || text[k] === "\t") k++;
    if (text[k] === ":") count++;
    i = j;
  }
  return count;
}

function countParsedKeys(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countParsedKeys(v), 0);
  if (value !== null && typeof value === "object") {
    return Object.values(value).reduce((n: number, v) => n + 1 + countParsedKeys(v), 0);
  }
  return 0;
}

/** `[a, b]` with plain items only (no quotes, brackets or braces inside); NO_VALUE otherwise. */
function simpleFlowList(text: string): Value {
  if (!text.startsWith("[") || !text.endsWith("]")) return NO_VALUE;
  const inner = text.slice(1, -1).trim();
  if (inner === "") return [];
  const items = inner.split(",").map((item) => item.trim());
  // A trailing comma is allowed in YAML flow sequences; an empty item elsewhere is not.
  if (items[items.length - 1] === "") items.pop();
  const out: unknown[] = [];
  for (const item of items) {
    if (!FLOW_ITEM.test(item) || item.includes(" #")) return NO_VALUE;
    out.push(resolvePlain(item));
  }
  return out;
}

function flowValue(text: string): Value {
  // The plain list first: a failing JSON.parse (an exception) costs more than the whole list.
  const list = simpleFlowList(text);
  if (list !== NO_VALUE) return list;
  try {
    const parsed: unknown = JSON.parse(text);
    // YAML rejects repeated keys, JSON.parse keeps the last one: leave those to the full parser. A
    // "__proto__" key is left to it as well (JSON.parse and yaml's toJS treat it differently).
    if (countJsonKeys(text) !== countParsedKeys(parsed) || text.includes("__proto__")) return NO_VALUE;
    return parsed;
  } catch {
    return NO_VALUE;
  }
}

function scalarValue(text: string): Value {
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2) return NO_VALUE;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === "string" ? value : NO_VALUE;
    } catch {
      return NO_VALUE;
    }
  }
  if (text.startsWith("'")) {
    const match = SINGLE_QUOTED.exec(text);
    return match ? (match[1] ?? "").replace(/''/g, "'") : NO_VALUE;
  }
  if (text.startsWith("[") || text.startsWith("{")) return flowValue(text);
  if (
    INDICATOR.test(text) ||
    text.includes(": ") ||
    text.includes(" #") ||
    text.endsWith(":") ||
    text.includes("\t")
  ) {
    return NO_VALUE;
  }
  return resolvePlain(text);
}

/**
 * Parses the frontmatter text (between the `---` lines) when it is in the simple subset; `null` means
 * "use the full parser".
 */
export function parseSimpleFrontmatter(
  text: string,
): { values: Record<string, unknown>; plainText: Record<string, string> } | null {
  if (NOT_PRINTABLE.test(text)) return null;
  const lines = text.split("\n");
  const out: Record<string, unknown> = {};
  const plainText: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    if (line.startsWith("#")) continue;
    const key = KEY.exec(line);
    if (!key) return null;
    const name = key[1] ?? "";
    if (
      Object.prototype.hasOwnProperty.call(out, name) ||
      NULL.test(name) ||
      BOOL_TRUE.test(name) ||
      BOOL_FALSE.test(name)
    ) {
      return null;
    }
    const rest = line.slice(key[0].length).replace(/^[ ]+|[ ]+$/g, "");
    if (rest.startsWith("\t") || rest.endsWith("\t")) return null;
    if (rest === "|" || rest === "|-") {
      const block: string[] = [];
      let indent = -1;
      let j = i + 1;
      for (; j < lines.length; j++) {
        const next = lines[j] ?? "";
        if (next.trim() === "") {
          if (next.includes("\t")) return null;
          block.push("");
          continue;
        }
        const spaces = next.length - next.trimStart().length;
        if (next[spaces] === "\t" || next.slice(0, spaces).includes("\t")) return null;
        if (indent < 0) {
          if (spaces === 0) break;
          indent = spaces;
        }
        if (spaces < indent) {
          if (spaces > 0) return null; // less indented but still indented: leave it to the full parser
          break;
        }
        block.push(next.slice(indent));
      }
      // Blank lines before the first content line, or longer than the indentation, are left to yaml.
      if (indent < 0 || block.some((l, n) => l === "" && (lines[i + 1 + n] ?? "").length > indent))
        return null;
      while (block.length > 0 && block[block.length - 1] === "") block.pop();
      if (block.length > 0 && (lines[i + 1] ?? "").trim() === "") return null;
      const content = block.join("\n");
      out[name] = rest === "|" ? (content === "" ? "" : `${content}\n`) : content;
      i = j - 1;
      continue;
    }
    if (rest === "") {
      // A block collection may follow on indented lines: leave those to the full parser.
      const next = lines[i + 1];
      if (next !== undefined && (next.startsWith(" ") || next.startsWith("\t") || next.startsWith("-")))
        return null;
      out[name] = null;
      continue;
    }
    const value = scalarValue(rest);
    if (value === NO_VALUE) return null;
    out[name] = value;
    if (!/^['"[{]/.test(rest)) plainText[name] = rest;
  }
  // An empty document is null in YAML, not a mapping: the full parser says so.
  if (Object.keys(out).length === 0) return null;
  return { values: out, plainText };
}
