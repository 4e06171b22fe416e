// Read-only view of the capability manifest `E/capabilities/manifest.json` (device-protocol.md §7.8):
// only what the catalogue needs to recognise Wegent-managed skills. The capabilities module owns the
// file; this reader never writes it. Missing file → no records; a broken file → no records + an error.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { expandHome } from "../../paths.js";
import { describeZodError } from "../../store/index.js";

const ManifestSkillSchema = z.looseObject({
  managed: z.boolean().optional(),
  store_path: z.string().optional(),
  runtime: z
    .looseObject({
      claude_link: z.string().nullable().optional(),
      codex_link: z.string().nullable().optional(),
    })
    .optional(),
});

export const CapabilityManifestViewSchema = z.looseObject({
  // A section that is not an object counts as empty (§7.8 "Loading").
  skills: z.unknown().optional(),
});

export interface ManagedSkillRecord {
  storePath: string | null;
  claudeLink: string | null;
  codexLink: string | null;
}

export interface CapabilityManifestView {
  /** Folder name → record, only records with `managed: true`. */
  managedSkills: Map<string, ManagedSkillRecord>;
  error: string | null;
}

function absolute(p: string | null | undefined, home: string): string | null {
  if (typeof p !== "string" || p.trim() === "") return null;
  return path.resolve(expandHome(p, home));
}

export async function readCapabilityManifest(file: string, home: string): Promise<CapabilityManifestView> {
  const view: CapabilityManifestView = { managedSkills: new Map(), error: null };
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") view.error = `Cannot read capability manifest ${file} (${code ?? "error"})`;
    return view;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    view.error = `Invalid capability manifest ${file}: ${(error as Error).message}`;
    return view;
  }
  const parsed = CapabilityManifestViewSchema.safeParse(raw);
  if (!parsed.success) {
    view.error = `Invalid capability manifest ${file}: ${describeZodError(parsed.error)}`;
    return view;
  }
  const skills = parsed.data.skills;
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) return view;
  for (const [name, value] of Object.entries(skills)) {
    const record = ManifestSkillSchema.safeParse(value);
    if (!record.success || record.data.managed !== true) continue;
    view.managedSkills.set(name, {
      storePath: absolute(record.data.store_path, home),
      claudeLink: absolute(record.data.runtime?.claude_link, home),
      codexLink: absolute(record.data.runtime?.codex_link, home),
    });
  }
  return view;
}
