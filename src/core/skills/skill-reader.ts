// Reads one skill folder: size limits, SKILL.md + manifest.toml (manifest wins field by field),
// then field checks and gating metadata. Every problem is a value in `errors` / `warnings`.
import path from "node:path";
import { checkFields, type SkillFields } from "./fields.js";
import type { FileKind } from "./io/discovery.js";
import { readTextFileLimited, statFile } from "./io/fs-calls.js";
import { emptyGating, readGating, type Gating } from "./gating.js";
import { parseSkillManifest, parseSkillMarkdown } from "./skill-file.js";

export const SKILL_MD_LIMIT = 256 * 1024;
export const MANIFEST_LIMIT = 64 * 1024;

export interface ReadSkill {
  valid: boolean;
  errors: string[];
  warnings: string[];
  fields: SkillFields | null;
  gating: Gating;
  body: string;
}

type FileRead = { ok: true; text: string } | { ok: false; error: string };

async function readLimited(file: string, limit: number, kind: FileKind = "link"): Promise<FileRead> {
  const name = path.basename(file);
  const unreadable = (code: string | undefined): FileRead => ({
    ok: false,
    error: `unreadable: ${name} (${code ?? "error"})`,
  });
  try {
    if (kind === "link") {
      const stat = await statFile(file);
      if (!stat.isFile()) kind = stat.isDirectory() ? "dir" : "other";
    }
    if (kind === "dir") return unreadable("EISDIR");
    if (kind === "other") return unreadable("not a regular file");
    const result = await readTextFileLimited(file, limit);
    if (result.status === "ok") return { ok: true, text: result.text };
    return { ok: false, error: `file too large: ${name} (${result.bytes} bytes, limit ${limit})` };
  } catch (error) {
    return unreadable((error as NodeJS.ErrnoException).code);
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** The first paragraph of plain text (headings' `#` marks dropped), cut at 1024 characters. */
function firstParagraph(body: string): string | null {
  const lines = body.split("\n").map((l) => l.trim());
  const start = lines.findIndex((l) => l !== "" && !/^#+\s/.test(l));
  const from = start === -1 ? lines.findIndex((l) => l !== "") : start;
  if (from === -1) return null;
  const paragraph: string[] = [];
  for (const line of lines.slice(from)) {
    if (line === "" || (paragraph.length > 0 && /^#+\s/.test(line))) break;
    paragraph.push(line.replace(/^#+\s+/, ""));
  }
  return [...paragraph.join(" ")].slice(0, 1024).join("");
}

function invalid(errors: string[], warnings: string[] = []): ReadSkill {
  return { valid: false, errors, warnings, fields: null, gating: emptyGating(), body: "" };
}

/** Reads and checks the skill in `folder`. `hasSkillMd` / `hasManifest` come from the folder listing. */
export async function readSkillFolder(
  folder: string,
  present: { hasSkillMd: boolean; hasManifest: boolean; skillMdKind?: FileKind; manifestKind?: FileKind },
): Promise<ReadSkill> {
  const warnings: string[] = [];
  const fileErrors: string[] = [];
  let frontmatter: Record<string, unknown> = {};
  let body = "";
  /** A ClawSeed SKILL.md may be plain markdown when manifest.toml carries the fields. */
  let plainMarkdown: string | null = null;
  if (!present.hasSkillMd) fileErrors.push("missing SKILL.md");
  else {
    const skillFile = await readLimited(path.join(folder, "SKILL.md"), SKILL_MD_LIMIT, present.skillMdKind);
    const markdown = skillFile.ok ? parseSkillMarkdown(skillFile.text) : skillFile;
    if (markdown.ok) ({ frontmatter, body } = markdown.value);
    else if (skillFile.ok && markdown.error === "no frontmatter" && present.hasManifest) {
      plainMarkdown = skillFile.text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
    } else fileErrors.push(markdown.error);
  }
  let manifestSkill: Record<string, unknown> | null = null;
  if (present.hasManifest) {
    const manifestFile = await readLimited(
      path.join(folder, "manifest.toml"),
      MANIFEST_LIMIT,
      present.manifestKind,
    );
    const manifest = manifestFile.ok ? parseSkillManifest(manifestFile.text) : manifestFile;
    if (manifest.ok) {
      warnings.push(...manifest.value.warnings);
      manifestSkill = manifest.value.skill;
    } else fileErrors.push(manifest.error);
  }
  if (plainMarkdown !== null) {
    if (manifestSkill === null) fileErrors.push("no frontmatter");
    else body = plainMarkdown;
  }
  if (fileErrors.length > 0) return invalid(fileErrors, warnings);

  const merged: Record<string, unknown> = { ...frontmatter, ...(manifestSkill ?? {}) };
  // A name-only manifest (ClawSeed): the description is the body's first paragraph.
  if (manifestSkill !== null && isBlank(merged.description)) {
    const fallback = firstParagraph(body);
    if (fallback !== null) {
      merged.description = fallback;
      warnings.push("description taken from SKILL.md text");
    }
  }
  const checked = checkFields(merged, path.basename(folder));
  warnings.push(...checked.warnings);
  const { gating, warnings: gatingWarnings } = readGating(checked.fields.metadata);
  warnings.push(...gatingWarnings);
  return {
    valid: checked.errors.length === 0,
    errors: checked.errors,
    warnings,
    fields: checked.fields,
    gating,
    body,
  };
}
