// The capability browser's rows (ui.md "Capability browser"): skills from the catalogue, plugins from
// the runtimes' registries, MCP servers from the capability manifest, each with a source badge and a
// status; items the last sync could not install appear too, and a user's item that blocked a sync is
// shown as a conflict. Secrets in MCP definitions are masked before anything leaves this module.
import type { CapabilityManifest, LastSyncRecord, ReportPlugin } from "../core/capabilities/index.js";
import { inspectRuntimePath } from "../core/capabilities/io/links.js";
import { managedKeyOf } from "../core/capabilities/io/claude-plugin-keys.js";
import { manifestPath } from "../core/capabilities/io/manifest.js";
import { normaliseClaudeServer } from "../core/runtime/claude-mcp-config.js";
import { codexMcpOverrides } from "../core/runtime/codex-overrides.js";
import type { InstalledPlugin } from "../core/skills/io/plugin-registry.js";
import type { Catalogue, SkillEntry } from "../core/skills/index.js";
import type {
  CapabilitySource,
  CapabilityStatus,
  McpRow,
  PluginRow,
  RuntimeLink,
  SkillRow,
} from "./contract.js";
import { isRecord } from "../shared/is-record.js";
import { maskSecrets } from "../core/secret-mask.js";
import { mcpProblem, pluginProblem, skillProblem, type ProblemInputs } from "./capability-problems.js";

/** Sync errors that mean "the user's own item is in the way" (device-protocol.md §7.6). */
export function isConflictError(error: string | undefined): boolean {
  return Boolean(
    error &&
    (/occupied by a local user item/.test(error) ||
      /Refusing to traverse managed path symlink/.test(error) ||
      /already registered in Claude Code by the user/.test(error)),
  );
}

export function skillSource(source: string): { source: CapabilitySource; label: string } {
  if (source === "wegent-managed") return { source: "wegent-managed", label: "Wegent-managed" };
  if (source === "user") return { source: "user", label: "local user" };
  if (source === "workspace") return { source: "workspace", label: "workspace" };
  if (source === "codex") return { source: "codex", label: "codex" };
  if (source.startsWith("plugin:")) return { source: "plugin", label: `plugin ${source.slice(7)}` };
  return { source: "extra", label: "extra" };
}

export interface ViewInputs {
  home: string;
  store: string;
  catalogue: Catalogue | null;
  manifest: CapabilityManifest;
  lastSync: LastSyncRecord | null;
  reportPlugins: ReportPlugin[];
  installedPlugins: InstalledPlugin[];
  /** Plugin descriptions read from their plugin.json, by key. */
  pluginDescriptions: Map<string, string>;
  /** Where to look for the paths of a conflict or a failure. */
  problems: ProblemInputs;
}

async function runtimeLink(
  runtime: RuntimeLink["runtime"],
  p: string | undefined,
  inputs: ViewInputs,
  copies: ReadonlySet<string>,
): Promise<RuntimeLink | null> {
  if (!p) return null;
  const full = manifestPath(p, inputs.home);
  const state = await inspectRuntimePath(full, { store: inputs.store, copies }).catch(() => ({
    kind: "user" as const,
  }));
  if (state.kind === "absent") return { path: full, runtime, kind: "missing", target: null };
  if (state.kind === "user") return { path: full, runtime, kind: "user", target: null };
  return { path: full, runtime, kind: state.copy ? "copy" : "link", target: state.target };
}

async function linksOf(
  runtime:
    | { claude_link?: string | undefined; codex_link?: string | undefined; copies?: string[] | undefined }
    | undefined,
  inputs: ViewInputs,
): Promise<RuntimeLink[]> {
  const copies = new Set((runtime?.copies ?? []).map((c) => manifestPath(c, inputs.home)));
  const links = await Promise.all([
    runtimeLink("claude", runtime?.claude_link, inputs, copies),
    runtimeLink("codex", runtime?.codex_link, inputs, copies),
  ]);
  return links.filter((l): l is RuntimeLink => l !== null);
}

function skillStatus(
  entry: SkillEntry,
  byPath: Map<string, SkillEntry>,
  conflicts: Map<string, string>,
): { status: CapabilityStatus; detail: string | null } {
  if (!entry.valid) return { status: "invalid", detail: entry.errors.join("; ") || "the skill is not valid" };
  if (entry.shadowed_by) {
    const winner = byPath.get(entry.shadowed_by);
    const who = winner ? skillSource(winner.source).label : "another skill";
    return { status: "shadowed", detail: `shadowed by ${who} (${entry.shadowed_by})` };
  }
  const conflict = conflicts.get(entry.name);
  if (conflict && (entry.source === "user" || entry.source === "codex")) {
    return {
      status: "conflict",
      detail: `The Wegent skill "${entry.name}" was not synced: ${conflict}. This folder is yours and was left as it is.`,
    };
  }
  if (!entry.eligible)
    return { status: "ineligible", detail: entry.reasons.join("; ") || "not eligible here" };
  if (entry.details.disable_model_invocation) {
    return { status: entry.source === "wegent-managed" ? "synced" : "ready", detail: "only invoked by name" };
  }
  return { status: entry.source === "wegent-managed" ? "synced" : "ready", detail: null };
}

export async function skillRows(inputs: ViewInputs): Promise<SkillRow[]> {
  const entries = inputs.catalogue?.skills ?? [];
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const failed = (inputs.lastSync?.skills ?? []).filter((s) => s.status === "failed");
  const conflicts = new Map(
    failed.filter((s) => isConflictError(s.error)).map((s) => [s.name, s.error ?? ""]),
  );
  const rows: SkillRow[] = [];
  for (const entry of entries) {
    const { source, label } = skillSource(entry.source);
    const managed = source === "wegent-managed" ? inputs.manifest.skills[entry.name] : undefined;
    const { status, detail } = skillStatus(entry, byPath, conflicts);
    rows.push({
      id: `skill:${entry.path}`,
      name: entry.name,
      description: entry.description,
      tags: entry.details.tags,
      source,
      sourceLabel: label,
      status,
      statusDetail: detail,
      version: entry.details.version,
      namespace: managed?.namespace ?? null,
      path: entry.path,
      realpath: entry.realpath,
      skillFile: entry.skill_file,
      storePath: managed?.store_path ? manifestPath(managed.store_path, inputs.home) : null,
      links: managed ? await linksOf(managed.runtime, inputs) : [],
      eligible: entry.eligible,
      reasons: entry.reasons,
      errors: entry.errors,
      warnings: entry.warnings,
      permissions: entry.permissions,
      triggers: entry.triggers,
      costChars: entry.cost_chars,
      costTokens: entry.cost_tokens,
      onDisk: true,
      problem: null,
    });
  }
  // Wegent items the last sync could not install, unless an older version of them is still in place.
  const present = new Set(rows.filter((r) => r.source === "wegent-managed").map((r) => r.name));
  for (const item of failed) {
    if (present.has(item.name)) {
      const row = rows.find((r) => r.source === "wegent-managed" && r.name === item.name);
      if (row) {
        row.status = isConflictError(item.error) ? "conflict" : "failed";
        row.statusDetail = `The last sync failed: ${item.error ?? "unknown error"}; the installed version stays.`;
      }
      continue;
    }
    rows.push({
      id: `skill-sync:${item.name}`,
      name: item.name,
      description: "",
      tags: [],
      source: "wegent-managed",
      sourceLabel: "Wegent-managed",
      status: isConflictError(item.error) ? "conflict" : "failed",
      statusDetail: item.error ?? "the last sync failed",
      version: null,
      namespace: null,
      path: "",
      realpath: null,
      skillFile: null,
      storePath: null,
      links: [],
      eligible: false,
      reasons: [],
      errors: item.error ? [item.error] : [],
      warnings: [],
      permissions: [],
      triggers: [],
      costChars: null,
      costTokens: null,
      onDisk: false,
      problem: null,
    });
  }
  const errors = new Map(failed.map((s) => [s.name, s.error ?? "the last sync failed"]));
  for (const row of rows) {
    const error = errors.get(row.name);
    if (error !== undefined && (row.status === "conflict" || row.status === "failed"))
      row.problem = await skillProblem(row.name, error, row.status === "conflict", inputs.problems);
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The installs of one plugin across runtimes (and registry keys) as one: enabled when any is. */
function mergeInstalled(list: InstalledPlugin[]): InstalledPlugin | undefined {
  if (list.length <= 1) return list[0];
  return {
    ...list[0]!,
    installPaths: [...new Set(list.flatMap((p) => p.installPaths))],
    enabled: list.some((p) => p.enabled),
    runtimes: [...new Set(list.flatMap((p) => p.runtimes))],
  };
}

export async function pluginRows(inputs: ViewInputs): Promise<PluginRow[]> {
  const rows = new Map<string, PluginRow>();
  const failed = new Map(
    (inputs.lastSync?.plugins ?? []).filter((p) => p.status === "failed").map((p) => [p.name, p.error ?? ""]),
  );
  const reports = new Map(inputs.reportPlugins.map((p) => [`${p.name}@${p.marketplace}`, p]));
  // A synced plugin is one row under the key the backend synced it with; Claude Code knows it as
  // `<name>@gatehouse` (docs/agent-clis.md), shown as its Claude Code key.
  const managedKey = managedKeyOf(inputs.manifest);
  const installedByKey = new Map<string, InstalledPlugin[]>();
  const claudeKeys = new Map<string, string>();
  for (const plugin of inputs.installedPlugins) {
    const key = managedKey(plugin.key) ?? plugin.key;
    installedByKey.set(key, [...(installedByKey.get(key) ?? []), plugin]);
    if (plugin.runtimes.includes("claude") && !claudeKeys.has(key)) claudeKeys.set(key, plugin.key);
  }
  const keys = new Set([
    ...installedByKey.keys(),
    ...reports.keys(),
    ...Object.keys(inputs.manifest.plugins),
  ]);
  for (const key of keys) {
    const installed = mergeInstalled(installedByKey.get(key) ?? []);
    const report = reports.get(key);
    const managed = inputs.manifest.plugins[key];
    const at = key.lastIndexOf("@");
    const isManaged = managed?.managed !== false && managed !== undefined;
    const enabled = installed ? installed.enabled : (managed?.enabled ?? null);
    // Sync results name plugins by their name alone.
    const error = failed.get(at >= 0 ? key.slice(0, at) : key);
    let status: CapabilityStatus = isManaged ? "synced" : "ready";
    let detail: string | null = null;
    if (error !== undefined) {
      status = isConflictError(error) ? "conflict" : "failed";
      detail = isManaged
        ? `The last sync failed: ${error}`
        : `The Wegent plugin ${key} was not synced: ${error}. This plugin is yours and was left as it is.`;
    } else if (enabled === false) {
      status = "disabled";
      detail = "installed but not enabled in Claude Code";
    }
    rows.set(key, {
      id: `plugin:${key}`,
      name: at >= 0 ? key.slice(0, at) : key,
      marketplace: at >= 0 ? key.slice(at + 1) : "",
      description: inputs.pluginDescriptions.get(key) ?? "",
      source: isManaged ? "wegent-managed" : "user",
      sourceLabel: isManaged ? "Wegent-managed" : "local user",
      status,
      statusDetail: detail,
      version: report?.version ?? managed?.version ?? null,
      scope: report?.scope ?? null,
      enabled,
      claudeKey: claudeKeys.get(key) ?? null,
      installPath: installed?.installPaths[0] ?? null,
      storePath: managed?.store_path ? manifestPath(managed.store_path, inputs.home) : null,
      links: isManaged ? await linksOf(managed?.runtime, inputs) : [],
      skills: report?.skills ?? [],
      problem:
        error === undefined
          ? null
          : await pluginProblem(
              at >= 0 ? key.slice(0, at) : key,
              error || "the last sync failed",
              isConflictError(error),
              inputs.problems,
            ),
    });
  }
  for (const [name, error] of failed) {
    if ([...rows.values()].some((r) => r.name === name)) continue;
    rows.set(`sync:${name}`, {
      id: `plugin-sync:${name}`,
      name,
      marketplace: "",
      description: "",
      source: "wegent-managed",
      sourceLabel: "Wegent-managed",
      status: isConflictError(error) ? "conflict" : "failed",
      statusDetail: error || "the last sync failed",
      version: null,
      scope: null,
      enabled: null,
      claudeKey: null,
      installPath: null,
      storePath: null,
      links: [],
      skills: [],
      problem: await pluginProblem(
        name,
        error || "the last sync failed",
        isConflictError(error),
        inputs.problems,
      ),
    });
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export function mcpRows(inputs: ViewInputs): McpRow[] {
  const rows: McpRow[] = [];
  const failed = new Map(
    (inputs.lastSync?.mcps ?? []).filter((m) => m.status === "failed").map((m) => [m.name, m.error ?? ""]),
  );
  for (const name of Object.keys(inputs.manifest.mcps).sort()) {
    const record = inputs.manifest.mcps[name];
    const raw = isRecord(record?.server) ? record.server : isRecord(record) ? record : {};
    const server = maskSecrets(raw) as Record<string, unknown>;
    const transport =
      typeof server.type === "string"
        ? server.type
        : typeof server.transport === "string"
          ? server.transport
          : typeof server.command === "string"
            ? "stdio"
            : typeof server.url === "string"
              ? "http"
              : "unknown";
    const target =
      typeof server.url === "string"
        ? server.url
        : typeof server.command === "string"
          ? [server.command, ...(Array.isArray(server.args) ? server.args.map(String) : [])].join(" ")
          : "";
    const codex = codexMcpOverrides([{ name, server }]);
    const error = failed.get(name);
    rows.push({
      id: `mcp:${name}`,
      name,
      source: "wegent-managed",
      sourceLabel: "Wegent-managed",
      status: error === undefined ? "synced" : isConflictError(error) ? "conflict" : "failed",
      statusDetail: error === undefined ? null : `The last sync failed: ${error}`,
      transport,
      target,
      server,
      claude: normaliseClaudeServer({ ...server }),
      codex: codex.overrides,
      notices: codex.notices,
      problem:
        error === undefined
          ? null
          : mcpProblem(name, error || "the last sync failed", isConflictError(error)),
    });
  }
  for (const [name, error] of failed) {
    if (rows.some((r) => r.name === name)) continue;
    rows.push({
      id: `mcp-sync:${name}`,
      name,
      source: "wegent-managed",
      sourceLabel: "Wegent-managed",
      status: isConflictError(error) ? "conflict" : "failed",
      statusDetail: error || "the last sync failed",
      transport: "unknown",
      target: "",
      server: {},
      claude: null,
      codex: [],
      notices: [],
      problem: mcpProblem(name, error || "the last sync failed", isConflictError(error)),
    });
  }
  return rows;
}
