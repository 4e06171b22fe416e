// Reading the two files of a skill folder into plain values (skills.md §3.1, §3.2). No validation of
// fields here: that is fields.ts. Errors are the exact texts of §4.
import { LineCounter, parseDocument, isScalar, type Document } from "yaml";
import { parse as parseToml, TomlError } from "smol-toml";
import { parseSimpleFrontmatter } from "./simple-yaml.js";
import { isRecord } from "../../shared/is-record.js";

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export interface SkillMarkdown {
  /** The frontmatter mapping (plain values; numbers in `NUMBER_SOURCE_FIELDS` keep their written text). */
  frontmatter: Record<string, unknown>;
  body: string;
}

/** Fields whose numbers are shown as written (`version: 1.10` stays "1.10", not "1.1"). */
const NUMBER_SOURCE_FIELDS = ["version", "author", "category", "license", "homepage"];

/** Removes a leading BOM and turns CRLF and lone CR into LF. */
export function normaliseText(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.replace(/\r\n?/g, "\n");
}

function firstLineWithoutPosition(message: string): string {
  const first = message.split("\n")[0] ?? "";
  return first.replace(/ at line \d+, column \d+:?$/, "").trim();
}

/** Splits and parses `SKILL.md` text. */
export function parseSkillMarkdown(raw: string): Parsed<SkillMarkdown> {
  const text = normaliseText(raw);
  if (!text.startsWith("---\n") && text !== "---") return { ok: false, error: "no frontmatter" };
  // The closing line: the next line that is `---`, trailing spaces or tabs allowed.
  const closing = /^---[ \t]*$/m;
  const rest = text.slice(4);
  const match = closing.exec(rest);
  if (!match) return { ok: false, error: "unterminated frontmatter" };
  const yamlText = rest.slice(0, Math.max(0, match.index - 1));
  const afterClose = match.index + match[0].length;
  const body = rest.slice(afterClose + 1);
  const simple = parseSimpleFrontmatter(yamlText);
  if (simple) {
    for (const key of NUMBER_SOURCE_FIELDS) {
      const source = simple.plainText[key];
      if (typeof simple.values[key] === "number" && source !== undefined) simple.values[key] = source;
    }
    return { ok: true, value: { frontmatter: simple.values, body } };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, {
    schema: "core",
    uniqueKeys: true,
    prettyErrors: false,
    lineCounter,
  });
  const problem = doc.errors[0];
  if (problem) {
    const offset = problem.pos[0];
    // +1 for the opening `---`: line numbers count file lines.
    const line = lineCounter.linePos(offset).line + 1;
    return { ok: false, error: `invalid YAML at line ${line}: ${firstLineWithoutPosition(problem.message)}` };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      ok: false,
      error: `invalid YAML at line 2: ${firstLineWithoutPosition((error as Error).message)}`,
    };
  }
  if (!isRecord(value)) return { ok: false, error: "frontmatter is not a mapping" };
  keepNumberSource(doc, value);
  return { ok: true, value: { frontmatter: value, body } };
}

function keepNumberSource(doc: Document, value: Record<string, unknown>): void {
  for (const key of NUMBER_SOURCE_FIELDS) {
    if (typeof value[key] !== "number") continue;
    const node = doc.get(key, true);
    if (isScalar(node) && typeof node.source === "string" && node.source !== "") value[key] = node.source;
  }
}

export interface SkillManifest {
  /** The `[skill]` table, or null when there is none. */
  skill: Record<string, unknown> | null;
  warnings: string[];
}

/** Parses `manifest.toml` text. Only `[skill]` is read; `[[tools]]` is obsolete. */
export function parseSkillManifest(raw: string): Parsed<SkillManifest> {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(normaliseText(raw)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const message = firstLineWithoutPosition(error.message).replace(/^Invalid TOML document:\s*/, "");
      return { ok: false, error: `invalid TOML at line ${error.line}: ${message}` };
    }
    return { ok: false, error: `invalid TOML at line 1: ${(error as Error).message}` };
  }
  const warnings: string[] = [];
  if ("tools" in doc) warnings.push("deprecated [[tools]] ignored");
  const skill = doc.skill;
  if (!isRecord(skill)) {
    // An obsolete tools-only manifest already has its warning; one is enough.
    if (warnings.length === 0) warnings.push("manifest.toml has no [skill] table; ignored");
    return { ok: true, value: { skill: null, warnings } };
  }
  return { ok: true, value: { skill: tomlToPlain(skill) as Record<string, unknown>, warnings } };
}

/** TOML dates and times become their text; everything else is already plain. */
function tomlToPlain(value: unknown): unknown {
  if (value instanceof Date) return value.toString();
  if (Array.isArray(value)) return value.map(tomlToPlain);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = tomlToPlain(v);
    return out;
  }
  return value;
}
