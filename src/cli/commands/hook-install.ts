// `gatehouse hook install|uninstall claude|codex [--dry-run] [--json]`: the gate for the user's own agent
// sessions (outside Gatehouse's tasks), in the fastest form that stays safe there (docs/decisions.md "The
// hook in the user's own sessions"): the PreToolUse command hook. The HTTP hook is for tasks only — its
// per-task token is revoked when the task ends; in the user's settings it would be a standing credential.
// Claude Code: one entry is added to (or removed from) the user's settings.json; everything else in the
// file is kept, the write is atomic, and the file as it was is kept once beside it. Codex: its
// config.toml is the user's and Gatehouse never writes it; the lines to add are printed.
import fs from "node:fs/promises";
import path from "node:path";
import { blockingCommandLine, hookTimeoutSeconds } from "../../core/runtime/agent-hook.js";
import { tomlString } from "../../core/runtime/toml-value.js";
import { writeFileAtomic } from "../../core/store/atomic-write.js";
import { defaultGatehouseCommand } from "../../executor/tasks/gatehouse-command.js";
import { parseCommandLine } from "../args.js";
import { printJson, printLine, UsageError, type CliContext } from "../context.js";

/** The prompt timeout of the user's own sessions (the hook's default, `hook.ts`). */
const USER_SESSION_PROMPT_MS = 120_000;
/** Where the user's settings as they were before the first install are kept (never overwritten). */
const BACKUP_SUFFIX = ".before-gatehouse";

interface InstallReport {
  runtime: "claude" | "codex";
  action: "install" | "uninstall";
  form: "command";
  reason: string;
  file: string;
  /** Whether the file was (or, with --dry-run, would be) changed. */
  changed: boolean;
  dryRun: boolean;
  backup: string | null;
  /** For Codex: what to add to config.toml by hand. */
  instructions: string | null;
}

const REASON =
  "the PreToolUse command hook: it asks the running Gatehouse over the approval socket (token, HMAC and nonce in files only the gate can read), so no standing credential sits in the agent's settings; the faster HTTP hook is used for Gatehouse's own tasks, whose token ends with the task";

function hookCommandLine(runtime: "claude" | "codex"): string {
  // Any failure (a crash before Gatehouse starts, a kill) blocks the call, as for the tasks' hook.
  return blockingCommandLine([...defaultGatehouseCommand(), "hook", runtime]);
}

/** Whether a hook entry is Gatehouse's: its command runs `… hook claude`. */
function isGatehouseEntry(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const hooks = (entry as { hooks?: unknown }).hooks;
  return (
    Array.isArray(hooks) &&
    hooks.some(
      (h: unknown) =>
        typeof h === "object" &&
        h !== null &&
        typeof (h as { command?: unknown }).command === "string" &&
        /(^|[/'\s])gatehouse(\.js)?'? hook claude( |$)/.test((h as { command: string }).command),
    )
  );
}

type Settings = Record<string, unknown> & { hooks?: Record<string, unknown> };

async function readUserSettings(file: string): Promise<{ text: string | null; settings: Settings }> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: null, settings: {} };
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}; nothing was changed`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${file} is not valid JSON (${(error as Error).message}); fix it first — nothing was changed`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${file} does not hold a JSON object; fix it first — nothing was changed`);
  const hooks = (parsed as Settings).hooks;
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)))
    throw new UsageError(`${file}: "hooks" is not an object; fix it first — nothing was changed`);
  const pre = hooks?.PreToolUse;
  if (pre !== undefined && !Array.isArray(pre))
    throw new UsageError(`${file}: "hooks.PreToolUse" is not a list; fix it first — nothing was changed`);
  return { text, settings: parsed as Settings };
}

/** The settings with Gatehouse's entry added or removed; null when nothing changes. */
function edited(settings: Settings, action: "install" | "uninstall"): Settings | null {
  const pre = (settings.hooks?.PreToolUse as unknown[] | undefined) ?? [];
  const ours = pre.filter(isGatehouseEntry);
  if (action === "install") {
    if (ours.length > 0) return null;
    const entry = {
      matcher: "*",
      hooks: [
        {
          type: "command",
          command: hookCommandLine("claude"),
          timeout: hookTimeoutSeconds(USER_SESSION_PROMPT_MS),
        },
      ],
    };
    return { ...settings, hooks: { ...settings.hooks, PreToolUse: [...pre, entry] } };
  }
  if (ours.length === 0) return null;
  const rest = pre.filter((e) => !isGatehouseEntry(e));
  const hooks: Record<string, unknown> = { ...settings.hooks, PreToolUse: rest };
  if (rest.length === 0) delete hooks.PreToolUse;
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

async function claude(
  ctx: CliContext,
  action: "install" | "uninstall",
  dryRun: boolean,
): Promise<InstallReport> {
  const file = path.join(ctx.paths.claudeHome, "settings.json");
  const { text, settings } = await readUserSettings(file);
  const next = edited(settings, action);
  const report: InstallReport = {
    runtime: "claude",
    action,
    form: "command",
    reason: REASON,
    file,
    changed: next !== null,
    dryRun,
    backup: null,
    instructions: null,
  };
  if (next === null || dryRun) return report;
  if (text !== null) {
    const backup = file + BACKUP_SUFFIX;
    // `wx`: the first install's copy is the user's file as it was; it is never overwritten.
    await fs.writeFile(backup, text, { flag: "wx", mode: 0o600 }).then(
      () => (report.backup = backup),
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
        report.backup = backup;
      },
    );
  } else await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return report;
}

function codex(ctx: CliContext, action: "install" | "uninstall", dryRun: boolean): InstallReport {
  const file = path.join(ctx.paths.codexHome, "config.toml");
  const command = tomlString(hookCommandLine("codex")) ?? "";
  // The same hook the tasks get (codex-spec.ts), as config.toml lines; Codex asks the user to trust it once.
  const lines = [
    "[features]",
    "hooks = true",
    "",
    "[[hooks.PreToolUse]]",
    'matcher = "*"',
    `hooks = [{ type = "command", command = ${command}, timeout = ${hookTimeoutSeconds(USER_SESSION_PROMPT_MS)} }]`,
  ].join("\n");
  return {
    runtime: "codex",
    action,
    form: "command",
    reason: REASON,
    file,
    changed: false,
    dryRun,
    backup: null,
    instructions:
      action === "install"
        ? `Gatehouse never writes ${file} (it is yours). Add these lines to it:\n${lines}`
        : `Gatehouse never writes ${file} (it is yours). Remove the [[hooks.PreToolUse]] entry that runs "gatehouse hook codex".`,
  };
}

export async function runHookInstall(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommandLine(args, ["json"], { "dry-run": { type: "boolean", default: false } });
  const [action, runtime, ...rest] = parsed.positionals;
  if (
    (action !== "install" && action !== "uninstall") ||
    (runtime !== "claude" && runtime !== "codex") ||
    rest.length > 0
  )
    throw new UsageError("gatehouse hook install|uninstall claude|codex [--dry-run] [--json]");
  const dryRun = parsed.values["dry-run"];
  const report = runtime === "claude" ? await claude(ctx, action, dryRun) : codex(ctx, action, dryRun);
  if (parsed.values.json) {
    printJson(ctx, report);
    return 0;
  }
  if (report.instructions) printLine(ctx, report.instructions);
  else if (!report.changed)
    printLine(
      ctx,
      `${report.file}: Gatehouse's hook is ${action === "install" ? "already there" : "not there"}; nothing changed.`,
    );
  else
    printLine(
      ctx,
      `${dryRun ? "Would " : ""}${action === "install" ? "add" : "remove"} Gatehouse's ${report.form} hook ${action === "install" ? "to" : "from"} ${report.file}` +
        `${report.backup ? ` (your file as it was: ${report.backup})` : ""}. Why this form: ${report.reason}.`,
    );
  return 0;
}
