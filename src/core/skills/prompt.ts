// Prompt rendering (skills.md §8): the index of offered skills, its cost, and active-skill blocks.
// Pure functions; `render(x).length === cost(x)` holds by construction and is pinned by tests.

/** What the renderer needs from an entry. */
export interface IndexItem {
  name: string;
  description: string;
  triggers: readonly string[];
  skill_file: string;
}

export const INDEX_FIXED_COST = 195;
export const SKILL_GROUP_COST = 97;
export const TRIGGERS_LINE_COST = 26;
export const ACTIVE_BLOCK_COST = 51;

const HEADER = [
  "",
  "",
  "Each skill below packages step-by-step instructions for one kind of job.",
  "When a task matches a skill, call the skill tool with its name to load it fully.",
  "",
  "<available_skills>",
];

/** XML escaping of §8.1: `&` first, then `<`, `>`, `"`, `'`. */
export function escapeXml(text: string): string {
  if (!/[&<>"']/.test(text)) return text;
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function byName(a: IndexItem, b: IndexItem): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** What one skill adds to the index (its Σ term in §8.2). */
export function skillCost(item: IndexItem): number {
  const triggers =
    item.triggers.length === 0 ? 0 : TRIGGERS_LINE_COST + escapeXml(item.triggers.join(", ")).length;
  return (
    SKILL_GROUP_COST +
    escapeXml(item.name).length +
    escapeXml(item.description).length +
    escapeXml(item.skill_file).length +
    triggers
  );
}

/** The cost formula of §8.2: exactly the length of `renderIndexText(items)`. */
export function indexCost(items: readonly IndexItem[]): number {
  if (items.length === 0) return 0;
  return INDEX_FIXED_COST + items.reduce((sum, item) => sum + skillCost(item), 0);
}

export function tokenEstimate(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * The index text for these skills (sorted by name here); `""` when there are none. With `toolPhrase`,
 * the second sentence names the tool as the agent sees it instead of "the skill tool" (the cost grows by
 * the difference in length; §8.2's figures are for the generic text).
 */
export function renderIndexText(items: readonly IndexItem[], options: { toolPhrase?: string } = {}): string {
  if (items.length === 0) return "";
  const lines = [...HEADER];
  if (options.toolPhrase) lines[3] = lines[3]!.replace("the skill tool", options.toolPhrase);
  for (const item of [...items].sort(byName)) {
    lines.push("  <skill>");
    lines.push(`    <name>${escapeXml(item.name)}</name>`);
    lines.push(`    <description>${escapeXml(item.description)}</description>`);
    if (item.triggers.length > 0)
      lines.push(`    <triggers>${escapeXml(item.triggers.join(", "))}</triggers>`);
    lines.push(`    <location>${escapeXml(item.skill_file)}</location>`);
    lines.push("  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

/** `renderIndex` of §12. */
export function renderIndex(items: readonly IndexItem[]): { text: string; costChars: number } {
  const text = renderIndexText(items);
  return { text, costChars: indexCost(items) };
}

/** The body as an active block shows it: leading blank lines and trailing white space removed. */
export function activeBody(body: string, skillPath: string): string {
  const trimmed = body.replace(/^(?:[ \t]*\n)+/, "").replace(/\s+$/, "");
  return trimmed.split("{baseDir}").join(skillPath).split("</active_skill").join("&lt;/active_skill");
}

/** `renderActive` of §12 (§8.3). */
export function renderActive(
  entry: { name: string; skill_file: string; path: string },
  body: string,
): string {
  return (
    `<active_skill name="${escapeXml(entry.name)}" location="${escapeXml(entry.skill_file)}">\n` +
    `${activeBody(body, entry.path)}\n</active_skill>`
  );
}

/** Index followed by the active blocks, each after a blank line, in activation order (§8.3). */
export function renderInstructions(indexText: string, blocks: readonly string[]): string {
  return indexText + blocks.map((block) => `\n\n${block}`).join("");
}
