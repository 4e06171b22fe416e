// `gatehouse elevate`: elevated mode (seed 004 `/elevated`) — security=full for one agent or every agent,
// for a limited time. It ends by itself at its time, with `gatehouse elevate off`, and when Gatehouse
// (the tray app or `gatehouse serve`) starts again. Only a person starts it: the backend cannot.
import { activeElevation } from "../../core/policy/resolve-settings.js";
import { AuditLog } from "../../executor/audit-log.js";
import { endElevation, MAX_ELEVATION_MS, startElevation } from "../../executor/elevation.js";
import { nonEmptyOption, parseCommandLine } from "../args.js";
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
  "gatehouse elevate [--agent ID] --for DURATION [--json]   security=full until it ends (e.g. --for 15m)",
  "       gatehouse elevate off [--agent ID] [--json]          end it now (every agent without --agent)",
  "       gatehouse elevate status [--json]                    what is elevated, and until when",
  "",
  "DURATION is a number with s, m or h (at most 8h). Default agent: * (every agent).",
  "Elevation ends at its time and whenever Gatehouse starts again; ask=always still asks.",
].join("\n");

export { MAX_ELEVATION_MS };

/** `15m`, `90s`, `1h` → milliseconds (a UsageError otherwise). */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})(s|m|h)$/.exec(text.trim());
  if (!match) throw new UsageError(`--for must be a number with s, m or h (e.g. 15m), got "${text}"`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "s" | "m" | "h"];
  const ms = Number(match[1]) * unit;
  if (ms <= 0 || ms > MAX_ELEVATION_MS) throw new UsageError("--for must be above 0 and at most 8h");
  return ms;
}

function whoText(agentId: string): string {
  return agentId === "*" ? "every agent" : `agent ${agentId}`;
}

function untilText(until: number, now: number): string {
  const minutes = Math.max(1, Math.round((until - now) / 60_000));
  return `${new Date(until).toISOString()} (${minutes} min from now)`;
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandLine(args, ["agent", "json"], { for: { type: "string" } });
  const [sub, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected "${extra.join(" ")}"`);
  const store = approvalsStoreAt(ctx.paths);
  const now = Date.now();
  const json = values.json === true;
  // Every start and end is an audit line (Activity shows it), like the app's and the tray's.
  const elevation = () => ({
    approvals: store,
    audit: new AuditLog({ path: ctx.paths.audit }),
    now: Date.now,
  });

  if (sub === "status") {
    const state = await store.load();
    if (state.status === "invalid") {
      ctx.stderr.write(`gatehouse elevate: ${state.error}\n`);
      return EXIT_APPROVALS_INVALID;
    }
    const running =
      state.status === "ok"
        ? Object.entries(state.file.elevated ?? {})
            .filter(([, e]) => e.until > now)
            .map(([agentId, e]) => ({ agentId, until: e.until, since: e.since, by: e.by ?? null }))
        : [];
    if (json) printJson(ctx, { elevated: running });
    else if (running.length === 0) printLine(ctx, "Nothing is elevated.");
    else
      for (const e of running)
        printLine(
          ctx,
          `Elevated: ${whoText(e.agentId)} runs with security=full until ${untilText(e.until, now)}`,
        );
    return 0;
  }

  if (sub === "off") {
    if (values.for !== undefined) throw new UsageError("`elevate off` takes no --for");
    const agentId = values.agent === undefined ? undefined : nonEmptyOption("agent", values.agent);
    const ended = await endElevation(elevation(), { ...(agentId ? { agentId } : {}), by: "cli" });
    ctx.logger.debug("elevated mode ended by the CLI", { agents: ended });
    if (json) printJson(ctx, { ended });
    else
      printLine(
        ctx,
        ended.length
          ? `Elevation ended for ${ended.map(whoText).join(", ")}; the policy applies again.`
          : "Nothing was elevated.",
      );
    return 0;
  }

  if (sub !== undefined) throw new UsageError(`unknown subcommand "${sub}" (off, status)`);
  if (values.for === undefined) throw new UsageError("give how long with --for (e.g. --for 15m)");
  const agentId = nonEmptyOption("agent", values.agent, "*");
  const started = await startElevation(elevation(), {
    agentId,
    forMs: parseDuration(values.for),
    by: "cli",
  });
  const until = started.until;
  ctx.logger.debug("elevated mode started by the CLI", { agentId, until });
  const state = await store.load();
  const effective = activeElevation(state, agentId, now);
  if (json)
    printJson(ctx, {
      agentId,
      until,
      since: started.since,
      by: "cli",
      effectiveUntil: effective?.until ?? until,
    });
  else {
    printLine(ctx, `Elevated: ${whoText(agentId)} runs with security=full until ${untilText(until, now)}.`);
    printLine(ctx, "Every command run meanwhile is audited as elevated. End it early: gatehouse elevate off");
  }
  return 0;
}

export const command: CommandSpec = {
  name: "elevate",
  summary: "Elevated mode: security=full for a limited time (off, status)",
  usage: USAGE,
  run,
};
