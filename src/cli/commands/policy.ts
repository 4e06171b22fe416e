// `gatehouse policy explain`: how the exec policy would decide a command, and why (exec-policy.md
// "Explaining"). Reads the approvals file but never creates or changes it.
// Exit status: 0 when an explanation was produced (whatever the outcome), 2 for bad usage, 3 when the
// approvals file is invalid (the outcome is then `deny`), so scripts notice a broken policy.
import { findBash } from "../../executor/shells.js";
import { explainCommand, ownFilesOf, type Explanation, type Segment } from "../../core/policy/index.js";
import { existingFolderOption, nonEmptyOption, parseCommandLine, requestedSettingsOption } from "../args.js";
import { approvalsStoreAt } from "../../core/approvals/index.js";
import {
  EXIT_APPROVALS_INVALID,
  printJson,
  printLine,
  UsageError,
  type CliContext,
  type CommandSpec,
} from "../context.js";

const USAGE = [
  "gatehouse policy explain [--agent ID] [--unproven] [--cwd DIR] [--shell] [--security S] [--ask A] [--json] -- COMMAND…",
  "",
  "--shell joins the words into one shell string; without it they are an argv. Default agent: local.",
  "--unproven explains a socket request that only claims --agent (no task proof): the least-trusted agent.",
  "--security/--ask explain a request that asks for those settings (they may only tighten).",
  "Exit status: 0 explained (whatever the outcome), 2 bad usage, 3 the approvals file is invalid.",
].join("\n");

async function run(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandLine(
    args,
    ["agent", "cwd", "shell", "json", "security", "ask"],
    { unproven: { type: "boolean", default: false } },
  );
  const [sub, ...words] = positionals;
  if (sub !== "explain")
    throw new UsageError(sub ? `unknown subcommand "${sub}"` : "missing subcommand explain");
  if (words.length === 0) throw new UsageError("give the command to explain after --");
  const agentId = nonEmptyOption("agent", values.agent, "local");
  const requested = requestedSettingsOption(values);
  const cwd = existingFolderOption(values.cwd ?? ".");
  const store = approvalsStoreAt(ctx.paths);
  const approvals = await store.load();
  const explanation = await explainCommand(values.shell ? { command: words.join(" ") } : { argv: words }, {
    agentId,
    cwd,
    env: ctx.env,
    home: ctx.paths.home,
    approvals,
    now: Date.now(),
    ownFiles: ownFilesOf(ctx.paths),
    ...(Object.keys(requested).length > 0 ? { requested } : {}),
    ...(values.unproven ? { identity: "unproven" as const } : {}),
    // a string runs under the bash `gatehouse exec --shell` would use (never covered where there is none)
    ...(values.shell ? { bash: await findBash() } : {}),
  });
  if (values.json) printJson(ctx, explanation);
  else printExplanation(ctx, explanation);
  if (approvals.status === "invalid") {
    if (!values.json) ctx.stderr.write(`gatehouse policy: ${approvals.error}\n`);
    return EXIT_APPROVALS_INVALID;
  }
  return 0;
}

function describeSegment(segment: Segment): string[] {
  const lines = [`${segment.argv.join(" ")}${segment.context === "top" ? "" : `   [${segment.context}]`}`];
  if (segment.builtin) {
    lines.push(`   covered: ${segment.builtin}`);
    return lines;
  }
  if (segment.resolvedPath) {
    const via = segment.foundVia === "path" ? "found on PATH" : `${segment.foundVia} path`;
    lines.push(`   runs ${segment.resolvedPath} (${via})${segment.wrapper ? ", a wrapper" : ""}`);
  } else {
    lines.push(`   not resolved: ${segment.resolveError ?? "unknown"}`);
  }
  lines.push(
    segment.matchedEntryId
      ? `   covered by entry ${segment.matchedEntryId} (agents.${segment.matchedAgentId ?? "?"})`
      : `   not covered: ${segment.missReason ?? "no entry matches"}`,
  );
  // a tool that runs programs or writes files by its options, granted without an argPattern
  if (segment.broadGrant) lines.push(`   broad grant: ${segment.broadGrant}`);
  return lines;
}

function printExplanation(ctx: CliContext, e: Explanation): void {
  printLine(ctx, `Outcome: ${e.outcome} (${e.reason})`);
  printLine(
    ctx,
    `Settings for agent ${e.agentId}${e.identity === "unproven" ? " (unproven: the least-trusted agent's)" : ""}: security=${e.security} (${e.sources.security}), ask=${e.ask} (${e.sources.ask}), askFallback=${e.askFallback} (${e.sources.askFallback})`,
  );
  if (e.elevatedUntil !== undefined)
    printLine(ctx, `Elevated: security=full until ${new Date(e.elevatedUntil).toISOString()}`);
  printLine(ctx, `Approvals file: ${e.approvalsFile.path} (${e.approvalsFile.status})`);
  printLine(ctx, `Working folder: ${e.cwd}`);
  printLine(ctx, e.segments.length ? "Segments:" : "Segments: none");
  e.segments.forEach((segment, i) => {
    const [first, ...rest] = describeSegment(segment);
    printLine(ctx, `  ${i + 1}. ${first}`);
    for (const line of rest) printLine(ctx, `  ${line}`);
  });
  if (e.flagDetails.length) {
    printLine(ctx, "Flags (need a person even when every segment is covered):");
    for (const flag of e.flagDetails) {
      printLine(
        ctx,
        `  - ${flag.kind}: ${flag.detail}${flag.coveredBy ? ` (covered by entry ${flag.coveredBy})` : ""}`,
      );
    }
  }
  printLine(ctx, `Allowlist alone covers it: ${e.allowlistSatisfied ? "yes" : "no"}`);
  if (e.outcome === "prompt" && e.proposedEntries.length) {
    printLine(
      ctx,
      e.allowAlwaysAvailable
        ? "Allow always would save:"
        : "Allow always is not offered (ask=always); it would save:",
    );
    for (const p of e.proposedEntries) {
      printLine(ctx, `  ${p.pattern}${p.argPattern ? `  argPattern ${p.argPattern}` : ""}`);
    }
  }
}

export const command: CommandSpec = {
  name: "policy",
  summary: "Explain how the exec policy decides a command",
  usage: USAGE,
  run,
};
