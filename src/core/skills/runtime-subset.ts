// Which offered entries a runtime gets in the Gatehouse index (skills.md §10 "Overlap with native
// discovery"): Claude Code reads ranks 2 and 5 and plugin skills itself, Codex reads rank 6, so those
// are left out of that runtime's index and no skill is listed twice.
import type { RootKind, SkillEntry } from "./types.js";

export type SkillRuntime = "claude" | "codex";

const NATIVE: Record<SkillRuntime, ReadonlySet<RootKind>> = {
  claude: new Set<RootKind>(["workspace-claude", "user-claude", "plugin"]),
  codex: new Set<RootKind>(["user-codex"]),
};

export function runtimeIndexEntries(offered: readonly SkillEntry[], runtime: SkillRuntime): SkillEntry[] {
  return offered.filter((entry) => !NATIVE[runtime].has(entry.kind));
}

/** `claude`, `claude-code` → claude; `codex` → codex; anything else → null. */
export function parseSkillRuntime(value: string): SkillRuntime | null {
  const v = value.trim().toLowerCase();
  if (v === "claude" || v === "claude-code") return "claude";
  if (v === "codex") return "codex";
  return null;
}
