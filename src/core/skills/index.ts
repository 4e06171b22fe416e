// Public surface of the skill catalogue (skills.md §12).
export {
  SkillCatalogue,
  rescanRequestFile,
  rescanAnswerFile,
  RescanAnswerSchema,
  type BuildOptions,
  type SkillCatalogueOptions,
} from "./io/catalogue.js";
export type {
  Catalogue,
  IndexCost,
  RootKind,
  SkillCallResult,
  SkillDetails,
  SkillEntry,
  SkillRequires,
  SkillRoot,
  SkillSecrets,
  SkillSnapshot,
} from "./types.js";
export {
  escapeXml,
  indexCost,
  renderActive,
  renderIndex,
  renderIndexText,
  renderInstructions,
  skillCost,
  tokenEstimate,
  type IndexItem,
} from "./prompt.js";
export {
  CLAUDE_TOOL_ALIASES,
  PERMISSION_TOOLS,
  toolRegistry,
  unsatisfiedPermissions,
} from "./permissions.js";
export {
  SkillEntrySettingsSchema,
  SkillsSettingsSchema,
  defaultSkillsSettings,
  parseSkillsSettings,
  skillApiKeySecretRef,
  skillEnvSecretRef,
  type SkillEntrySettings,
  type SkillsSettings,
} from "./settings-schema.js";
export { readPluginRegistry, pluginSkillFolders, type InstalledPlugin } from "./io/plugin-registry.js";
export { readCapabilityManifest } from "./io/capability-manifest-reader.js";
export { parseSkillRuntime, runtimeIndexEntries, type SkillRuntime } from "./runtime-subset.js";
export {
  CLAUDE_NATIVE_TOOLS,
  CODEX_NATIVE_TOOLS,
  SKILL_SERVER_NAME,
  SKILL_TOOL,
  SKILL_TOOL_NAME,
  CODEX_SKILL_NAMESPACE,
  skillToolPhrase,
  runtimeToolRegistry,
} from "./skill-tool.js";
export type { SessionBinding } from "./io/catalogue.js";
