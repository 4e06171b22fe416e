// Permissions → tools (skills.md §9.1): a permission is satisfied when the run's tool registry holds
// at least one of its tools; an unknown permission only by a tool with exactly its name.

export const PERMISSION_TOOLS: Readonly<Record<string, readonly string[]>> = {
  file_read: ["file_read"],
  file_write: ["file_write", "file_edit"],
  shell_exec: ["shell"],
  web_search: ["web_search"],
  web_fetch: ["web_fetch"],
  http_request: ["http_request"],
  memory: ["memory_store", "memory_recall", "memory_export", "memory_forget", "memory_purge"],
  knowledge: ["knowledge"],
  calculator: ["calculator"],
  git: ["git"],
  cron: ["cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs", "cron_update"],
  backup: ["backup"],
  glob_search: ["glob_search"],
  content_search: ["content_search"],
  llm_task: ["llm_task"],
  pdf_read: ["pdf_read"],
};

/** Claude Code's native tool names and the canonical names they also count as (§9.1). */
export const CLAUDE_TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  Read: ["file_read"],
  Write: ["file_write"],
  Edit: ["file_edit"],
  MultiEdit: ["file_edit"],
  Bash: ["shell"],
  Glob: ["glob_search"],
  Grep: ["content_search"],
  WebFetch: ["web_fetch"],
  WebSearch: ["web_search"],
};

/** The tools that satisfy a permission. */
export function toolsFor(permission: string): readonly string[] {
  return Object.prototype.hasOwnProperty.call(PERMISSION_TOOLS, permission)
    ? (PERMISSION_TOOLS[permission] ?? [permission])
    : [permission];
}

/** `no tool for <p> (needs <tool>)` / `(needs one of a, b)` for each unsatisfied permission, in order. */
export function unsatisfiedPermissions(permissions: readonly string[], tools: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const permission of permissions) {
    const candidates = toolsFor(permission);
    if (candidates.some((tool) => tools.has(tool))) continue;
    const needs = candidates.length === 1 ? candidates[0] : `one of ${candidates.join(", ")}`;
    problems.push(`no tool for ${permission} (needs ${needs})`);
  }
  return problems;
}

/** A tool registry from native tool names: each name plus the canonical names it counts as. */
export function toolRegistry(nativeNames: Iterable<string>, aliases = CLAUDE_TOOL_ALIASES): Set<string> {
  const out = new Set<string>();
  for (const name of nativeNames) {
    out.add(name);
    for (const alias of aliases[name] ?? []) out.add(alias);
  }
  return out;
}
