// File reads and edits by an agent's own tools (Claude Code's Write/Edit/Read…, Codex's apply_patch and
// view_image) under the same settings as commands: a pure explainer of paths the gate has already
// resolved on disk (src/executor/file-access.ts). Writing inside the task's folder is like a covered
// command; anywhere else is like an allowlist miss; Gatehouse's own data is never touched.
import type { ApprovalsState } from "../approvals/index.js";
import { decide, loosenedReason } from "./decide.js";
import { resolveSettings } from "./resolve-settings.js";
import type { Ask, Explanation, Identity, Outcome, Security } from "./types.js";
import type { FileAccessKind, FileAccessView, FileWhere } from "../../shared/schemas/explanation.js";

export type { FileAccessKind, FileAccessView, FileWhere };

/** One path a tool call reads or writes, resolved by the caller. */
export interface FileTarget {
  /** The path as the agent gave it. */
  given: string;
  /** Absolute, links resolved (a missing tail appended as written), or null when unresolved. */
  resolved: string | null;
  where: FileWhere;
  /** Plain words for `where`: the protected folder's label, the sensitive name, why it is unresolved. */
  detail?: string;
}

export type FileAccessExplanation = Explanation & { fileAccess: FileAccessView };

export interface FileAccessRequest {
  tool: string;
  access: FileAccessKind;
  workdir: string;
  targets: FileTarget[];
  agentId: string;
}

export interface FileAccessContext {
  approvals: ApprovalsState;
  /** Request settings: they can only tighten (a looser one is refused). */
  requested?: { security?: Security; ask?: Ask };
  /** For elevated mode (it ends at its time); without it elevation does not apply. */
  now?: number;
  /** `unproven`: the agent id is a claim; the least-trusted agent's settings decide (resolve-settings.ts). */
  identity?: Identity;
}

const WHERE_TEXT: Record<FileWhere, string> = {
  inside: "inside the task's folder",
  outside: "outside the task's folder",
  "sensitive-inside": "inside the task's folder, where files make later commands run code",
  protected: "in a protected folder",
  unresolved: "a path Gatehouse cannot resolve safely",
  "gatehouse-data": "Gatehouse's own data",
};

/** Plain words for one path, e.g. `outside the task's folder` or `in a protected folder (a credentials folder)`. */
export function whereText(target: Pick<FileTarget, "where" | "detail">): string {
  return target.detail ? `${WHERE_TEXT[target.where]} (${target.detail})` : WHERE_TEXT[target.where];
}

function decideAccess(
  request: FileAccessRequest,
  settings: { security: Security; ask: Ask },
  approvals: ApprovalsState,
): { outcome: Outcome; reason: string } {
  if (approvals.status === "invalid") return { outcome: "deny", reason: "approvals-file-invalid" };
  const never = request.targets.find((t) => t.where === "gatehouse-data");
  if (never) {
    return {
      outcome: "deny",
      reason: `gatehouse-data: ${never.given} is Gatehouse's own data, which agents never read or change`,
    };
  }
  const away = request.targets.filter((t) => t.where !== "inside");
  // Reading the task's own folder changes nothing and runs nothing: no setting refuses or asks about it.
  if (request.access === "read" && away.length === 0) return { outcome: "run", reason: "inside-workdir" };
  const decided = decide({ security: settings.security, ask: settings.ask }, away.length === 0);
  const first = away[0];
  const what = first ? `${first.given} is ${whereText(first)}` : "";
  switch (decided.reason) {
    case "allowlist":
      return { outcome: "run", reason: "inside-workdir" };
    case "allowlist-miss":
      return {
        outcome: decided.outcome,
        reason: `outside-workdir${decided.outcome === "deny" ? " (ask=off)" : ""}: ${what}`,
      };
    default:
      return { outcome: decided.outcome, reason: decided.reason };
  }
}

/**
 * How the policy decides a file access: `run`, `prompt` or `deny` with its reason, shaped as a command
 * explanation (the gate, the prompt broker and askFallback take it as is) plus `fileAccess` for the
 * presenters. *Allow always* is never offered: a grant is for this access only.
 */
export function explainFileAccess(request: FileAccessRequest, ctx: FileAccessContext): FileAccessExplanation {
  const settings = resolveSettings(ctx.approvals, request.agentId, ctx.requested, ctx.now, ctx.identity);
  const { outcome, reason } = settings.loosening
    ? { outcome: "deny" as const, reason: loosenedReason(settings.loosening) }
    : decideAccess(request, settings, ctx.approvals);
  const allInside = request.targets.every((t) => t.where === "inside");
  return {
    outcome,
    reason,
    matchedEntryIds: [],
    security: settings.security,
    ask: settings.ask,
    askFallback: settings.askFallback,
    sources: settings.sources,
    agentId: request.agentId,
    ...(ctx.identity ? { identity: ctx.identity } : {}),
    cwd: request.workdir,
    command: { argv: fileAccessArgv(request.tool, request.targets) },
    flags: [],
    flagDetails: [],
    segments: [],
    // askFallback=allowlist allows what a rule would: work inside the task's own folder.
    allowlistSatisfied: allInside,
    approvalsFile:
      ctx.approvals.status === "invalid"
        ? { path: ctx.approvals.path, status: "invalid", error: ctx.approvals.error }
        : { path: ctx.approvals.path, status: ctx.approvals.status },
    proposedEntries: [],
    allowAlwaysAvailable: false,
    fileAccess: {
      tool: request.tool,
      access: request.access,
      workdir: request.workdir,
      paths: request.targets.map((t) => ({
        path: t.resolved ?? t.given,
        where: t.where,
        ...(t.detail ? { detail: t.detail } : {}),
      })),
    },
  };
}

/** The access as an argv for the audit log and for presenters that know nothing of files: `Write /x`. */
export function fileAccessArgv(tool: string, targets: ReadonlyArray<Pick<FileTarget, "given" | "resolved">>) {
  return [tool, ...targets.map((t) => t.resolved ?? t.given)];
}

const WHERE_VALUES = new Set<string>(Object.keys(WHERE_TEXT));

/** The file access an explanation (or a prompt's explanation) describes, or null for a command. */
export function fileAccessOf(explanation: unknown): FileAccessView | null {
  if (typeof explanation !== "object" || explanation === null) return null;
  const view = (explanation as { fileAccess?: unknown }).fileAccess;
  if (typeof view !== "object" || view === null) return null;
  const v = view as Partial<FileAccessView>;
  if (typeof v.tool !== "string" || (v.access !== "read" && v.access !== "write")) return null;
  if (typeof v.workdir !== "string" || !Array.isArray(v.paths)) return null;
  const paths = v.paths.filter(
    (p): p is FileAccessView["paths"][number] =>
      typeof p === "object" && p !== null && typeof p.path === "string" && WHERE_VALUES.has(p.where),
  );
  return { tool: v.tool, access: v.access, workdir: v.workdir, paths };
}
