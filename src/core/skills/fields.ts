// Field normalisation (skills.md §3.3) and validation (§4) of one skill's merged frontmatter.
import JSON5 from "json5";
import { isRecord } from "../../shared/is-record.js";

export interface SkillFields {
  name: string | null;
  description: string;
  version: string | null;
  author: string | null;
  category: string | null;
  license: string | null;
  homepage: string | null;
  tags: string[];
  permissions: string[];
  triggers: string[];
  userInvocable: boolean;
  disableModelInvocation: boolean;
  metadata: Record<string, unknown>;
  extra: Record<string, unknown>;
}

export interface CheckedFields {
  fields: SkillFields;
  errors: string[];
  warnings: string[];
}

const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NAME_LIMIT = 64;
const DESCRIPTION_LIMIT = 1024;
const KNOWN = new Set([
  "name",
  "description",
  "version",
  "author",
  "category",
  "license",
  "homepage",
  "tags",
  "permissions",
  "triggers",
  "user-invocable",
  "disable-model-invocation",
  "metadata",
]);

/** Length in Unicode code points (the unit of the §4 limits). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * A list field: an array of strings (numbers allowed) or a comma-separated string. Items are trimmed,
 * empty ones dropped, duplicates dropped (first kept). `null` when the value has the wrong type.
 */
export function normaliseList(value: unknown): string[] | null {
  let items: unknown[];
  if (typeof value === "string") items = value.split(",");
  else if (Array.isArray(value)) items = value;
  else return null;
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== "string" && typeof item !== "number") return null;
    const text = String(item).trim();
    if (text !== "" && !out.includes(text)) out.push(text);
  }
  return out;
}

/** `true/false/yes/no` (any case); `null` for anything else. */
export function normaliseBoolean(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return null;
  const text = value.trim().toLowerCase();
  if (text === "true" || text === "yes") return true;
  if (text === "false" || text === "no") return false;
  return null;
}

/** Checks and normalises the merged frontmatter. */
export function checkFields(raw: Record<string, unknown>, folderName: string): CheckedFields {
  const errors: string[] = [];
  const warnings: string[] = [];
  const ignored = (field: string, type: string) => warnings.push(`ignored field ${field}: expected ${type}`);
  const present = (key: string) => raw[key] !== undefined && raw[key] !== null;

  const stringField = (key: string): string | null => {
    if (!present(key)) return null;
    const value = raw[key];
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
    ignored(key, "string");
    return null;
  };
  const listField = (key: string): string[] => {
    if (!present(key)) return [];
    const list = normaliseList(raw[key]);
    if (list === null) {
      ignored(key, "list or comma-separated string");
      return [];
    }
    return list;
  };
  const booleanField = (key: string, fallback: boolean): boolean => {
    if (!present(key)) return fallback;
    const value = normaliseBoolean(raw[key]);
    if (value === null) {
      ignored(key, "boolean");
      return fallback;
    }
    return value;
  };

  let name: string | null = null;
  if (present("name")) {
    if (typeof raw.name === "string") name = raw.name.trim();
    else ignored("name", "string");
  }
  let description = "";
  if (present("description")) {
    if (typeof raw.description === "string") description = raw.description.trim();
    else ignored("description", "string");
  }
  const fields: SkillFields = {
    name: name === "" ? null : name,
    description,
    version: stringField("version"),
    author: stringField("author"),
    category: stringField("category"),
    license: stringField("license"),
    homepage: stringField("homepage"),
    tags: listField("tags"),
    permissions: listField("permissions"),
    triggers: listField("triggers"),
    userInvocable: booleanField("user-invocable", true),
    disableModelInvocation: booleanField("disable-model-invocation", false),
    metadata: {},
    extra: {},
  };
  for (const [key, value] of Object.entries(raw)) if (!KNOWN.has(key)) fields.extra[key] = value;

  // §4 errors, in the order of the table.
  if (fields.name === null) errors.push("missing name");
  else {
    const length = codePointLength(fields.name);
    if (length > NAME_LIMIT) errors.push(`name too long: ${length} characters (limit ${NAME_LIMIT})`);
    else if (!NAME_PATTERN.test(fields.name)) errors.push(`invalid name: ${fields.name}`);
  }
  if (description === "") errors.push("missing description");
  else {
    const length = codePointLength(description);
    if (length > DESCRIPTION_LIMIT) {
      errors.push(`description too long: ${length} characters (limit ${DESCRIPTION_LIMIT})`);
    }
  }
  const metadata = parseMetadata(raw.metadata);
  if (metadata.ok) fields.metadata = metadata.value;
  else errors.push(`invalid metadata: ${metadata.error}`);

  const nameIsValid =
    fields.name !== null && !errors.some((e) => e.startsWith("name ") || e.startsWith("invalid name"));
  if (nameIsValid && fields.name !== folderName) {
    warnings.push(`name differs from folder: ${folderName}`);
  }
  return { fields, errors, warnings };
}

/** `metadata` is a mapping, or a string holding one JSON/JSON5 object. Absent = `{}`. */
export function parseMetadata(
  value: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (isRecord(value)) return { ok: true, value };
  if (typeof value === "string") {
    if (value.trim() === "") return { ok: true, value: {} };
    let parsed: unknown;
    try {
      parsed = JSON5.parse(value);
    } catch (error) {
      return { ok: false, error: (error as Error).message.replace(/^JSON5:\s*/, "") };
    }
    if (!isRecord(parsed)) return { ok: false, error: "not an object" };
    return { ok: true, value: parsed };
  }
  return { ok: false, error: "not an object" };
}
