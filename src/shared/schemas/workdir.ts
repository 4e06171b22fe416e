// Workdir bindings (workdir.md §9): task bindings (task_id, device_id) → workdir and repo bindings
// (repository, branch) → folder, as `E/workdir-bindings.json` stores them and the Workdirs screen shows
// them.
import { z } from "zod";

export const WORKDIR_POLICIES = ["managed", "existing", "repo_bound"] as const;
export type Policy = (typeof WORKDIR_POLICIES)[number];

export const TaskBindingSchema = z.object({
  task_id: z.string().min(1),
  device_id: z.string().min(1),
  /** The turn's policy after defaults. */
  policy: z.string(),
  requested: z.string().nullable(),
  /** Without credentials. */
  git_url: z.string().nullable(),
  branch: z.string().nullable(),
  cwd: z.string().min(1),
  policy_applied: z.enum(WORKDIR_POLICIES),
  fallback: z.object({ code: z.string(), message: z.string() }).nullable(),
  created_at: z.number().int().nonnegative(),
  used_at: z.number().int().nonnegative(),
});
export type TaskBinding = z.infer<typeof TaskBindingSchema>;

export const RepoBindingSchema = z.object({
  repo: z.string().min(1),
  /** A branch name, or `*` for any branch. */
  branch: z.string().min(1),
  dir: z.string().min(1),
  origin: z.enum(["settings", "learned"]),
  created_at: z.number().int().nonnegative(),
});
export type RepoBinding = z.infer<typeof RepoBindingSchema>;
