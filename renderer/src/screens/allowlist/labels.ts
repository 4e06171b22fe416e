// How the allowlist editor names agents and where a setting comes from.

export function agentLabel(id: string): string {
  return id === "*" ? "All agents (*)" : id;
}

/** Where an effective setting comes from (`sources` of the effective settings), in words. */
export function sourceLabel(source: string): string {
  if (source === "built-in") return "built-in";
  if (source === "defaults") return "defaults";
  if (source === "agents.*") return "all agents";
  if (source.startsWith("agents.")) return "this agent";
  return source;
}
