// What a task start would find for each agent CLI — the binary (configured path or PATH lookup), its
// version, whether it is supported, and the form of the gate its tasks get and why — read the way a task
// start reads it (agent-binary.ts, agent-cli-probe.ts, core/runtime/agent-cli.ts). `gatehouse status`
// shows the hook lines; `gatehouse doctor` turns every report into checks with fixes.
import {
  AGENT_CLI_SUPPORT,
  AGENT_COMMAND,
  AGENT_RUNTIMES,
  hookFormFor,
  supportVerdict,
  type HookForm,
  type SupportStatus,
} from "../core/runtime/agent-cli.js";
import type { RuntimeKind } from "../core/runtime/index.js";
import { emptySettings, SettingsFileSchema } from "../core/settings.js";
import { readJsonFile } from "../core/store/index.js";
import { resolveAgentBinary } from "../executor/tasks/agent-binary.js";
import { AgentCliProbe } from "../executor/tasks/agent-cli-probe.js";
import type { CliContext } from "./context.js";

export interface AgentCliReport {
  runtime: RuntimeKind;
  label: string;
  /** What a task would start: the configured path, or the command looked up on PATH. */
  command: string;
  path: string | null;
  version: string | null;
  /** What `--version` printed (first line), or why it could not be read. */
  versionOutput: string | null;
  support: SupportStatus | "missing";
  /** Whether a task may start it. */
  supported: boolean;
  /** Why it is not supported or only tolerated; why it is missing. Null when fully supported. */
  message: string | null;
  range: { oldest: string; newest: string };
  /** The form of the gate tasks of this runtime get, and why; null when no task can start. */
  hook: { form: HookForm; reason: string } | null;
}

export interface AgentCliReports {
  reports: AgentCliReport[];
  /** The settings file could not be read: tasks use the default settings. */
  settingsError: string | null;
}

export async function probeAgentClis(ctx: CliContext): Promise<AgentCliReports> {
  const settingsFile = ctx.paths.settings;
  const read = await readJsonFile(settingsFile, SettingsFileSchema);
  const settings = read.status === "ok" ? read.value : emptySettings();
  // The same lookup and version read as a task start (task-turn.ts), on this shell's PATH.
  const probe = new AgentCliProbe(ctx.env);
  const reports: AgentCliReport[] = [];
  for (const runtime of AGENT_RUNTIMES) {
    const s = AGENT_CLI_SUPPORT[runtime];
    const configured = runtime === "codex" ? settings.agents?.codexPath : settings.agents?.claudePath;
    const command = configured?.trim() || AGENT_COMMAND[runtime];
    const base = { runtime, label: s.label, command, range: { oldest: s.oldest, newest: s.newest } };
    const binary = await resolveAgentBinary({
      runtime,
      command,
      env: ctx.env,
      home: ctx.paths.home,
      settingsFile,
    });
    if (!binary.ok) {
      reports.push({
        ...base,
        path: null,
        version: null,
        versionOutput: null,
        support: "missing",
        supported: false,
        message: binary.message,
        hook: null,
      });
      continue;
    }
    const facts = await probe.probe(runtime, binary.file);
    const verdict = supportVerdict(runtime, binary.file, facts.version, settingsFile);
    reports.push({
      ...base,
      path: binary.file,
      version: facts.version,
      versionOutput: facts.versionOutput,
      support: verdict.status,
      supported: verdict.runs,
      message: verdict.message ?? null,
      hook: verdict.runs ? hookFormFor(facts) : null,
    });
  }
  return { reports, settingsError: read.status === "invalid" ? read.error : null };
}
