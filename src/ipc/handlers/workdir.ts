// Workdir settings (workdir.md §11): roots with their real path and status, task bindings, repository
// bindings, and the check box. Refusals (a sensitive folder, a missing one) come back with the reason.
import type { HandlerContext, Handlers } from "./types.js";

type WorkdirChannels =
  | "workdir.get"
  | "workdir.addRoot"
  | "workdir.removeRoot"
  | "workdir.removeBinding"
  | "workdir.addRepo"
  | "workdir.removeRepo"
  | "workdir.check";

const UNAVAILABLE = "The workdir service is not running in this app.";

export function workdirHandlers(ctx: HandlerContext): Pick<Handlers, WorkdirChannels> {
  const service = () => ctx.services.workdir;
  return {
    "workdir.get": async () => {
      const workdir = service();
      if (!workdir) {
        return {
          available: false,
          workspaceRoot: null,
          roots: [],
          bindings: [],
          repos: [],
          warnings: [UNAVAILABLE],
        };
      }
      const [roots, bindings, repos] = await Promise.all([
        workdir.roots(),
        workdir.bindings(),
        workdir.repoBindings(),
      ]);
      return {
        available: true,
        workspaceRoot: workdir.workspaceRoot,
        roots,
        bindings,
        repos,
        warnings: workdir.warnings(),
      };
    },
    "workdir.addRoot": async ({ path }) => {
      const workdir = service();
      if (!workdir) return { ok: false, reason: UNAVAILABLE };
      if (path.trim() === "") return { ok: false, reason: "Type or choose a folder to add." };
      return workdir.addRoot(path);
    },
    "workdir.removeRoot": async ({ path }) => {
      const workdir = service();
      if (!workdir) return { ok: false, reason: UNAVAILABLE };
      return workdir.removeRoot(path);
    },
    "workdir.removeBinding": async ({ taskId, deviceId }) => {
      const workdir = service();
      return { removed: workdir ? await workdir.removeBinding(taskId, deviceId) : false };
    },
    "workdir.addRepo": async ({ repo, branch, dir }) => {
      const workdir = service();
      if (!workdir) return { ok: false, reason: UNAVAILABLE };
      if (dir.trim() === "") return { ok: false, reason: "Type or choose the repository's folder." };
      return workdir.addRepoBinding({ repo: repo ?? null, branch: branch ?? null, dir });
    },
    "workdir.removeRepo": async ({ repo, branch }) => {
      const workdir = service();
      return { removed: workdir ? await workdir.removeRepoBinding(repo, branch) : false };
    },
    "workdir.check": async ({ path, taskId }) => {
      const workdir = service();
      if (!workdir) {
        return {
          ok: false,
          code: null,
          message: UNAVAILABLE,
          lexical: null,
          resolved: null,
          root: null,
          would_create: false,
        };
      }
      return workdir.checkPath(path, { taskId: taskId?.trim() || null });
    },
  };
}
