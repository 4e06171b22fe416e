// The skill part of a launch (skills.md §9–§10), shared by a task's turn and `gatehouse runtime spec`
// so the spec shows exactly what the launch adds: the session's snapshot, the runtime's Skill tool
// binding (which runtime, which tools it really has), the index of what that runtime does not read
// itself followed by the active skill blocks, and the environment overlay.
import type { AppPaths, Env } from "../../core/paths.js";
import { taskClaudeHome, type RuntimeKind } from "../../core/runtime/index.js";
import { runtimeToolRegistry, type SessionBinding, type SkillSnapshot } from "../../core/skills/index.js";

/** What a launch needs from the skill engine (the real SkillCatalogue in the app and the CLI). */
export interface SkillLaunchPort {
  snapshot(
    agentSessionId: string,
    workspace: string,
    options?: { taskClaudeHome?: string | null },
  ): Promise<SkillSnapshot>;
  envOverlay(snapshot: SkillSnapshot, baseEnv: Env): Record<string, string>;
  bindSession(agentSessionId: string, binding: SessionBinding): void;
  sessionInstructions(agentSessionId: string, runtime?: "claude" | "codex"): string;
}

export interface SkillLaunch {
  /** The index and active blocks for this turn; null when there is nothing to say. */
  instructions: string | null;
  envOverlay: Record<string, string>;
  /** `Skill '<n>' was deactivated: …` lines for the task's progress stream. */
  deactivated: string[];
}

export async function skillLaunch(
  skills: SkillLaunchPort,
  input: {
    sessionKey: string;
    taskId: number | string;
    workspace: string;
    runtime: RuntimeKind;
    isProjectTask: boolean;
    paths: AppPaths;
    /** The variables the agent inherits anyway: the overlay fills only what it lacks. */
    inheritedEnv: Env;
  },
): Promise<SkillLaunch> {
  const snapshot = await skills.snapshot(input.sessionKey, input.workspace, {
    taskClaudeHome: input.isProjectTask ? null : taskClaudeHome(input.paths, input.taskId),
  });
  const runtime = input.runtime === "codex" ? "codex" : "claude";
  skills.bindSession(input.sessionKey, { runtime, tools: runtimeToolRegistry(runtime) });
  const instructions = skills.sessionInstructions(input.sessionKey, runtime);
  return {
    instructions: instructions.trim() === "" ? null : instructions,
    envOverlay: skills.envOverlay(snapshot, input.inheritedEnv),
    deactivated: snapshot.deactivated,
  };
}
