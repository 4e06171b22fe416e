// What the task runner needs from the rest of the app, as narrow interfaces: the composition root
// (src/services.ts) passes the real services, tests pass the same real services built in a temp home.
import type { Logger } from "../../core/log.js";
import type { AppPaths, Env } from "../../core/paths.js";
import type { SkillLaunchPort } from "./skill-launch.js";
import type { TaskKeys } from "./task-keys.js";
import type { WorkdirService } from "../../core/workdir/index.js";
import type { GitCheckoutOutcome, GitCheckoutRequest } from "./git-checkout.js";
import type { PackageDownloader } from "../../core/capabilities/download.js";
import type { VerifiedTask } from "../../shared/schemas/prompt.js";
import type { RequestedSettings } from "../../shared/schemas/explanation.js";

/** One running turn of a Claude Code task, as the runner's HTTP hook decides its calls (cli/hook/runner-hook.ts). */
export interface RunnerHookTask {
  verified: VerifiedTask;
  /** The folder the agent runs in (file accesses are judged against it). */
  workdir: string;
  promptTimeoutMs: number;
  /** The agent's own environment (which shell its Bash runs commands with). */
  env: Env;
  requested?: RequestedSettings;
}

/** One turn's address and token on the runner's HTTP hook (approval-server/http-hook.ts). */
export interface ClaudeHttpHookGrant {
  url: string;
  token: string;
  /** The agent is about to start: its calls are decided as this turn from now on. */
  bind(task: RunnerHookTask): void;
  /** The turn ended: the address and token stop counting. */
  revoke(): void;
}

/** The runner's HTTP hook for Claude Code tasks (issue 29); absent: every turn gets the command hook. */
export interface ClaudeHttpHookPort {
  /**
   * A grant for one turn of the Claude Code at `binary`, or why the turn gets the command hook instead
   * (a CLI that does not block a call when its HTTP hook fails, or a runner not serving it now).
   */
  grantFor(
    version: string | null,
  ): Promise<{ ok: true; grant: ClaudeHttpHookGrant } | { ok: false; why: string }>;
}

/** The device configuration a task needs (device-protocol.md §1, §6.1 rule 2). */
export interface DeviceFacts {
  deviceId: string;
  backendUrl: string;
  /** The device token (keychain, env or file); fills a blank `auth_token`. Never logged. */
  authToken: string | null;
  /** `max_concurrent_tasks`, clamped to 1–20 by the runner. */
  maxConcurrentTasks: number;
}

export type TaskWorkdirPort = Pick<
  WorkdirService,
  "resolveForTask" | "recheckBeforeSpawn" | "isSameCwd" | "workspaceRoot"
>;

/** The skill catalogue's agent-session surface (skills.md §9–§10); optional. */
export interface TaskSkillsPort extends SkillLaunchPort {
  endSession(agentSessionId: string): void;
}

export interface TaskRunnerOptions {
  paths: AppPaths;
  /** The agents' base environment (the app's own; scrubbed per exec-policy.md "Running"). */
  env: Env;
  logger: Logger;
  workdir: TaskWorkdirPort;
  /** Read at every `task:execute`, so a changed configuration applies to the next task. */
  deviceFacts: () => Promise<DeviceFacts>;
  /** argv prefix that runs gatehouse (absolute paths), for the Claude Code hook. */
  gatehouseCommand: string[];
  skills?: TaskSkillsPort | null;
  /** Claude Code turns use the runner's HTTP hook when the CLI honours it (absent: the command hook). */
  claudeHttpHook?: ClaudeHttpHookPort | null;
  /** Gives each turn's agent process a provenance key the approval server checks (absent: none). */
  taskKeys?: TaskKeys | null;
  /** Clones a task's `git_url` into its folder, through the exec policy (git-checkout.ts); absent: none. */
  gitCheckout?: ((request: GitCheckoutRequest) => Promise<GitCheckoutOutcome>) | null;
  /** Downloads a task's attachments into its folder (attachments.ts); absent: the prompt is left as it is. */
  downloadAttachment?: PackageDownloader | null;
  /** How long an approval prompt of a task's command may wait (default 120 s). */
  promptTimeoutMs?: number;
  /** SIGTERM → SIGKILL of a cancelled agent's process tree (default 3 s: the tree is gone within 5 s). */
  killGraceMs?: number;
  now?: () => number;
  platform?: NodeJS.Platform;
}
