// The IPC contract between the renderer and main (architecture.md "IPC between renderer and main"):
// every channel once, with a zod schema for its request and its response, and every event main pushes
// to the renderer with its payload schema. Main validates both ways (src/ipc/router.ts); the renderer
// imports only the types from here (type-only imports: zod never reaches the renderer bundle).
// Keep this file and what it imports (src/shared/, and plain-data tables such as the presets) zod-only:
// the renderer's tsconfig type-checks it without Node types.
import { z } from "zod";
import { PRESET_NAMES } from "../core/approvals/presets.js";

import {
  AllowlistEntrySchema,
  AskSchema,
  PolicySettingsSchema,
  SecuritySchema,
} from "../shared/schemas/approvals.js";
import { AuditRecordSchema } from "../shared/schemas/audit.js";
import {
  ApprovalsFileStatusSchema,
  ExplanationSchema,
  SettingSourcesSchema,
} from "../shared/schemas/explanation.js";
import { PromptViewSchema } from "../shared/schemas/prompt.js";
import { DENY_REASON_MAX } from "../shared/deny-reason.js";
import { ConnectionStateNameSchema, ConnectionStateSchema } from "../shared/schemas/connection.js";
import {
  ItemProblemSchema,
  SyncCancelResultSchema,
  SyncProgressSchema,
  SyncRequestResultSchema,
} from "../shared/schemas/capabilities.js";
import { RepoBindingSchema, TaskBindingSchema } from "../shared/schemas/workdir.js";
import type { Channel, EventName } from "../shared/ipc-channels.js";

// The shapes other boundaries share (src/shared/): re-exported so the renderer keeps one import.
export * from "../shared/schemas/approvals.js";
export * from "../shared/schemas/audit.js";
export * from "../shared/schemas/explanation.js";
export * from "../shared/schemas/prompt.js";
export * from "../shared/schemas/connection.js";
export * from "../shared/schemas/capabilities.js";
export * from "../shared/schemas/workdir.js";
export * from "../shared/ipc-channels.js";

// ---- shared vocabulary ----------------------------------------------------------------------------

/** The names come from the preset table (src/core/approvals/presets.ts: plain data, no imports). */
export const PresetNameSchema = z.enum(PRESET_NAMES);
export type PresetName = z.infer<typeof PresetNameSchema>;

const Empty = z.object({}).strict();
const Ok = z.object({ ok: z.literal(true) });
/** A refusal the user reads (a value, not an error): what happened and what to do. */
const Refusal = z.object({ ok: z.literal(false), reason: z.string() });

// ---- allowlist ------------------------------------------------------------------------------------

/** What the editor sends for a new or edited entry (the shape is checked here, the content by the store). */
export const EntryInputSchema = z
  .object({
    pattern: z.string().max(4096),
    argPattern: z.string().max(4096).optional(),
    cwd: z.string().max(4096).optional(),
    expiresAt: z.number().int().nonnegative().nullable().optional(),
    usesLeft: z.number().int().nonnegative().nullable().optional(),
  })
  .strict();
export type EntryInput = z.infer<typeof EntryInputSchema>;

export const EntryFieldSchema = z.enum(["pattern", "argPattern", "cwd", "expiresAt", "usesLeft"]);
export type EntryField = z.infer<typeof EntryFieldSchema>;

export const EntryProblemSchema = z.object({ field: EntryFieldSchema, reason: z.string() });
export type EntryProblem = z.infer<typeof EntryProblemSchema>;

/**
 * Validation as you type: every problem, each with its field (ok when there are none), notes (what a
 * bare name resolves to today) and a warning when the program the entry names is not there today —
 * a warning, not a problem: the entry may be added before the program is installed.
 */
export const EntryCheckSchema = z.object({
  ok: z.boolean(),
  problems: z.array(EntryProblemSchema),
  notes: z.array(z.string()),
  warning: z.string().nullable(),
});
export type EntryCheck = z.infer<typeof EntryCheckSchema>;

export const EntryViewSchema = z.object({
  /** The list the entry lives in (`*` or the agent id). */
  agentId: z.string(),
  entry: AllowlistEntrySchema,
  liveness: z.enum(["live", "expired", "used-up"]),
  /** Bare names: the executable PATH finds today, or null; other patterns: null. */
  resolvesTo: z.string().nullable(),
  /** A warning about the entry as it stands (a bad regex in a hand-edited file, a name found nowhere). */
  problem: z.string().nullable(),
});
export type EntryView = z.infer<typeof EntryViewSchema>;

export const AgentViewSchema = z.object({
  id: z.string(),
  /** Settings written for this agent (absent fields are inherited). */
  own: PolicySettingsSchema,
  effective: z.object({
    security: SecuritySchema,
    ask: AskSchema,
    askFallback: SecuritySchema,
    sources: SettingSourcesSchema,
  }),
  /** Only this agent's own entries (the `*` list is its own agent). */
  entries: z.array(EntryViewSchema),
  /** False for the well-known agents listed before anything was written for them. */
  inFile: z.boolean(),
});
export type AgentView = z.infer<typeof AgentViewSchema>;

export const AllowlistStateSchema = z.object({
  file: ApprovalsFileStatusSchema,
  defaults: PolicySettingsSchema,
  /** The built-in values used where nothing is set. */
  builtIn: z.object({ security: SecuritySchema, ask: AskSchema, askFallback: SecuritySchema }),
  /** `*` first, then the agents in the file and the well-known ones, sorted. */
  agents: z.array(AgentViewSchema),
  /** The preset `defaults` equals, if any. */
  preset: PresetNameSchema.nullable(),
  now: z.number(),
});
export type AllowlistState = z.infer<typeof AllowlistStateSchema>;

const AgentIdSchema = z.string().min(1).max(200);
/** The settings target: an agent id, `*`, or `defaults`. */
const SettingsTargetSchema = AgentIdSchema;

const EntryResult = z.union([
  z.object({ ok: z.literal(true), entry: AllowlistEntrySchema }),
  z.object({ ok: z.literal(false), field: z.string(), reason: z.string() }),
]);

export const AuditPreviewSchema = z.object({
  /** How many past decisions were looked at (the newest first). */
  scanned: z.number(),
  /** Past commands of this agent whose every segment the entry (with the agent's other entries) would cover. */
  covered: z.array(
    z.object({
      ts: z.number(),
      command: z.string(),
      cwd: z.string(),
      agentId: z.string(),
      decision: z.string(),
      decidedBy: z.string(),
      /** `all`: the whole command would run without a prompt; `some`: the entry covers part of it. */
      coverage: z.enum(["all", "some"]),
    }),
  ),
});
export type AuditPreview = z.infer<typeof AuditPreviewSchema>;

// ---- capabilities ---------------------------------------------------------------------------------

export const CapabilitySourceSchema = z.enum([
  "wegent-managed",
  "user",
  "workspace",
  "plugin",
  "codex",
  "extra",
]);
export type CapabilitySource = z.infer<typeof CapabilitySourceSchema>;
export const CapabilityStatusSchema = z.enum([
  "synced",
  "ready",
  "conflict",
  "failed",
  "shadowed",
  "invalid",
  "ineligible",
  "disabled",
]);
export type CapabilityStatus = z.infer<typeof CapabilityStatusSchema>;

export const RuntimeLinkSchema = z.object({
  /** Where the runtime (Claude Code, Codex) looks. */
  path: z.string(),
  runtime: z.enum(["claude", "codex"]),
  /** `link` into the store, a `copy` (links impossible there), `missing`, or `user` (the user's own item). */
  kind: z.enum(["link", "copy", "missing", "user"]),
  target: z.string().nullable(),
});
export type RuntimeLink = z.infer<typeof RuntimeLinkSchema>;

export const SkillRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  source: CapabilitySourceSchema,
  /** `wegent-managed`, `local user`, `plugin superpowers@wegent`, … */
  sourceLabel: z.string(),
  status: CapabilityStatusSchema,
  statusDetail: z.string().nullable(),
  version: z.string().nullable(),
  namespace: z.string().nullable(),
  path: z.string(),
  realpath: z.string().nullable(),
  skillFile: z.string().nullable(),
  storePath: z.string().nullable(),
  links: z.array(RuntimeLinkSchema),
  eligible: z.boolean(),
  reasons: z.array(z.string()),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  permissions: z.array(z.string()),
  triggers: z.array(z.string()),
  costChars: z.number().nullable(),
  costTokens: z.number().nullable(),
  /** False for a Wegent item that the last sync could not install (no folder on disk). */
  onDisk: z.boolean(),
  /** Why it is not synced (conflict or failure), with the paths involved; null when it is fine. */
  problem: ItemProblemSchema.nullable(),
});
export type SkillRow = z.infer<typeof SkillRowSchema>;

export const PluginRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  marketplace: z.string(),
  description: z.string(),
  source: CapabilitySourceSchema,
  sourceLabel: z.string(),
  status: CapabilityStatusSchema,
  statusDetail: z.string().nullable(),
  version: z.string().nullable(),
  scope: z.string().nullable(),
  /** Enabled in Claude Code (`enabledPlugins`), or null when Claude Code does not say. */
  enabled: z.boolean().nullable(),
  /** The key Claude Code lists the plugin under (`<name>@gatehouse` for a synced one), or null. */
  claudeKey: z.string().nullable(),
  installPath: z.string().nullable(),
  storePath: z.string().nullable(),
  links: z.array(RuntimeLinkSchema),
  skills: z.array(z.object({ name: z.string(), description: z.string(), path: z.string() })),
  problem: ItemProblemSchema.nullable(),
});
export type PluginRow = z.infer<typeof PluginRowSchema>;

export const McpRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  source: CapabilitySourceSchema,
  sourceLabel: z.string(),
  status: CapabilityStatusSchema,
  statusDetail: z.string().nullable(),
  /** `stdio`, `sse`, `streamable-http`, … */
  transport: z.string(),
  /** The URL, or the command line (secrets masked). */
  target: z.string(),
  /** The server definition as stored (secrets masked). */
  server: z.record(z.string(), z.unknown()),
  /** What Claude Code gets in its MCP config (secrets masked). */
  claude: z.record(z.string(), z.unknown()).nullable(),
  /** The `-c` overrides Codex gets (secrets masked), or why it gets none. */
  codex: z.array(z.string()),
  notices: z.array(z.string()),
  problem: ItemProblemSchema.nullable(),
});
export type McpRow = z.infer<typeof McpRowSchema>;

export const SyncItemResultSchema = z.object({
  id: z.number().optional(),
  name: z.string(),
  status: z.enum(["synced", "failed"]),
  error: z.string().optional(),
});

export const SyncStateSchema = z.object({
  revision: z.number(),
  digest: z.string(),
  lastSyncAt: z.string().nullable(),
  manifestPath: z.string(),
  manifestError: z.string().nullable(),
  last: z
    .object({
      finished_at: z.string(),
      mode: z.string(),
      revision: z.number(),
      success: z.boolean(),
      skills: z.array(SyncItemResultSchema),
      plugins: z.array(SyncItemResultSchema),
      mcps: z.array(SyncItemResultSchema),
    })
    .nullable(),
  /** The sync running now, if any. */
  progress: SyncProgressSchema.nullable(),
  /** The backend connection: whether a sync can come, and whether one can be asked for again. */
  connection: ConnectionStateNameSchema.nullable(),
  /** A payload was received in this run of the app, so "Apply the last sync again" can re-run it. */
  canRequest: z.boolean(),
});
export type SyncState = z.infer<typeof SyncStateSchema>;

export const CapabilitiesStateSchema = z.object({
  workspace: z.string().nullable(),
  catalogueVersion: z.number(),
  /** Why the catalogue could not be built (an invalid settings file), if so. */
  catalogueError: z.string().nullable(),
  skills: z.array(SkillRowSchema),
  plugins: z.array(PluginRowSchema),
  mcps: z.array(McpRowSchema),
  roots: z.array(
    z.object({
      rank: z.number(),
      kind: z.string(),
      source: z.string(),
      path: z.string(),
      exists: z.boolean(),
      error: z.string().nullable(),
      count: z.number(),
    }),
  ),
  index: z.object({ count: z.number(), cost_chars: z.number(), cost_tokens: z.number() }),
  sync: SyncStateSchema,
});
export type CapabilitiesState = z.infer<typeof CapabilitiesStateSchema>;

// ---- workdirs -------------------------------------------------------------------------------------

export const RootInfoSchema = z.object({
  source: z.enum(["workspace", "env", "settings"]),
  given: z.string(),
  realpath: z.string().nullable(),
  case_insensitive: z.boolean(),
  status: z.enum(["active", "refused", "merged"]),
  reason: z.string().nullable(),
});
export type RootInfo = z.infer<typeof RootInfoSchema>;

export const WorkdirStateSchema = z.object({
  available: z.boolean(),
  workspaceRoot: z.string().nullable(),
  roots: z.array(RootInfoSchema),
  bindings: z.array(TaskBindingSchema),
  repos: z.array(RepoBindingSchema),
  warnings: z.array(z.string()),
});
export type WorkdirState = z.infer<typeof WorkdirStateSchema>;

export const PathCheckSchema = z.object({
  ok: z.boolean(),
  code: z.string().nullable(),
  message: z.string(),
  lexical: z.string().nullable(),
  resolved: z.string().nullable(),
  root: z.string().nullable(),
  would_create: z.boolean(),
});
export type PathCheck = z.infer<typeof PathCheckSchema>;

const PathText = z.string().max(4096);

// ---- status, activity, settings ------------------------------------------------------------------

export const RunningTaskSchema = z.object({
  taskId: z.string(),
  subtaskId: z.string().nullable(),
  agent: z.string(),
  workdir: z.string().nullable(),
  startedAt: z.number(),
});
export type RunningTask = z.infer<typeof RunningTaskSchema>;

/** A terminal the backend opened on this device (executor/terminal `TerminalView`). */
export const OpenTerminalSchema = z.object({
  sessionId: z.string(),
  folder: z.string(),
  shell: z.string(),
  openedAt: z.number(),
  expiresAt: z.number(),
  attached: z.boolean(),
  decidedBy: z.string(),
  pid: z.number(),
});
export type OpenTerminal = z.infer<typeof OpenTerminalSchema>;

export const ElevationViewSchema = z.object({
  agentId: z.string(),
  until: z.number(),
  since: z.number(),
  by: z.string().nullable(),
});
export type ElevationView = z.infer<typeof ElevationViewSchema>;

export const StatusSchema = z.object({
  version: z.string(),
  home: z.string(),
  /** Null when this app runs without a device connection (not configured into services). */
  connection: ConnectionStateSchema.nullable(),
  /** Milliseconds since the last acknowledged heartbeat, or null. */
  heartbeatAgeMs: z.number().nullable(),
  socket: z.object({
    path: z.string(),
    state: z.enum(["listening", "stopped"]),
    connections: z.number(),
  }),
  approvalsFile: ApprovalsFileStatusSchema,
  pending: z.number(),
  tasks: z.array(RunningTaskSchema),
  /** Terminals the backend opened here, oldest first. */
  terminals: z.array(OpenTerminalSchema),
  /** Elevated mode still running (`*` = every agent), `*` first. */
  elevated: z.array(ElevationViewSchema),
});
export type Status = z.infer<typeof StatusSchema>;

export const ActivityQuerySchema = z
  .object({
    limit: z.number().int().min(1).max(2000).optional(),
    /** Words that must all appear in the command, cwd, agent or reason (case-insensitive). */
    text: z.string().max(500).optional(),
    decision: z.enum(["allowed", "denied", "timeout", "no-approver", "cancelled"]).optional(),
    decidedBy: z.enum(["rule", "user", "fallback", "policy"]).optional(),
    agentId: z.string().max(200).optional(),
    event: z.enum(["decision", "run", "elevation"]).optional(),
  })
  .strict();
export type ActivityQuery = z.infer<typeof ActivityQuerySchema>;

export const SettingsStateSchema = z.object({
  backendUrl: z.string().nullable(),
  /** Whether a token is stored (the token itself is never sent to the renderer). */
  tokenStored: z.boolean(),
  tokenLocation: z.enum(["keychain", "file", "unknown", "env"]).nullable(),
  /** Set when WEGENT_AUTH_TOKEN overrides whatever is stored. */
  tokenFromEnv: z.boolean(),
  launchAtLogin: z.boolean(),
  /** Gatehouse's exec lifecycle events go to the backend (off by default: Wegent has no handler for them). */
  execEvents: z.boolean(),
  /** Whether this host can change launch at login (the browser test host cannot). */
  launchAtLoginSupported: z.boolean(),
  preset: PresetNameSchema.nullable(),
  /** Every preset with the words the settings screen shows (from the preset table). */
  presets: z.array(
    z.object({ id: PresetNameSchema, label: z.string(), description: z.string(), recommended: z.boolean() }),
  ),
  logsDir: z.string(),
  approvalsPath: z.string(),
  socketPath: z.string(),
  deviceConfigPath: z.string(),
  devicePaused: z.boolean(),
});
export type SettingsState = z.infer<typeof SettingsStateSchema>;

// ---- the channel table ----------------------------------------------------------------------------

export interface ChannelContract {
  request: z.ZodType;
  response: z.ZodType;
}

export const CONTRACT = {
  "prompts.list": { request: Empty, response: z.object({ prompts: z.array(PromptViewSchema) }) },
  "prompts.decide": {
    request: z
      .object({
        id: z.string().min(1).max(200),
        decision: z.enum(["allow-once", "allow-always", "deny"]),
        /** Allow always: the entries to save, possibly edited from `proposedEntries`. */
        entries: z
          .array(
            z
              .object({
                pattern: z.string().max(4096),
                argPattern: z.string().max(4096).optional(),
                cwd: z.string().max(4096).optional(),
                segment: z.number().int().nonnegative(),
                /** Narrowing: covers for this long from the decision (main's clock), at most a year. */
                expiresInMinutes: z
                  .number()
                  .int()
                  .positive()
                  .max(366 * 24 * 60)
                  .optional(),
                /** Narrowing: covers this many runs, then nothing. */
                usesLeft: z.number().int().positive().max(100_000).optional(),
              })
              .strict(),
          )
          .max(64)
          .optional(),
        /** Deny: what the person tells the agent (main cleans it and keeps DENY_REASON_MAX characters). */
        reason: z
          .string()
          .max(4 * DENY_REASON_MAX)
          .optional(),
      })
      .strict(),
    response: z.union([
      Ok,
      /** The prompt is no longer pending, or an edited entry is invalid (nothing decided). */
      z.object({ ok: z.literal(false), reason: z.string(), segment: z.number().optional() }),
    ]),
  },
  "allowlist.get": { request: Empty, response: AllowlistStateSchema },
  "allowlist.setSettings": {
    request: z
      .object({
        agentId: SettingsTargetSchema,
        /** null = inherit again (the field is removed). */
        security: z.optional(z.nullable(SecuritySchema)),
        ask: z.optional(z.nullable(AskSchema)),
        askFallback: z.optional(z.nullable(SecuritySchema)),
      })
      .strict(),
    response: z.union([Ok, Refusal]),
  },
  "allowlist.addEntry": {
    request: z.object({ agentId: AgentIdSchema, entry: EntryInputSchema }).strict(),
    response: EntryResult,
  },
  "allowlist.updateEntry": {
    request: z
      .object({ agentId: AgentIdSchema, id: z.string().min(1).max(200), entry: EntryInputSchema })
      .strict(),
    response: EntryResult,
  },
  "allowlist.deleteEntry": {
    request: z.object({ agentId: AgentIdSchema, id: z.string().min(1).max(200) }).strict(),
    response: z.object({ removed: z.boolean() }),
  },
  "allowlist.duplicateEntry": {
    request: z
      .object({
        agentId: AgentIdSchema,
        id: z.string().min(1).max(200),
        /** Copy into another agent's list (default: the same list). */
        toAgentId: AgentIdSchema.optional(),
      })
      .strict(),
    response: EntryResult,
  },
  "allowlist.checkEntry": {
    request: z.object({ entry: EntryInputSchema, agentId: AgentIdSchema.optional() }).strict(),
    response: EntryCheckSchema,
  },
  "allowlist.explain": {
    request: z
      .object({
        agentId: AgentIdSchema,
        command: z.string().max(100_000),
        cwd: PathText.optional(),
      })
      .strict(),
    response: z.union([z.object({ ok: z.literal(true), explanation: ExplanationSchema }), Refusal]),
  },
  "allowlist.preview": {
    request: z
      .object({
        agentId: AgentIdSchema,
        entry: EntryInputSchema,
        /** The entry being edited (its saved version is left out of the preview). */
        replaceId: z.string().max(200).optional(),
        limit: z.number().int().min(1).max(5000).optional(),
      })
      .strict(),
    response: z.union([z.object({ ok: z.literal(true), preview: AuditPreviewSchema }), Refusal]),
  },
  "capabilities.get": {
    request: z.object({ workspace: PathText.nullable().optional() }).strict(),
    response: CapabilitiesStateSchema,
  },
  "capabilities.requestSync": { request: Empty, response: SyncRequestResultSchema },
  "capabilities.cancelSync": { request: Empty, response: SyncCancelResultSchema },
  /** Opens (a plain folder) or reveals (anything else) a path this screen was given by main. */
  "capabilities.openFolder": {
    request: z.object({ path: PathText }).strict(),
    response: z.union([Ok, Refusal]),
  },
  "workdir.get": { request: Empty, response: WorkdirStateSchema },
  "workdir.addRoot": {
    request: z.object({ path: PathText }).strict(),
    response: z.union([z.object({ ok: z.literal(true), roots: z.array(RootInfoSchema) }), Refusal]),
  },
  "workdir.removeRoot": {
    request: z.object({ path: PathText }).strict(),
    response: z.union([z.object({ ok: z.literal(true), roots: z.array(RootInfoSchema) }), Refusal]),
  },
  "workdir.removeBinding": {
    request: z.object({ taskId: z.string().min(1).max(200), deviceId: z.string().min(1).max(200) }).strict(),
    response: z.object({ removed: z.boolean() }),
  },
  "workdir.addRepo": {
    request: z
      .object({
        repo: z.string().max(4096).optional(),
        branch: z.string().max(500).optional(),
        dir: PathText,
      })
      .strict(),
    response: z.union([z.object({ ok: z.literal(true), binding: RepoBindingSchema }), Refusal]),
  },
  "workdir.removeRepo": {
    request: z.object({ repo: z.string().min(1).max(4096), branch: z.string().min(1).max(500) }).strict(),
    response: z.object({ removed: z.boolean() }),
  },
  "workdir.check": {
    request: z.object({ path: PathText, taskId: z.string().max(200).optional() }).strict(),
    response: PathCheckSchema,
  },
  "status.get": { request: Empty, response: StatusSchema },
  "activity.list": {
    request: ActivityQuerySchema,
    response: z.object({ records: z.array(AuditRecordSchema), scanned: z.number() }),
  },
  "settings.get": { request: Empty, response: SettingsStateSchema },
  "settings.setBackendUrl": {
    request: z.object({ url: z.string().max(2048) }).strict(),
    response: z.union([z.object({ ok: z.literal(true), url: z.string() }), Refusal]),
  },
  "settings.setToken": {
    request: z.object({ token: z.string().max(16_384) }).strict(),
    response: z.union([z.object({ ok: z.literal(true), location: z.string() }), Refusal]),
  },
  "settings.clearToken": { request: Empty, response: z.object({ removed: z.boolean() }) },
  "settings.setLaunchAtLogin": {
    request: z.object({ enabled: z.boolean() }).strict(),
    response: z.union([Ok, Refusal]),
  },
  "settings.setExecEvents": {
    request: z.object({ enabled: z.boolean() }).strict(),
    response: z.union([Ok, Refusal]),
  },
  "settings.applyPreset": { request: z.object({ preset: PresetNameSchema }).strict(), response: Ok },
  "settings.rotateSocketToken": { request: Empty, response: Ok },
  "settings.openLogs": { request: Empty, response: z.union([Ok, Refusal]) },
  "device.setPaused": {
    request: z.object({ paused: z.boolean() }).strict(),
    response: z.union([Ok, Refusal]),
  },
  /** Elevated mode from the app's window only (never the approval socket: agents' hooks use it). */
  "elevation.start": {
    request: z
      .object({
        /** `*` (default) = every agent. */
        agentId: AgentIdSchema.optional(),
        /** At most 8 hours. */
        forMs: z
          .number()
          .int()
          .positive()
          .max(8 * 60 * 60_000),
      })
      .strict(),
    response: z.union([z.object({ ok: z.literal(true), elevation: ElevationViewSchema }), Refusal]),
  },
  "elevation.end": {
    request: z.object({ agentId: AgentIdSchema.optional() }).strict(),
    response: z.object({ ended: z.array(z.string()) }),
  },
  "tasks.stop": {
    request: z
      .object({
        taskId: z.string().min(1).max(200),
        subtaskId: z.string().min(1).max(200).nullable().optional(),
      })
      .strict(),
    response: z.union([z.object({ ok: z.literal(true), stopped: z.boolean() }), Refusal]),
  },
  /** The person closes a terminal the backend opened (the browser is told why). */
  "terminals.close": {
    request: z.object({ sessionId: z.string().min(1).max(300) }).strict(),
    response: z.union([z.object({ ok: z.literal(true), closed: z.boolean() }), Refusal]),
  },
  "app.revealPath": { request: z.object({ path: PathText }).strict(), response: z.union([Ok, Refusal]) },
  "app.copyText": { request: z.object({ text: z.string().max(1_000_000) }).strict(), response: Ok },
  "app.openExternal": {
    request: z.object({ url: z.string().max(4096) }).strict(),
    response: z.union([Ok, Refusal]),
  },
  "app.pickFolder": {
    request: z.object({ title: z.string().max(200).optional() }).strict(),
    response: z.object({ path: z.string().nullable() }),
  },
  "app.openMainWindow": {
    request: z
      .object({
        screen: z
          .enum(["status", "allowlist", "capabilities", "workdirs", "activity", "settings"])
          .optional(),
      })
      .strict(),
    response: Ok,
  },
  /** The platform main runs on: the renderer follows its conventions (button order). */
  "app.platform": { request: Empty, response: z.object({ platform: z.string() }) },
} as const satisfies { [K in Channel]: ChannelContract };

// ---- events (main → renderer) ---------------------------------------------------------------------

export const EVENT_CONTRACT = {
  "prompts.changed": z.object({ prompts: z.array(PromptViewSchema) }),
  "status.connection": ConnectionStateSchema,
  "status.tasks": z.object({ tasks: z.array(RunningTaskSchema) }),
  "status.terminals": z.object({ terminals: z.array(OpenTerminalSchema) }),
  "capabilities.progress": SyncProgressSchema,
  "capabilities.changed": z.object({ reason: z.enum(["sync", "files"]), version: z.number() }),
  "allowlist.changed": z.object({}),
  "workdir.changed": z.object({ change: z.enum(["roots", "bindings", "repos", "warnings"]) }),
  /** Main asks the main window to show a screen (tray menu). */
  "app.navigate": z.object({
    screen: z.enum(["status", "allowlist", "capabilities", "workdirs", "activity", "settings"]),
  }),
} as const satisfies { [K in EventName]: z.ZodType };

// ---- types for both sides -------------------------------------------------------------------------

export type RequestOf<C extends Channel> = z.input<(typeof CONTRACT)[C]["request"]>;
export type ResponseOf<C extends Channel> = z.output<(typeof CONTRACT)[C]["response"]>;
export type EventPayload<E extends EventName> = z.output<(typeof EVENT_CONTRACT)[E]>;

export type IpcErrorCode = "bad_request" | "forbidden" | "unknown_channel" | "bad_response" | "failed";

/** Every call resolves to this envelope; the error message is for people and never holds a secret. */
export type IpcResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: IpcErrorCode; message: string } };

/** `window.gatehouse`: one method per channel, plus `on(event, cb)` returning an unsubscribe function. */
export type GatehouseApi = {
  [C in Channel]: (request: RequestOf<C>) => Promise<IpcResult<ResponseOf<C>>>;
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

export type Screen = EventPayload<"app.navigate">["screen"];
