// explainCommand: analysis + effective settings + allowlist matching + decision, with everything the CLI
// and the UI show about why (exec-policy.md "Explaining").
import path from "node:path";
import type { ApprovalsState } from "../approvals/index.js";
import { compileAllowlist, matchSegment } from "./allowlist-match.js";
import { analyzeCommand } from "./analyze.js";
import { grantsMoreThanItsName } from "./tool-table.js";
import type { Dialect } from "./tool-readings.js";
import { judgeVariable } from "./variables.js";
import { namesOwnFiles, type OwnFiles } from "./own-files.js";
import { commandBaseName } from "./command-rules.js";
import { decide, loosenedReason, ownFilesDecision } from "./decide.js";
import { proposeEntries } from "./proposals.js";
import { resolveSettings } from "./resolve-settings.js";
import { standingRuleUnwise } from "./risk.js";
import { ExecutableResolver } from "./io/resolve-executable.js";
import type { ScriptCache } from "./io/shell-script.js";
import type { CommandInput, Explanation, Flag, Identity, RequestedSettings } from "./types.js";

export interface PolicyContext {
  agentId: string;
  /** The command's working directory (already resolved). */
  cwd: string;
  /** PATH, PATHEXT, HOME of the command. */
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** Default process.platform (tests may pass "win32"/"darwin" for the pure parts). */
  platform?: NodeJS.Platform;
  approvals: ApprovalsState;
  /** Request settings: they can only tighten. */
  requested?: RequestedSettings;
  now: number;
  /** Parsed-script memo (default: the process-wide one). */
  scripts?: ScriptCache;
  /** Executable memo (default: a fresh one per call). */
  resolver?: ExecutableResolver;
  /**
   * Variables the request sets for the command (socket `exec.run` env, backend env): judged like
   * `NAME=value command` — one that changes what runs is a flag.
   */
  requestEnv?: Readonly<Record<string, string>>;
  /**
   * The bash a POSIX shell string will run under (absolute path), or null when this machine has none:
   * then a shell string is never covered by the allowlist. Undefined = not running it here (the hook:
   * the agent's own shell runs it), analysed as bash.
   */
  bash?: string | null;
  /** Which shell reads a shell string when Gatehouse does not run it itself (the hook: the agent's shell). */
  dialect?: Dialect;
  /** Gatehouse's own folder: a command naming it needs a person (own-files.ts). */
  ownFiles?: OwnFiles;
  /**
   * `unproven`: the agent id is a claim (docs/decisions.md "Proven identity"): the least-trusted agent's
   * settings, the `*` entries without a use limit, and only an every-agent elevation decide.
   */
  identity?: Identity;
}

/** Flags an entry with an argPattern that matched the literal arguments covers (proposed exactly so). */
const COVERABLE: ReadonlySet<Flag["kind"]> = new Set(["inline-code", "tool-option", "protected-files"]);

const OUTCOME_RANK: Record<Explanation["outcome"], number> = { run: 0, prompt: 1, deny: 2 };

/**
 * Explains a command. A POSIX string whose shell is not known for sure (`posixShell` lists candidates,
 * docs/decisions.md "The dialect the runtime really runs") is explained under every candidate and the
 * strictest verdict is kept: deny over prompt over run, the first candidate on a tie (the likeliest).
 */
export async function explainCommand(input: CommandInput, ctx: PolicyContext): Promise<Explanation> {
  if (!Array.isArray(input.posixShell)) return explainUnder(input, ctx, input);
  const candidates = [...new Set(input.posixShell)];
  // an explicit dialect, or no POSIX string to read, leaves one reading
  const platform = ctx.platform ?? process.platform;
  const posix = (input.shell ?? (platform === "win32" ? "cmd" : "posix")) === "posix";
  if (ctx.dialect || input.command === undefined || !posix) candidates.length = 1;
  const explained: Explanation[] = [];
  for (const dialect of candidates)
    explained.push(await explainUnder({ ...input, posixShell: dialect }, ctx, input));
  let strictest = explained[0]!;
  for (const e of explained) if (OUTCOME_RANK[e.outcome] > OUTCOME_RANK[strictest.outcome]) strictest = e;
  // Every reading runs: each one's entries count (a limited entry is spent whichever shell reads it).
  if (strictest.outcome === "run" && explained.length > 1)
    strictest.matchedEntryIds = [...new Set(explained.flatMap((e) => e.matchedEntryIds))];
  return strictest;
}

/** One reading of the command (`input.posixShell` a single dialect); `shown` is what the explanation names. */
async function explainUnder(
  input: CommandInput,
  ctx: PolicyContext,
  shown: CommandInput,
): Promise<Explanation> {
  const platform = ctx.platform ?? process.platform;
  const analysis = await analyzeCommand(input, {
    cwd: ctx.cwd,
    env: ctx.env,
    home: ctx.home,
    platform,
    ...(ctx.dialect ? { dialect: ctx.dialect } : {}),
    ...(ctx.scripts ? { scripts: ctx.scripts } : {}),
    resolver: ctx.resolver ?? new ExecutableResolver(),
    ...(ctx.ownFiles ? { ownFiles: ctx.ownFiles } : {}),
  });
  const settings = resolveSettings(ctx.approvals, ctx.agentId, ctx.requested, ctx.now, ctx.identity);
  const segments = analysis.segments;
  const flags: Flag[] = analysis.flags.map((f) => ({ ...f }));
  for (const name of Object.keys(ctx.requestEnv ?? {})) {
    const verdict = judgeVariable(platform === "win32" ? name.toUpperCase() : name);
    if (!verdict.ok)
      flags.push({ kind: "dangerous-assignment", detail: `the request sets ${name}: ${verdict.why}` });
  }
  const posixString =
    input.command !== undefined && (input.shell ?? (platform === "win32" ? "cmd" : "posix")) === "posix";
  if (ctx.ownFiles) {
    const why = namesOwnFiles(input.command ?? (input.argv ?? []).join(" "), ctx.ownFiles);
    if (why) flags.push({ kind: "own-files", detail: why });
  }
  if (posixString && ctx.bash === null) {
    flags.push({
      kind: "parse-error",
      detail: "no bash on this machine: a shell string cannot run as it was analysed",
    });
  }

  if (ctx.approvals.status === "ok") {
    const compiled = compileAllowlist(ctx.approvals.file, ctx.agentId, { home: ctx.home, platform });
    const p = platform === "win32" ? path.win32 : path.posix;
    for (const segment of segments) {
      if (segment.builtin) continue; // nothing to match: covered by what it is
      const cwd = segment.chdir ? p.resolve(ctx.cwd, segment.chdir) : ctx.cwd;
      const match = matchSegment(compiled, segment, {
        cwd,
        now: ctx.now,
        platform,
        ...(ctx.identity === "unproven" ? { unproven: true } : {}),
      });
      if (match.matched) {
        segment.matchedEntryId = match.matched.entry.id;
        segment.matchedAgentId = match.matched.agentId;
        // an entry without an argPattern for a tool that runs or writes by its options grants all of that
        if (!match.matched.argRe && grantsMoreThanItsName(commandBaseName(segment.executable, platform)))
          segment.broadGrant = `entry ${match.matched.entry.id} allows ${segment.executable} with any arguments`;
      } else {
        segment.missReason = match.missReason;
      }
    }
    // Inline code, a tool's risky options and a read of a protected folder are covered only by an entry
    // whose argPattern matched literal arguments: a grant of exactly that.
    for (const flag of flags) {
      if (!COVERABLE.has(flag.kind) || flag.segment === undefined) continue;
      const segment = segments[flag.segment];
      const entryId = segment?.matchedEntryId;
      if (!segment || !entryId || segment.dynamicArgs) continue;
      const entry = compiled.entries.find((c) => c.entry.id === entryId);
      if (entry?.argRe) flag.coveredBy = entryId;
    }
  } else {
    const why =
      ctx.approvals.status === "missing"
        ? "the approvals file does not exist yet"
        : "the approvals file is invalid";
    for (const segment of segments) segment.missReason = why;
  }

  const blocking = flags.filter((f) => !f.coveredBy);
  const allowlistSatisfied =
    ctx.approvals.status === "ok" &&
    analysis.ok &&
    blocking.length === 0 &&
    segments.every((s) => s.matchedEntryId !== null || s.builtin !== undefined);
  let decision =
    ctx.approvals.status === "invalid"
      ? { outcome: "deny" as const, reason: "approvals-file-invalid" }
      : settings.loosening
        ? { outcome: "deny" as const, reason: loosenedReason(settings.loosening) }
        : decide(settings, allowlistSatisfied);
  // Gatehouse's own folder needs a person whatever the settings: under security=full (or elevated) too.
  const own = blocking.find((f) => f.kind === "own-files");
  if (own && decision.outcome === "run")
    decision = ownFilesDecision(settings.ask, `${decision.reason}; ${own.detail}`);

  const inlineUncovered = new Set(blocking.filter((f) => COVERABLE.has(f.kind)).map((f) => f.segment));
  // a segment whose commands cannot be known (stdin scripts, opaque wrappers) gets no lasting grant
  const unknowable = new Set(blocking.filter((f) => f.kind === "dynamic-command").map((f) => f.segment));
  const proposedEntries = proposeEntries(
    segments,
    (segment, index) =>
      !unknowable.has(index) &&
      segment.builtin === undefined &&
      (segment.matchedEntryId === null || inlineUncovered.has(index)),
    new Set(blocking.filter((f) => f.kind === "protected-files").map((f) => f.segment)),
  );
  const matchedEntryIds: string[] = [];
  if (allowlistSatisfied) {
    for (const s of segments)
      if (s.matchedEntryId !== null && !matchedEntryIds.includes(s.matchedEntryId))
        matchedEntryIds.push(s.matchedEntryId);
  }

  // A command one wrong run of which cannot be undone, far beyond the task, is offered "allow once" only.
  const withheld = standingRuleUnwise(shown, segments, { home: ctx.env.HOME || ctx.home, cwd: ctx.cwd });
  return {
    outcome: decision.outcome,
    reason: decision.reason,
    matchedEntryIds,
    security: settings.security,
    ask: settings.ask,
    askFallback: settings.askFallback,
    sources: settings.sources,
    ...(settings.elevatedUntil !== undefined ? { elevatedUntil: settings.elevatedUntil } : {}),
    ...(ctx.requested ? { requested: { ...ctx.requested } } : {}),
    agentId: ctx.agentId,
    ...(ctx.identity ? { identity: ctx.identity } : {}),
    cwd: ctx.cwd,
    command: shown,
    flags: [...new Set(blocking.map((f) => f.kind))],
    flagDetails: flags,
    segments,
    allowlistSatisfied,
    approvalsFile: approvalsFileSummary(ctx.approvals),
    proposedEntries,
    allowAlwaysAvailable:
      decision.outcome === "prompt" &&
      settings.ask !== "always" &&
      proposedEntries.length > 0 &&
      withheld === null,
    ...(withheld !== null ? { allowAlwaysWithheld: withheld } : {}),
  };
}

function approvalsFileSummary(state: ApprovalsState): Explanation["approvalsFile"] {
  if (state.status === "invalid") return { path: state.path, status: "invalid", error: state.error };
  return { path: state.path, status: state.status };
}
