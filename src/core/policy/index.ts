// The exec policy engine (exec-policy.md): analyse a command, resolve its executables, match the
// allowlist, decide, and explain why. Pure apart from reading the file system to resolve executables.
export * from "./types.js";
export { explainCommand, type PolicyContext } from "./explain.js";
export { analyzeCommand, defaultScriptCache, type AnalyzeOptions } from "./analyze.js";
export { resolveSettings, minSecurity, maxAsk } from "./resolve-settings.js";
export { decide, fallbackDecision } from "./decide.js";
export { compileAllowlist, matchSegment, normalizePattern, normalizeMatchPath } from "./allowlist-match.js";
export { proposeEntries, exactArgPattern, escapeRegExp } from "./proposals.js";
export {
  ExecutableResolver,
  resolveExecutable,
  type Resolution,
  type ResolveOptions,
} from "./io/resolve-executable.js";
export { ScriptCache, parseScriptChecked, type ParsedScript } from "./io/shell-script.js";
export { MAX_SHELL_DEPTH } from "./analyze-walk.js";
export { effectiveAllowlist, type EffectiveEntry } from "../approvals/effective-allowlist.js";
/** Variables whose value changes what a command runs (flagged when a command sets them). */
export { dangerousVariable, judgeVariable } from "./variables.js";
export { grantsMoreThanItsName } from "./tool-table.js";
export type { Dialect } from "./tool-readings.js";
export { namesOwnFiles, ownFilesOf, type OwnFiles } from "./own-files.js";
