// `gatehouse init`: creates the approvals file (fresh socket token, nothing runs until a mode is chosen)
// or applies a preset to an existing one, keeping its agents, entries and token.
import {
  PRESET_NAMES,
  PRESETS,
  presetChoices,
  type Preset,
  type PresetName,
  approvalsStoreAt,
  presetOfDefaults,
} from "../../core/approvals/index.js";
import { resolveSettings } from "../../core/policy/index.js";
import { parseCommandLine } from "../args.js";
import {
  approvalsFileInvalid,
  printJson,
  printLine,
  UsageError,
  type CliContext,
  type CommandSpec,
} from "../context.js";

const USAGE = `gatehouse init [--preset ${PRESET_NAMES.join("|")}] [--json]`;

function parse(args: string[]) {
  const { values, positionals } = parseCommandLine(args, ["json"], { preset: { type: "string" } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  return values;
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const options = parse(args);
  const preset = options.preset;
  if (preset !== undefined && !(preset in PRESETS)) {
    throw new UsageError(`unknown preset "${preset}"; choose ${presetChoices()}`);
  }
  const store = approvalsStoreAt(ctx.paths);
  const before = await store.load();
  if (before.status === "invalid") {
    return approvalsFileInvalid(ctx, "init", before.error);
  }
  const ensured = await store.ensure();
  if (ensured.status === "invalid") {
    return approvalsFileInvalid(ctx, "init", ensured.error);
  }
  if (preset !== undefined) await store.applyPreset(preset as PresetName);
  const state = await store.load();
  const settings = resolveSettings(state, "*");
  const defaults = state.status === "ok" ? (state.file.defaults ?? {}) : {};
  const report = {
    path: store.path,
    created: before.status === "missing",
    /** The preset agents without settings of their own are in now (a fresh file: Locked); null when none fits. */
    preset: presetOfDefaults(defaults),
    /** The preset this run applied (--preset), else null. */
    applied: preset ?? null,
    /** What an agent without settings of its own gets (agents["*"], else defaults, else built-in). */
    settings: { security: settings.security, ask: settings.ask, askFallback: settings.askFallback },
    sources: settings.sources,
    defaults,
    socketPath: state.status === "ok" ? state.file.socket.path : null,
  };
  if (options.json) {
    printJson(ctx, report);
    return 0;
  }
  printLine(ctx, `${report.created ? "Created" : "Updated"} ${report.path}`);
  printLine(
    ctx,
    `Preset: ${report.preset === null ? "custom settings" : PRESETS[report.preset].label} (security=${settings.security}, ask=${settings.ask}, askFallback=${settings.askFallback})`,
  );
  if (preset === undefined && settings.sources.security === "built-in") {
    printLine(ctx, "No mode chosen yet, so nothing runs. Pick one:");
    for (const name of PRESET_NAMES) {
      const p: Preset = PRESETS[name];
      printLine(
        ctx,
        `  gatehouse init --preset ${name}  ${p.label}${p.recommended ? " (recommended)" : ""}: ${p.description}`,
      );
    }
  }
  return 0;
}

export const command: CommandSpec = {
  name: "init",
  summary: "Write the approvals file with a policy preset",
  usage: USAGE,
  run,
};
