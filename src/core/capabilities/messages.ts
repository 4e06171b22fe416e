// Every error string of the capability sync contract (device-protocol.md §10), in one place so the
// wording cannot drift between the engine, the ack and the tests. `<…>` parts are parameters.
export type PackageKind = "skill" | "plugin";
export type ArchiveFormat = "ZIP" | "TAR";

const capitalise = (kind: PackageKind) => (kind === "skill" ? "Skill" : "Plugin");

export const msg = {
  // payload (hard errors)
  invalidPayload: "Invalid capability sync payload",
  invalidMode: "Invalid sync mode",
  skillNameRequired: "Skill name is required",
  skillIdRequired: "Skill id is required",
  pluginNameRequired: "Plugin name is required",
  mcpNameRequired: "MCP name is required",
  unsafeName: (value: string) => `Unsafe capability name: ${value}`,
  invalidManifest: (file: string, reason: string) => `Invalid capability manifest ${file}: ${reason}`,
  invalidClaudeConfig: (file: string, reason: string) => `Invalid Claude config ${file}: ${reason}`,
  unsupportedRegistry: (file: string) => `Unsupported Claude plugin registry ${file}`,
  // payload (per item)
  duplicateSkill: (name: string) => `Duplicate skill name in payload: ${name}`,
  duplicatePlugin: (key: string) => `Duplicate plugin in payload: ${key}`,
  duplicateMcp: (name: string) => `Duplicate MCP name in payload: ${name}`,
  /** Gatehouse's own wording: two items would share a store folder or a runtime path. */
  pathCollision: (item: string, other: string) =>
    `Capability ${item} would share a folder with ${other}; it was not installed`,
  /** Gatehouse's own wording: a file-system limit, found before anything changed (no local path). */
  nameTooLong: (name: string, detail: string) =>
    `Capability name is too long for this file system: ${name} (${detail})`,
  /** Gatehouse's own wording: the MCP server definition is stored and sent in every heartbeat. */
  mcpServerTooLarge: (name: string, reason: string) =>
    `MCP server definition of ${name} is ${reason}; it was not stored`,
  // download
  httpStatus: (status: number) => `Capability package download failed with HTTP ${status}`,
  downloadFailed: (reason: string) => `Capability package download failed: ${reason}`,
  invalidUrl: (reason: string) => `Invalid capability URL: ${reason}`,
  tooLargeDownload: "Capability package is too large",
  checksumMismatch: (kind: PackageKind, expected: string, got: string) =>
    `${capitalise(kind)} checksum mismatch: expected ${expected}, got ${got}`,
  // archive
  unsafePath: (kind: PackageKind, format: ArchiveFormat, name: string) =>
    `Unsafe path in ${kind} ${format}: ${name}`,
  duplicatePath: (kind: PackageKind, format: ArchiveFormat, name: string) =>
    `Duplicate path in ${kind} ${format}: ${name}`,
  tooManyFiles: (kind: PackageKind) => `${capitalise(kind)} package contains too many files`,
  expandedTooLarge: (kind: PackageKind) => `Expanded ${kind} package is too large`,
  symlink: (name: string) => `Symbolic links are not allowed: ${name}`,
  encrypted: "Encrypted files are not allowed",
  unsupportedFormat: "Unsupported capability package format",
  unsupportedEntry: (name: string) => `Unsupported entry type in package: ${name}`,
  /** Gatehouse's own wording for an archive that cannot be read at all (the design is silent). */
  corruptPackage: (reason: string) => `Capability package is corrupt: ${reason}`,
  /** Gatehouse's own wording: the time budget of one package ran out (sizes bound bytes, not time). */
  extractTooSlow: (kind: PackageKind, ms: number) =>
    `${capitalise(kind)} package took too long to extract (more than ${ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`})`,
  /** Gatehouse's own wording: the environment failed the apply stage; links were restored to the manifest. */
  applyFailed: (reason: string) =>
    `Capability sync could not be applied (${reason}); the last synced state was restored`,
  /** Gatehouse's own wording: the runner is stopping; nothing was changed. */
  syncCancelled: "Capability sync was cancelled because Gatehouse is stopping; nothing was changed",
  /** Gatehouse's own wording: the person cancelled it in the window before it applied anything. */
  syncCancelledByUser: "Capability sync was cancelled in Gatehouse before it changed anything",
  missingSkillMd: "Skill package is missing SKILL.md",
  missingPluginManifest: "Plugin package is missing .codex-plugin/plugin.json or .claude-plugin/plugin.json",
  manifestNamesDiffer: "Codex and Claude Code plugin manifest names must match",
  manifestNeedsName: (relativePath: string) => `${relativePath} must include a non-empty name`,
  /** Gatehouse's own wording for a plugin manifest that is not JSON (the design is silent). */
  manifestNotJson: (relativePath: string, reason: string) => `${relativePath} is not valid JSON: ${reason}`,
  pluginUnavailable: (key: string) => `Plugin package ${key} is not available`,
  // conflicts
  skillPathOccupied: "Runtime Skill path is occupied by a local user item",
  pluginPathOccupied: "Runtime Plugin path is occupied by a local user item",
  managedPathSymlink: (p: string) => `Refusing to traverse managed path symlink: ${p}`,
  pluginRegisteredByUser: (key: string) => `Plugin ${key} is already registered in Claude Code by the user`,
  /** Gatehouse's own wording: Claude Code knows every synced plugin as `<name>@gatehouse`. */
  claudeKeyTaken: (item: string, other: string, key: string) =>
    `Capability ${item} would be ${key} in Claude Code, which ${other} already is; it was not installed`,
} as const;
