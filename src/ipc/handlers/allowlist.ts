// The allowlist editor: effective settings per agent, entries (add, edit, delete, duplicate) written to
// E/exec-approvals.json at once through the approvals store, validation as you type, the test box and
// the audit preview. Refusals (a bad glob, an invalid file) are values with the reason, never a write.
import path from "node:path";
import {
  AllowlistEntryError,
  BUILT_IN_SETTINGS,
  DEFAULTS_AGENT_ID,
  presetOfDefaults,
  entryLiveness,
  entryProblems,
  parseMcpPattern,
  patternKind,
  validateEntry,
  type AllowlistEntry,
  type ApprovalsFile,
  type PolicySettings,
} from "../../core/approvals/index.js";
import { expandHome } from "../../core/paths.js";
import { resolveExecutable, resolveSettings } from "../../core/policy/index.js";
import { mcpToolName } from "../../core/policy/mcp-tools.js";
import { InvalidFileError } from "../../core/store/index.js";
import { previewEntry, withoutEmpty } from "../audit-preview.js";
import type { AgentView, EntryCheck, EntryInput, EntryView } from "../contract.js";
import type { HandlerContext, Handlers } from "./types.js";

/** Agents the editor always lists, so their settings can be set before they first ask for anything. */
export const WELL_KNOWN_AGENTS = ["backend", "claude-code", "codex", "local"] as const;

type AllowlistChannels =
  | "allowlist.get"
  | "allowlist.setSettings"
  | "allowlist.addEntry"
  | "allowlist.updateEntry"
  | "allowlist.deleteEntry"
  | "allowlist.duplicateEntry"
  | "allowlist.checkEntry"
  | "allowlist.explain"
  | "allowlist.preview";

function ownSettings(settings: PolicySettings | undefined): AgentView["own"] {
  const out: AgentView["own"] = {};
  if (settings?.security) out.security = settings.security;
  if (settings?.ask) out.ask = settings.ask;
  if (settings?.askFallback) out.askFallback = settings.askFallback;
  return out;
}

function refusalOf(error: unknown): { field: string; reason: string } {
  if (error instanceof AllowlistEntryError) return { field: error.field, reason: error.reason };
  if (error instanceof InvalidFileError) return { field: "file", reason: error.message };
  throw error;
}

export function allowlistHandlers(ctx: HandlerContext): Pick<Handlers, AllowlistChannels> {
  const { approvals, env, paths } = ctx.services;
  const platform = ctx.services.platform ?? process.platform;

  /** What a command word finds today, resolved as the policy resolves it (a regular file it may run; a bare name on PATH). */
  const resolution = (word: string): { path: string | null; error: string | null } => {
    const found = resolveExecutable(word, {
      cwd: paths.home,
      pathEnv: env.PATH ?? env.Path,
      pathExt: env.PATHEXT,
      home: paths.home,
      platform,
    });
    return { path: found.resolvedPath, error: found.resolvedPath ? null : (found.error ?? "not found") };
  };

  const notesFor = (entry: EntryInput): string[] => {
    const pattern = entry.pattern.trim();
    const kind = patternKind(pattern);
    if (kind === "any") return ["* matches every executable that resolves."];
    if (kind === "mcp") {
      const target = parseMcpPattern(pattern);
      return target
        ? [
            `Covers the tool "${target.tool}" of the MCP server "${target.server}": ${mcpToolName("claude", target)} in Claude Code, ${mcpToolName("codex", target)} in Codex.`,
          ]
        : [];
    }
    if (kind === "bare") {
      const found = resolution(pattern);
      return found.path ? [`${pattern} resolves to ${found.path} today.`] : [];
    }
    return [];
  };

  /**
   * Whether the program the entry names is there today, resolved as the policy resolves a command word
   * (resolveExecutable: a regular file it may run; a bare name on PATH). A glob names no one program:
   * nothing to say. The warning says what is missing and that saving stays possible.
   */
  const programWarning = (entry: EntryInput): string | null => {
    const pattern = entry.pattern.trim();
    const kind = patternKind(pattern);
    if (kind === "any" || kind === "mcp") return null;
    if (kind === "bare") {
      const found = resolution(pattern);
      return found.path
        ? null
        : `No program named ${pattern} is on PATH today (${found.error}). You can still save the entry: it matches once ${pattern} is installed.`;
    }
    if (/[*?[\]{}()!+@]/.test(pattern)) return null;
    const full = expandHome(pattern, paths.home);
    const found = resolution(full);
    return found.path
      ? null
      : `There is no program at ${full} today (${found.error}). You can still save the entry: it matches once the program is there.`;
  };

  const entryView = (agentId: string, entry: AllowlistEntry, now: number): EntryView => {
    const checked = validateEntry(entry);
    let resolvesTo: string | null = null;
    let problem: string | null = checked.ok ? null : checked.reason;
    if (checked.ok && patternKind(entry.pattern) === "bare") {
      const found = resolution(entry.pattern);
      resolvesTo = found.path;
      if (!found.path) problem = `${entry.pattern} resolves to nothing today (${found.error}).`;
    }
    return { agentId, entry, liveness: entryLiveness(entry, now), resolvesTo, problem };
  };

  const agentIds = (file: ApprovalsFile): string[] => {
    const ids = new Set<string>([...Object.keys(file.agents), ...WELL_KNOWN_AGENTS]);
    ids.delete("*");
    ids.delete(DEFAULTS_AGENT_ID);
    return ["*", ...[...ids].sort()];
  };

  const updateWith = async (
    agentId: string,
    id: string,
    entry: EntryInput,
  ): Promise<{ ok: true; entry: AllowlistEntry } | { ok: false; field: string; reason: string }> => {
    const clean = withoutEmpty(entry);
    // Every editable field is named: absent ones are removed (the editor sends the whole entry).
    const patch = {
      pattern: clean.pattern,
      argPattern: clean.argPattern,
      cwd: clean.cwd,
      expiresAt: clean.expiresAt,
      usesLeft: clean.usesLeft,
    };
    try {
      return { ok: true, entry: await approvals.updateEntry(agentId, id, patch) };
    } catch (error) {
      return { ok: false, ...refusalOf(error) };
    }
  };

  return {
    "allowlist.get": async () => {
      const state = await approvals.load();
      const now = ctx.now();
      const builtIn = { ...BUILT_IN_SETTINGS };
      const fileStatus =
        state.status === "invalid"
          ? { path: state.path, status: state.status, error: state.error }
          : { path: state.path, status: state.status };
      if (state.status !== "ok") {
        // Missing: nothing written yet (built-in deny). Invalid: shown as it is, nothing editable.
        const agents: AgentView[] =
          state.status === "missing"
            ? ["*", ...WELL_KNOWN_AGENTS].map((id) => ({
                id,
                own: {},
                effective: resolveSettings(state, id),
                entries: [],
                inFile: false,
              }))
            : [];
        return {
          file: fileStatus,
          defaults: {},
          builtIn,
          agents,
          preset: state.status === "missing" ? presetOfDefaults(undefined) : null,
          now,
        };
      }
      const { file } = state;
      const agents = agentIds(file).map((id) => ({
        id,
        own: ownSettings(file.agents[id]),
        effective: resolveSettings(state, id),
        entries: (file.agents[id]?.allowlist ?? []).map((entry) => entryView(id, entry, now)),
        inFile: Object.hasOwn(file.agents, id),
      }));
      return {
        file: fileStatus,
        defaults: ownSettings(file.defaults),
        builtIn,
        agents,
        preset: presetOfDefaults(file.defaults),
        now,
      };
    },

    "allowlist.setSettings": async (request) => {
      const settings: Partial<PolicySettings> = {};
      for (const key of ["security", "ask", "askFallback"] as const) {
        if (!(key in request)) continue;
        const value = request[key];
        (settings as Record<string, unknown>)[key] = value === null ? undefined : value;
      }
      try {
        await approvals.setAgentSettings(request.agentId, settings);
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: refusalOf(error).reason };
      }
    },

    "allowlist.addEntry": async ({ agentId, entry }) => {
      try {
        return {
          ok: true,
          entry: await approvals.addEntry(agentId, { ...withoutEmpty(entry), source: "user" }),
        };
      } catch (error) {
        return { ok: false, ...refusalOf(error) };
      }
    },

    "allowlist.updateEntry": async ({ agentId, id, entry }) => updateWith(agentId, id, entry),

    "allowlist.deleteEntry": async ({ agentId, id }) => {
      try {
        return { removed: await approvals.removeEntry(agentId, id) };
      } catch (error) {
        if (error instanceof InvalidFileError) return { removed: false };
        throw error;
      }
    },

    "allowlist.duplicateEntry": async ({ agentId, id, toAgentId }) => {
      const state = await approvals.load();
      if (state.status !== "ok") {
        return {
          ok: false,
          field: "file",
          reason: state.status === "invalid" ? state.error : "there are no entries yet",
        };
      }
      const original = state.file.agents[agentId]?.allowlist?.find((e) => e.id === id);
      if (!original)
        return { ok: false, field: "id", reason: `no allowlist entry ${id} for agent ${agentId}` };
      const copy: EntryInput = {
        pattern: original.pattern,
        ...(original.argPattern !== undefined ? { argPattern: original.argPattern } : {}),
        ...(original.cwd !== undefined ? { cwd: original.cwd } : {}),
        ...(original.expiresAt !== undefined ? { expiresAt: original.expiresAt } : {}),
        ...(typeof original.usesLeft === "number" ? { usesLeft: original.usesLeft } : {}),
      };
      try {
        return {
          ok: true,
          entry: await approvals.addEntry(toAgentId ?? agentId, { ...copy, source: "user" }),
        };
      } catch (error) {
        return { ok: false, ...refusalOf(error) };
      }
    },

    "allowlist.checkEntry": async ({ entry }): Promise<EntryCheck> => {
      const clean = withoutEmpty(entry);
      // An empty pattern is one not typed yet: say what is needed, not what is wrong with "".
      const problems = entryProblems(clean).map((p) =>
        clean.pattern === "" && p.field === "pattern" ? { ...p, reason: "pattern is required" } : p,
      );
      const patternOk = !problems.some((p) => p.field === "pattern");
      return {
        ok: problems.length === 0,
        problems,
        notes: patternOk ? notesFor(clean) : [],
        warning: patternOk ? programWarning(clean) : null,
      };
    },

    "allowlist.explain": async ({ agentId, command, cwd }) => {
      if (command.trim() === "")
        return { ok: false, reason: "Type a command to see how it would be decided." };
      const dir = cwd?.trim() ? expandHome(cwd.trim(), paths.home) : paths.home;
      if (!path.isAbsolute(dir))
        return { ok: false, reason: `The folder must be an absolute path or start with ~/ (got "${cwd}").` };
      const explanation = await ctx.services.explain({ command }, { agentId, cwd: path.normalize(dir) });
      return { ok: true, explanation };
    },

    "allowlist.preview": async ({ agentId, entry, replaceId, limit }) => {
      const clean = withoutEmpty(entry);
      const checked = validateEntry(clean);
      if (!checked.ok) return { ok: false, reason: checked.reason };
      const state = await approvals.load();
      if (state.status === "invalid") return { ok: false, reason: state.error };
      const file: ApprovalsFile =
        state.status === "ok"
          ? state.file
          : { version: 1, socket: { path: "-", token: "-".repeat(16) }, agents: {} };
      const records = await ctx.services.audit.read({ limit: limit ?? 2000 });
      const preview = await previewEntry({
        file,
        agentId,
        entry: clean,
        ...(replaceId ? { replaceId } : {}),
        records,
        env,
        home: paths.home,
        now: ctx.now(),
        platform,
      });
      return { ok: true, preview };
    },
  };
}
