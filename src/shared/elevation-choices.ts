// The elevated-mode choices the person's own front ends offer (the tray menu and the Status screen), from
// one table: for how long and for whom. Every choice is within what `elevation.start` and `gatehouse
// elevate` accept (at most 8 h; `*` or one agent id); longer or other agents are the CLI's.

/** How long a tray or Status elevation lasts. */
export const ELEVATION_DURATIONS = [
  { forMs: 15 * 60_000, words: "15 minutes", short: "15 min" },
  { forMs: 60 * 60_000, words: "1 hour", short: "1 h" },
] as const;

/** Whom it elevates: every agent, or the agent id of one runtime Gatehouse launches tasks for. */
export const ELEVATION_AGENTS = [
  { agentId: "*", words: "every agent" },
  { agentId: "claude-code", words: "Claude Code (claude-code)" },
  { agentId: "codex", words: "Codex (codex)" },
] as const;

export interface ElevationChoice {
  /** Stable id (`elevate:<agent>:<ms>`), e.g. for menu items. */
  id: string;
  agentId: string;
  forMs: number;
  /** "Every agent for 15 minutes". */
  label: string;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Who, in words: "every agent", "Claude Code (claude-code)", else "agent <id>". */
export function elevationWho(agentId: string): string {
  return ELEVATION_AGENTS.find((a) => a.agentId === agentId)?.words ?? `agent ${agentId}`;
}

/** A duration in words: "15 min", "1 h", else minutes or hours. */
export function elevationDuration(forMs: number): string {
  const known = ELEVATION_DURATIONS.find((d) => d.forMs === forMs);
  if (known) return known.short;
  const minutes = Math.max(1, Math.round(forMs / 60_000));
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}

/** Every agent × every duration, every agent first. */
export function elevationChoices(): ElevationChoice[] {
  return ELEVATION_AGENTS.flatMap((agent) =>
    ELEVATION_DURATIONS.map((duration) => ({
      id: `elevate:${agent.agentId}:${duration.forMs}`,
      agentId: agent.agentId,
      forMs: duration.forMs,
      label: `${capitalised(agent.words)} for ${duration.words}`,
    })),
  );
}
