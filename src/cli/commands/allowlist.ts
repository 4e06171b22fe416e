// `gatehouse allowlist list|add|remove`: the allowlists of the approvals file. Entries are validated before
// anything is written: an invalid glob or regex exits 2 with the reason and leaves the file untouched.
// An invalid approvals file exits 3 (as `policy explain` does).
import {
  entryLiveness,
  mcpPattern,
  mcpTargetFromText,
  patternKind,
  validateEntry,
  type AllowlistEntry,
  type NewAllowlistEntry,
  approvalsStoreAt,
} from "../../core/approvals/index.js";
import { resolveExecutable } from "../../core/policy/index.js";
import type { ApprovalsStore } from "../../core/approvals/index.js";
import { nonEmptyOption, parseCommandLine } from "../args.js";
import {
  approvalsFileInvalid,
  printJson,
  printLine,
  UsageError,
  type CliContext,
  type CommandSpec,
} from "../context.js";

const USAGE = [
  "gatehouse allowlist list [--agent ID] [--json]",
  "       gatehouse allowlist add [--agent ID] PATTERN [--arg-pattern RE] [--cwd GLOB]",
  "                               [--expires-in SECONDS | --expires-at MS] [--uses N] [--json]",
  "       gatehouse allowlist add [--agent ID] --mcp SERVER/TOOL",
  "                               [--expires-in SECONDS | --expires-at MS] [--uses N] [--json]",
  "       gatehouse allowlist remove [--agent ID] ID [--json]",
].join("\n");

function parse(args: string[]) {
  return parseCommandLine(args, ["agent", "cwd", "json"], {
    "arg-pattern": { type: "string" },
    mcp: { type: "string" },
    "expires-in": { type: "string" },
    "expires-at": { type: "string" },
    uses: { type: "string" },
  });
}

type Values = ReturnType<typeof parse>["values"];

function wholeNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--${option} must be a whole number ≥ 0, not "${text}"`);
  }
  return Number(text);
}

/** The entry `add` would save, validated; throws UsageError with the reason when it is not valid. */
function entryFromOptions(pattern: string, values: Values, now: number): NewAllowlistEntry {
  const entry: NewAllowlistEntry = { pattern, source: "cli" };
  if (values["arg-pattern"] !== undefined) entry.argPattern = values["arg-pattern"];
  if (values.cwd !== undefined) entry.cwd = values.cwd;
  if (values["expires-in"] !== undefined && values["expires-at"] !== undefined) {
    throw new UsageError("give either --expires-in or --expires-at, not both");
  }
  const expiresIn = wholeNumber("expires-in", values["expires-in"]);
  const expiresAt = wholeNumber("expires-at", values["expires-at"]);
  if (expiresIn !== undefined) {
    if (expiresIn === 0) throw new UsageError("--expires-in must be at least 1 second");
    entry.expiresAt = now + expiresIn * 1000;
  }
  if (expiresAt !== undefined) entry.expiresAt = expiresAt;
  const uses = wholeNumber("uses", values.uses);
  if (uses !== undefined) {
    if (uses === 0) throw new UsageError("--uses must be at least 1");
    entry.usesLeft = uses;
  }
  const checked = validateEntry(entry);
  if (!checked.ok) throw new UsageError(checked.reason);
  return entry;
}

/** The pattern `add` saves: the one PATTERN, or `mcp:SERVER/TOOL` for `--mcp SERVER/TOOL`. */
function addedPattern(rest: string[], values: Values): string {
  if (values.mcp === undefined) {
    if (rest.length !== 1)
      throw new UsageError("add takes exactly one PATTERN (quote it so the shell leaves it alone)");
    return rest[0] as string;
  }
  if (rest.length > 0) throw new UsageError("give either a PATTERN or --mcp SERVER/TOOL, not both");
  if (values["arg-pattern"] !== undefined || values.cwd !== undefined)
    throw new UsageError("an MCP entry takes no --arg-pattern or --cwd: it covers one tool of one server");
  const target = mcpTargetFromText(values.mcp);
  if ("problem" in target) throw new UsageError(`--mcp ${target.problem}`);
  return mcpPattern(target);
}

function describeEntry(entry: AllowlistEntry, now: number): string {
  const extras = [
    entry.argPattern !== undefined ? `args ${entry.argPattern}` : "",
    entry.cwd !== undefined ? `cwd ${entry.cwd}` : "",
    entry.expiresAt ? `expires ${new Date(entry.expiresAt).toISOString()}` : "",
    typeof entry.usesLeft === "number" ? `${entry.usesLeft} uses left` : "",
    entryLiveness(entry, now) !== "live" ? `(${entryLiveness(entry, now)})` : "",
  ].filter(Boolean);
  return `${entry.id}  ${entry.pattern}${extras.length ? `  ${extras.join(", ")}` : ""}`;
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args);
  const [sub, ...rest] = positionals;
  // add/remove default to `*` (every agent); list without --agent shows every agent's list, labelled.
  const agentId = nonEmptyOption("agent", values.agent, "*");
  const store = approvalsStoreAt(ctx.paths);
  const now = Date.now();
  switch (sub) {
    case "list":
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return list(ctx, store, agentId, values.json === true, now, values.agent === undefined);
    case "add": {
      const entry = entryFromOptions(addedPattern(rest, values), values, now);
      const state = await store.load();
      if (state.status === "invalid") return invalid(ctx, state.error);
      const added = await store.addEntry(agentId, entry);
      if (values.json) printJson(ctx, { agentId, path: store.path, entry: added });
      else printLine(ctx, `Added to ${agentId}: ${describeEntry(added, now)}`);
      return 0;
    }
    case "remove": {
      if (rest.length !== 1) throw new UsageError("remove takes exactly one entry ID");
      const state = await store.load();
      if (state.status === "invalid") return invalid(ctx, state.error);
      const id = rest[0] as string;
      const removed = await store.removeEntry(agentId, id);
      if (values.json) printJson(ctx, { agentId, id, removed });
      else
        printLine(
          ctx,
          removed ? `Removed ${id} from ${agentId}` : `No entry ${id} in the allowlist of ${agentId}`,
        );
      return removed ? 0 : 1;
    }
    default:
      throw new UsageError(sub ? `unknown subcommand "${sub}"` : "missing subcommand: list, add or remove");
  }
}

function invalid(ctx: CliContext, error: string): number {
  return approvalsFileInvalid(ctx, "allowlist", error);
}

async function list(
  ctx: CliContext,
  store: ApprovalsStore,
  agentId: string,
  json: boolean,
  now: number,
  everyAgent = false,
): Promise<number> {
  const state = await store.load();
  if (state.status === "invalid") return invalid(ctx, state.error);
  const shownOf = (id: string) =>
    (state.status === "ok" ? (state.file.agents[id]?.allowlist ?? []) : []).map((entry) => {
      const status = entryLiveness(entry, now);
      if (patternKind(entry.pattern) !== "bare") return { ...entry, status };
      // The editor shows what a bare name resolves to today (exec-policy.md).
      const today = resolveExecutable(entry.pattern, {
        cwd: ctx.paths.home,
        pathEnv: ctx.env.PATH,
        pathExt: ctx.env.PATHEXT,
        home: ctx.paths.home,
        platform: process.platform,
      });
      return { ...entry, status, resolvesTo: today.resolvedPath };
    });
  const shown = shownOf(agentId);
  // Without --agent: the other agents' lists too (`gatehouse exec`/`ask` save to `local`), each labelled.
  const others =
    everyAgent && state.status === "ok"
      ? Object.keys(state.file.agents)
          .filter((id) => id !== agentId && (state.file.agents[id]?.allowlist?.length ?? 0) > 0)
          .sort()
      : [];
  if (json) {
    printJson(ctx, {
      agentId,
      path: store.path,
      fileStatus: state.status,
      entries: shown,
      ...(everyAgent ? { agents: Object.fromEntries(others.map((id) => [id, shownOf(id)])) } : {}),
    });
    return 0;
  }
  printList(ctx, agentId, shown, state.status === "missing", store.path, now);
  for (const id of others) printList(ctx, id, shownOf(id), false, store.path, now);
  if (everyAgent && others.length === 0 && shown.length === 0)
    printLine(ctx, "No agent has allowlist entries (gatehouse exec and ask use agent local).");
  return 0;
}

function agentLabel(agentId: string): string {
  if (agentId === "*") return "* (every agent)";
  if (agentId === "local") return "local (gatehouse exec, ask and the socket by default)";
  return agentId;
}

function printList(
  ctx: CliContext,
  agentId: string,
  shown: (AllowlistEntry & { status: string; resolvesTo?: string | null })[],
  missing: boolean,
  file: string,
  now: number,
): void {
  if (shown.length === 0) {
    printLine(
      ctx,
      `The allowlist of ${agentLabel(agentId)} is empty${missing ? " (no approvals file yet)" : ""}.`,
    );
    return;
  }
  printLine(ctx, `Allowlist of ${agentLabel(agentId)} (${file}):`);
  for (const entry of shown) {
    const resolves = "resolvesTo" in entry ? `  → ${entry.resolvesTo ?? "not found on PATH"}` : "";
    printLine(ctx, `  ${describeEntry(entry, now)}${resolves}`);
  }
}

export const command: CommandSpec = {
  name: "allowlist",
  summary: "List, add or remove allowlist entries",
  usage: USAGE,
  run,
};
