// Public surface of the capability sync core (device-protocol.md §5, §7).
export { CapabilitySync } from "./io/sync-engine.js";
export type {
  CancelOutcome,
  CapabilitySyncDeps,
  SyncLimits,
  SyncPhase,
  SyncProgress,
  SyncProgressListener,
} from "./io/sync-engine.js";
export { buildCapabilityReport, capabilityDigest, emptyReport, parseFrontMatter } from "./io/report.js";
export type {
  CapabilityReport,
  ReportMcp,
  ReportPlugin,
  ReportPluginSkill,
  ReportSkill,
} from "./io/report.js";
export { isHardError, readLastSync, lastSyncFile } from "./last-sync.js";
export type {
  LastSyncRecord,
  SyncAck,
  SyncErrorEntry,
  SyncHardErrorAck,
  SyncItemResult,
  SyncItemsAck,
} from "./last-sync.js";
export { loadManifest, manifestTimestamp } from "./io/manifest.js";
export type { CapabilityManifest, ManifestMcp, ManifestPlugin, ManifestSkill } from "./io/manifest.js";
export { parseSyncPayload } from "./payload.js";
export type { McpItem, PluginItem, SkillItem, SyncMode, SyncPayload } from "./payload.js";
export { canonicalJson, compareCodePoints } from "./canonical-json.js";
