// The workdir vocabulary (workdir.md §1, §6, §7): policies, fallback codes, the resolution object.
import { WORKDIR_POLICIES, type Policy } from "../../shared/schemas/workdir.js";

export { WORKDIR_POLICIES, type Policy };

export function isPolicy(value: string): value is Policy {
  return (WORKDIR_POLICIES as readonly string[]).includes(value);
}

/** Section 4 failures: the codes a requested path can get. */
export type PathCode =
  | "invalid-path"
  | "outside-allowed-roots"
  | "symlink-escape"
  | "sensitive-directory"
  | "missing-directory"
  | "not-a-directory"
  | "unreadable";

export type FallbackCode =
  | PathCode
  | "repo-remote-mismatch"
  | "changed-before-start"
  | "unknown-policy"
  | "invalid-repo"
  | "repo-binding-missing";

export interface WorkdirFallback {
  code: FallbackCode;
  message: string;
}

export interface WorkdirResolution {
  /** Real path; the spawn cwd. */
  cwd: string;
  /** As received, after defaults. */
  policyRequested: string;
  /** "managed" whenever a fallback happened. */
  policyApplied: Policy;
  /** The requested path as received. */
  requested: string | null;
  /** Real path of the containing root. */
  root: string | null;
  /** The resolver created the folder. */
  created: boolean;
  fallback: WorkdirFallback | null;
  /** Messages that are not failures (branch differs, workdir changed). */
  notices: string[];
  /** The task whose managed folder `W/<taskId>` is the fallback; null when the fallback is W itself. */
  taskId: string | null;
}

export type FatalCode = "invalid-task-id" | "managed-unavailable";

/** A workdir error that stops the run: nothing is spawned, the task ends with an error event. */
export class WorkdirFatal extends Error {
  constructor(
    readonly code: FatalCode,
    /** For local logs only (never sent to the backend). */
    readonly detail: string = "",
  ) {
    super(`Working folder error: ${code}.`);
    this.name = "WorkdirFatal";
  }
}
