// `gatehouse skills list|index|check|rescan`: the skill catalogue from the command line (skills.md §7,
// §8, §11). The same engine the app and agent runs use, built over this home.
import path from "node:path";
import { writeFileAtomic, formatJson, readJsonFile } from "../../core/store/index.js";
import {
  SkillCatalogue,
  parseSkillRuntime,
  renderIndex,
  rescanAnswerFile,
  rescanRequestFile,
  RescanAnswerSchema,
  runtimeIndexEntries,
  tokenEstimate,
  type Catalogue,
  type SkillEntry,
} from "../../core/skills/index.js";
import { resolvePaths } from "../../core/paths.js";
import { bundledSkillsRoot } from "../../core/skills/bundled-root.js";
import { createSecretStore } from "../../secrets/secret-store.js";
import { parseCommandArgs } from "../args.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = [
  "gatehouse skills list [--workspace DIR] [--agent claude|codex] [--json]",
  "       gatehouse skills index [--workspace DIR] [--agent claude|codex] [--json]",
  "       gatehouse skills check NAME [--workspace DIR] [--json]",
  "       gatehouse skills rescan [--workspace DIR] [--json]",
  "       gatehouse skills mcp --task ID [--executor-home DIR]   (a task agent's Skill tool, stdio MCP)",
].join("\n");

const OPTIONS = {
  workspace: { type: "string" },
  agent: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

function engineFor(ctx: CliContext): SkillCatalogue {
  return new SkillCatalogue({
    paths: ctx.paths,
    env: ctx.env,
    secrets: createSecretStore({ paths: ctx.paths, logger: ctx.logger }),
    logger: ctx.logger,
    bundledRoot: bundledSkillsRoot(),
  });
}

function parse(args: string[]) {
  return parseCommandArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

function workspaceOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value.trim() === "") throw new UsageError("--workspace needs a folder");
  return path.resolve(value);
}

function runtimeOf(value: string | undefined) {
  if (value === undefined) return null;
  const runtime = parseSkillRuntime(value);
  if (!runtime) throw new UsageError(`unknown agent "${value}" (use claude or codex)`);
  return runtime;
}

/** One status word per entry, as the browser shows it. */
function statusOf(entry: SkillEntry): string {
  if (!entry.valid) return "invalid";
  if (entry.shadowed_by !== null) return "shadowed";
  if (!entry.eligible) return "ineligible";
  if (!entry.offered) return "user-only";
  return "offered";
}

function printTable(ctx: CliContext, catalogue: Catalogue): void {
  if (catalogue.skills.length === 0) {
    printLine(ctx, "No skills found.");
  }
  const rows = catalogue.skills.map((e) => [e.name, statusOf(e), e.source, e.path]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length), 4));
  for (const row of rows) {
    printLine(ctx, row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join("  "));
  }
  for (const entry of catalogue.skills) {
    const problems = [...entry.errors, ...entry.reasons];
    if (problems.length > 0) printLine(ctx, `  ${entry.name} (${entry.path}): ${problems.join("; ")}`);
  }
  const { index } = catalogue;
  printLine(
    ctx,
    `${catalogue.skills.length} skill folders, ${index.count} offered; index ${index.cost_chars} characters (~${index.cost_tokens} tokens)`,
  );
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const runtime = runtimeOf(values.agent);
  const catalogue = await engineFor(ctx).buildCatalogue({ workspace: workspaceOf(values.workspace) });
  const output: Catalogue & { runtime_index?: unknown } = catalogue;
  if (runtime) {
    const entries = runtimeIndexEntries(
      catalogue.skills.filter((e) => e.offered),
      runtime,
    );
    const { costChars } = renderIndex(entries);
    output.runtime_index = {
      agent: runtime,
      count: entries.length,
      names: entries.map((e) => e.name),
      cost_chars: costChars,
      cost_tokens: tokenEstimate(costChars),
    };
  }
  if (values.json) printJson(ctx, output);
  else printTable(ctx, catalogue);
  return 0;
}

async function index(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const runtime = runtimeOf(values.agent);
  const catalogue = await engineFor(ctx).buildCatalogue({ workspace: workspaceOf(values.workspace) });
  const offered = catalogue.skills.filter((e) => e.offered);
  const entries = runtime ? runtimeIndexEntries(offered, runtime) : offered;
  const { text, costChars } = renderIndex(entries);
  const result = {
    version: catalogue.version,
    workspace: catalogue.workspace,
    agent: runtime,
    count: entries.length,
    names: entries.map((e) => e.name),
    cost_chars: costChars,
    cost_tokens: tokenEstimate(costChars),
    text,
  };
  if (values.json) printJson(ctx, result);
  else {
    // The prompt text alone on stdout (so it can be piped); the cost on stderr.
    if (text !== "") ctx.stdout.write(`${text}\n`);
    ctx.stderr.write(`${entries.length} skills, ${costChars} characters (~${result.cost_tokens} tokens)\n`);
  }
  return 0;
}

async function check(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args);
  const [name, ...rest] = positionals;
  if (!name) throw new UsageError("skills check needs a skill NAME");
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const catalogue = await engineFor(ctx).buildCatalogue({ workspace: workspaceOf(values.workspace) });
  const entries = catalogue.skills.filter((e) => e.name === name);
  const winner = entries.find((e) => e.valid && e.shadowed_by === null) ?? null;
  const eligible = winner?.eligible === true;
  let reasons: string[];
  if (winner) reasons = winner.reasons;
  else if (entries.length > 0)
    reasons = [`no valid entry: ${entries.map((e) => `${e.path}: ${e.errors.join("; ")}`).join(" | ")}`];
  else reasons = [`unknown skill: ${name}`];
  const result = {
    name,
    found: entries.length > 0,
    eligible,
    offered: winner?.offered === true,
    reasons,
    winner,
    entries,
  };
  if (values.json) printJson(ctx, result);
  else if (!winner) {
    printLine(ctx, `${name}: not eligible`);
    for (const reason of reasons) printLine(ctx, `  ${reason}`);
  } else {
    const state = eligible
      ? winner.offered
        ? "eligible, offered to agents"
        : "eligible, not offered to agents"
      : "not eligible";
    printLine(ctx, `${name}: ${state}`);
    printLine(ctx, `  ${winner.source} ${winner.skill_file}`);
    for (const reason of reasons) printLine(ctx, `  - ${reason}`);
    for (const warning of winner.warnings) printLine(ctx, `  warning: ${warning}`);
    for (const other of entries.filter((e) => e !== winner)) {
      const why = other.valid
        ? `shadowed by ${other.shadowed_by ?? "?"}`
        : `invalid: ${other.errors.join("; ")}`;
      printLine(ctx, `  also ${other.path} (${why})`);
    }
  }
  return eligible ? 0 : 1;
}

async function rescan(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const catalogue = await engineFor(ctx).buildCatalogue({ workspace: workspaceOf(values.workspace) });
  // A running Gatehouse watches this file and rescans its own catalogue when it changes.
  const requestedAt = Date.now();
  await writeFileAtomic(rescanRequestFile(ctx.paths), formatJson({ requested_at: requestedAt }));
  const summary = {
    requested_at: requestedAt,
    skills: catalogue.skills.length,
    offered: catalogue.index.count,
    invalid: catalogue.skills.filter((e) => !e.valid).length,
    roots: catalogue.roots.filter((r) => r.exists).length,
  };
  const running = await waitForRescanAnswer(ctx, requestedAt);
  if (values.json) printJson(ctx, { ...summary, running });
  else {
    const runner =
      running === null
        ? "No running Gatehouse answered within 3 s; the next one that starts reads the skills afresh."
        : `The running Gatehouse rescanned: ${running.changed ? "its catalogue changed" : "nothing changed for it"}; the next task sees this.`;
    printLine(
      ctx,
      `Rescanned ${summary.roots} skill roots: ${summary.skills} skill folders, ${summary.offered} offered, ${summary.invalid} invalid. ${runner}`,
    );
  }
  return 0;
}

const RESCAN_ANSWER_WAIT_MS = 3_000;

/** The running engine's answer to this request, or null when none came (no Gatehouse runs here). */
async function waitForRescanAnswer(
  ctx: CliContext,
  requestedAt: number,
): Promise<{ changed: boolean; version: number } | null> {
  const deadline = Date.now() + RESCAN_ANSWER_WAIT_MS;
  for (;;) {
    const answer = await readJsonFile(rescanAnswerFile(ctx.paths), RescanAnswerSchema);
    if (answer.status === "ok" && answer.value.requested_at === requestedAt) {
      return { changed: answer.value.changed, version: answer.value.version };
    }
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function mcp(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args,
    options: { task: { type: "string" }, "executor-home": { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const task = values.task?.trim() ?? "";
  if (!/^[0-9]{1,20}$/.test(task)) throw new UsageError("--task needs the task id (digits)");
  // Loaded only here: nothing else pulls the MCP code in.
  const { serveSkillMcp } = await import("../skills-mcp.js");
  const home = values["executor-home"]?.trim();
  const paths = home ? resolvePaths({ ...ctx.env, WEGENT_EXECUTOR_HOME: home }) : ctx.paths;
  return serveSkillMcp({ ...ctx, paths }, { sessionKey: `task:${task}` });
}

const SUBCOMMANDS: Record<string, (args: string[], ctx: CliContext) => Promise<number>> = {
  list,
  index,
  check,
  rescan,
  mcp,
};

export const command: CommandSpec = {
  name: "skills",
  summary: "List, index and check the skill catalogue",
  usage: USAGE,
  run: async (args, ctx) => {
    const [sub, ...rest] = args;
    if (!sub) throw new UsageError("missing subcommand (list, index, check, rescan or mcp)");
    const handler = SUBCOMMANDS[sub];
    if (!handler) throw new UsageError(`unknown subcommand "${sub}" (use list, index, check, rescan or mcp)`);
    return handler(rest, ctx);
  },
};
