// Plugin manifests in a staged package (device-protocol.md §7.4): both need a name and must agree;
// a missing one is generated from the other; the Claude manifest is rewritten to the keys Claude
// Code accepts, so one package serves both runtimes.
import fs from "node:fs/promises";
import path from "node:path";
import { msg } from "../messages.js";
import { isRecord } from "../../../shared/is-record.js";

export const CLAUDE_MANIFEST = ".claude-plugin/plugin.json";
export const CODEX_MANIFEST = ".codex-plugin/plugin.json";

/** The manifest keys both runtimes accept. */
const SHARED_KEYS = [
  "name",
  "version",
  "description",
  "author",
  "homepage",
  "repository",
  "license",
  "keywords",
  "skills",
  "mcpServers",
] as const;

const CODEX_KEYS = [...SHARED_KEYS, "connectors"] as const;

const CLAUDE_KEYS = [
  ...SHARED_KEYS,
  "commands",
  "agents",
  "hooks",
  "outputStyles",
  "lspServers",
  "experimental",
  "dependencies",
  "userConfig",
  "channels",
  "themes",
  "monitors",
  "connectors",
] as const;

type Json = Record<string, unknown>;
type Loaded = { present: false } | { present: true; value: Json } | { error: string };

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

async function loadManifest(root: string, relative: string): Promise<Loaded> {
  let text: string;
  try {
    text = await fs.readFile(path.join(root, relative), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { present: false };
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: msg.manifestNotJson(relative, (error as Error).message) };
  }
  if (!isRecord(value) || !nonEmptyString(value.name)) return { error: msg.manifestNeedsName(relative) };
  return { present: true, value };
}

function pick(source: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/** The Codex manifest generated from a Claude one. */
export function codexManifestFromClaude(claude: Json): Json {
  const codex = pick(claude, CODEX_KEYS);
  const ui: Json = {};
  if (claude.displayName !== undefined) ui.displayName = claude.displayName;
  if (claude.description !== undefined) ui.shortDescription = claude.description;
  if (Object.keys(ui).length > 0) codex.interface = ui;
  return codex;
}

/** The Claude manifest as written: only the keys Claude Code accepts, description filled from Codex. */
export function claudeManifestFrom(claude: Json, codex: Json | null): Json {
  const out = pick(claude, CLAUDE_KEYS);
  if (!nonEmptyString(out.description) && codex && isRecord(codex.interface)) {
    const ui = codex.interface;
    const description = nonEmptyString(ui.shortDescription) ? ui.shortDescription : ui.longDescription;
    if (nonEmptyString(description)) out.description = description;
  }
  return out;
}

async function writeManifest(root: string, relative: string, value: Json): Promise<void> {
  const file = path.join(root, relative);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o644 });
  await fs.chmod(file, 0o644);
}

/** Returns an error message, or null when the staged plugin at `root` is ready for both runtimes. */
export async function normalisePluginManifests(root: string): Promise<string | null> {
  const claude = await loadManifest(root, CLAUDE_MANIFEST);
  if ("error" in claude) return claude.error;
  const codex = await loadManifest(root, CODEX_MANIFEST);
  if ("error" in codex) return codex.error;
  if (!claude.present && !codex.present) return msg.missingPluginManifest;
  if (claude.present && codex.present && claude.value.name !== codex.value.name)
    return msg.manifestNamesDiffer;
  let codexValue: Json | null = codex.present ? codex.value : null;
  if (!codexValue && claude.present) {
    codexValue = codexManifestFromClaude(claude.value);
    await writeManifest(root, CODEX_MANIFEST, codexValue);
  }
  const claudeSource = claude.present ? claude.value : (codexValue as Json);
  await writeManifest(root, CLAUDE_MANIFEST, claudeManifestFrom(claudeSource, codexValue));
  return null;
}
