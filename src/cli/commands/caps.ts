// `gatehouse caps report|status`: the heartbeat capability block, and the manifest with the last
// sync's per-item results (device-protocol.md §5, §7). Read-only: nothing is written.
import {
  buildCapabilityReport,
  loadManifest,
  readLastSync,
  type CapabilityReport,
  type LastSyncRecord,
} from "../../core/capabilities/index.js";
import { parseCommandArgs } from "../args.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = "gatehouse caps report|status [--json]";

function parse(args: string[]) {
  return parseCommandArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false } },
  });
}

function printReport(ctx: CliContext, report: CapabilityReport): void {
  printLine(ctx, `Capabilities: revision ${report.revision}, last sync ${report.last_sync_at ?? "never"}`);
  printLine(ctx, `Digest: ${report.digest}`);
  printLine(ctx, `Skills (${report.skills.length}):`);
  for (const s of report.skills) printLine(ctx, `  ${s.name}  [${s.source}]`);
  printLine(ctx, `Plugins (${report.plugins.length}):`);
  for (const p of report.plugins) {
    printLine(ctx, `  ${p.name}@${p.marketplace}${p.version ? ` ${p.version}` : ""}  [${p.source}]`);
  }
  printLine(ctx, `MCP servers (${report.mcps.length}):`);
  for (const m of report.mcps) printLine(ctx, `  ${m.name}`);
}

function printLastSync(ctx: CliContext, last: LastSyncRecord | null): void {
  if (!last) {
    printLine(ctx, "Last sync: none recorded");
    return;
  }
  const outcome = last.success
    ? "succeeded"
    : `failed (${last.errors.length} error${last.errors.length === 1 ? "" : "s"})`;
  printLine(ctx, `Last sync: ${last.finished_at}, ${last.mode}, revision ${last.revision}, ${outcome}`);
  const rows: [string, LastSyncRecord["skills"]][] = [
    ["skill", last.skills],
    ["plugin", last.plugins],
    ["mcp", last.mcps],
  ];
  for (const [kind, items] of rows) {
    for (const item of items) {
      printLine(ctx, `  ${kind} ${item.name}: ${item.status}${item.error ? ` — ${item.error}` : ""}`);
    }
  }
  const removals = last.errors.filter(
    (e) =>
      !rows.some(
        ([kind, items]) => kind === e.kind && items.some((i) => i.name === e.name && i.status === "failed"),
      ),
  );
  for (const e of removals) printLine(ctx, `  removing ${e.kind} ${e.name} failed — ${e.error}`);
}

async function status(ctx: CliContext, json: boolean): Promise<number> {
  const manifestFile = ctx.paths.capabilityManifest;
  const loaded = await loadManifest(manifestFile);
  const last = await readLastSync(ctx.paths.capabilitiesDir);
  if (json) {
    printJson(ctx, {
      manifest_path: manifestFile,
      manifest: loaded.ok ? loaded.manifest : null,
      ...(!loaded.ok && { manifest_error: loaded.error }),
      last_sync: last,
    });
    return loaded.ok ? 0 : 1;
  }
  if (!loaded.ok) {
    ctx.stderr.write(`${loaded.error}\n`);
  } else {
    const m = loaded.manifest;
    printLine(ctx, `Manifest: ${manifestFile}`);
    printLine(
      ctx,
      `  revision ${m.revision}, last sync ${m.last_sync_at ?? "never"}; ${Object.keys(m.skills).length} skills, ` +
        `${Object.keys(m.plugins).length} plugins, ${Object.keys(m.mcps).length} MCP servers`,
    );
  }
  printLastSync(ctx, last);
  return loaded.ok ? 0 : 1;
}

export const command: CommandSpec = {
  name: "caps",
  summary: "Capability report and sync status",
  usage: USAGE,
  run: async (args, ctx) => {
    const { values, positionals } = parse(args);
    const [sub, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (sub === "report") {
      const report = await buildCapabilityReport(ctx.paths);
      if (values.json) printJson(ctx, report);
      else printReport(ctx, report);
      return 0;
    }
    if (sub === "status") return status(ctx, values.json === true);
    throw new UsageError(sub ? `unknown subcommand "${sub}"` : "a subcommand is required");
  },
};
