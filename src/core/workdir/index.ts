// Public surface of the workdir resolver (workdir.md). Most callers need only WorkdirService.
export * from "./types.js";
export { WorkdirService, effectiveRequest } from "./io/service.js";
export type {
  WorkdirServiceOptions,
  WorkdirChange,
  TaskWorkdirRequest,
  TaskWorkdir,
  RootChangeResult,
  RepoBindingResult,
  RepoProposal,
} from "./io/service.js";
export { checkPath, recheckBeforeSpawn, resolveWorkdir, validTaskId } from "./io/resolver.js";
export type { CheckPathResult, RecheckResult, ResolverContext, WorkdirRequest } from "./io/resolver.js";
export type { RootInfo, RootSource, RootStatus } from "./io/roots.js";
export type { TaskBinding, RepoBinding, WorkdirBindingsFile } from "./io/bindings.js";
export { WorkdirBindingsFileSchema } from "./io/bindings.js";
export { repoKeyFromUrl, redactGitUrl } from "./io/repo-key.js";
export { fatalMessage } from "./messages.js";
