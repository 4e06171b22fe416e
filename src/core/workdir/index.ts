// Public surface of the workdir resolver (workdir.md). Most callers need only WorkdirService.
export * from "./types.js";
export { WorkdirService, effectiveRequest } from "./service.js";
export type {
  WorkdirServiceOptions,
  WorkdirChange,
  TaskWorkdirRequest,
  TaskWorkdir,
  RootChangeResult,
  RepoBindingResult,
  RepoProposal,
} from "./service.js";
export { checkPath, recheckBeforeSpawn, resolveWorkdir, validTaskId } from "./resolver.js";
export type { CheckPathResult, RecheckResult, ResolverContext, WorkdirRequest } from "./resolver.js";
export type { RootInfo, RootSource, RootStatus } from "./roots.js";
export type { TaskBinding, RepoBinding, WorkdirBindingsFile } from "./bindings.js";
export { WorkdirBindingsFileSchema } from "./bindings.js";
export { repoKeyFromUrl, redactGitUrl } from "./repo-key.js";
export { fatalMessage } from "./messages.js";
