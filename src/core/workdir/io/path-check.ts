// workdir.md §4: a requested path through syntax, expansion, the text form L, the resolved form R,
// containment, existence and access. The file system is touched only to resolve, stat, create
// folders inside W and test access.
import { constants } from "node:fs";
import fs from "node:fs/promises";
import {
  absoluteFrom,
  expandRequestedPath,
  lexicalForm,
  pathSyntaxProblem,
  stripVerbatimPrefix,
  upperCaseDrive,
} from "../normalise.js";
import { protectionOf, type ProtectedFolders, type RealpathFn } from "./protected-folders.js";
import {
  isWithinComponents,
  joinComponents,
  pathComponents,
  rootRule,
  samePath,
  type Platform,
} from "../platform-path.js";
import type { PathCode } from "../types.js";

export interface ActiveRoot {
  source: "workspace" | "env" | "settings";
  /** The path as the user gave it. */
  given: string;
  realpath: string;
  caseInsensitive: boolean;
}

export interface PathContext {
  platform: Platform;
  home: string;
  /** W (its real path is the base of relative requests and the only place folders are created). */
  workspace: ActiveRoot;
  /** Every active root, W included. */
  roots: readonly ActiveRoot[];
  protect: ProtectedFolders;
  /** Default `fs.realpath` (tests count the calls). */
  realpath?: RealpathFn;
}

export type PathCheck =
  | {
      ok: true;
      cwd: string;
      lexical: string;
      resolved: string;
      root: ActiveRoot;
      created: boolean;
      /** Missing, inside W: created by a resolution, reported as "would be created" by a check. */
      wouldCreate: boolean;
    }
  | {
      ok: false;
      code: PathCode;
      /** Why, for logs and the local check box (may name where a link leads: never streamed). */
      reason: string;
      lexical: string | null;
      resolved: string | null;
      root: ActiveRoot | null;
    };

interface RealForm {
  resolved: string;
  /** Real path of the longest existing leading run. */
  existing: string;
  missing: string[];
  problem: { code: "invalid-path" | "unreadable"; reason: string } | null;
}

function normaliseReal(p: string, platform: Platform): string {
  return platform === "win32" ? upperCaseDrive(stripVerbatimPrefix(p)) : p;
}

/** Longer requests are refused before anything touches the file system (PATH_MAX on Linux). */
export const MAX_REQUESTED_PATH_CHARS = 4096;

type RealpathAttempt = { ok: true; real: string } | { ok: false; code: string };

const MISSING = new Set(["ENOENT", "ENOTDIR"]);
const INVALID = new Set(["ELOOP", "ENAMETOOLONG"]);

/**
 * Step 5. The real path of the longest leading run of components that exists, with the missing
 * rest appended unchanged. `..` in the missing rest is refused on POSIX (its meaning depends on
 * folders that do not exist yet). Access errors are remembered and reported after containment,
 * so nothing is said about folders outside the allowed roots.
 *
 * realpath resolves a path component by component, so if a prefix resolves every shorter prefix
 * does, and the full path fails for the same reason as the first prefix that fails. The full path
 * is tried first (one call when it exists); otherwise the longest existing prefix is found by
 * bisection: O(log n) realpath calls for n components, never one per prefix.
 */
export async function resolveRealForm(
  start: string,
  platform: Platform,
  realpath: RealpathFn = (p) => fs.realpath(p),
): Promise<RealForm> {
  const comps = pathComponents(start, platform);
  const attempt = async (n: number): Promise<RealpathAttempt> => {
    try {
      return {
        ok: true,
        real: normaliseReal(await realpath(joinComponents(comps.slice(0, n), platform)), platform),
      };
    } catch (error) {
      return { ok: false, code: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
    }
  };
  const found = (n: number, real: string, problem: RealForm["problem"]): RealForm => {
    const missing = comps.slice(n);
    if (missing.includes("..")) {
      problem = { code: "invalid-path", reason: "`..` after a folder that does not exist" };
    }
    const resolved = missing.length
      ? joinComponents([...pathComponents(real, platform), ...missing], platform)
      : real;
    return { resolved, existing: real, missing, problem };
  };
  const noRoot: RealForm = {
    resolved: start,
    existing: start,
    missing: [],
    problem: { code: "invalid-path", reason: "no root" },
  };
  if (comps.length === 0) return noRoot;
  const full = await attempt(comps.length);
  if (full.ok) return found(comps.length, full.real, null);
  if (INVALID.has(full.code)) {
    return {
      resolved: start,
      existing: start,
      missing: [],
      problem: { code: "invalid-path", reason: full.code },
    };
  }
  const problem: RealForm["problem"] = MISSING.has(full.code)
    ? null
    : { code: "unreadable", reason: full.code };
  let best: { n: number; real: string } | null = null;
  let low = 1;
  let high = comps.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const result = await attempt(mid);
    if (result.ok) {
      best = { n: mid, real: result.real };
      low = mid + 1;
    } else high = mid - 1;
  }
  return best ? found(best.n, best.real, problem) : noRoot;
}

export function containingRoot(p: string, ctx: PathContext): ActiveRoot | null {
  const comps = pathComponents(p, ctx.platform);
  let best: ActiveRoot | null = null;
  let depth = -1;
  for (const root of ctx.roots) {
    const rc = pathComponents(root.realpath, ctx.platform);
    if (rc.length > depth && isWithinComponents(comps, rc, rootRule(root.caseInsensitive, ctx.platform))) {
      best = root;
      depth = rc.length;
    }
  }
  return best;
}

function insideWorkspace(p: string, ctx: PathContext): boolean {
  const w = ctx.workspace;
  return isWithinComponents(
    pathComponents(p, ctx.platform),
    pathComponents(w.realpath, ctx.platform),
    rootRule(w.caseInsensitive, ctx.platform),
  );
}

async function accessProblem(dir: string, platform: Platform): Promise<string | null> {
  try {
    if (platform === "win32") {
      const handle = await fs.opendir(dir);
      await handle.close();
    } else {
      await fs.access(dir, constants.R_OK | constants.X_OK);
    }
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

/** Step 1–4: the text forms of a request. Null with a reason when the syntax is refused. */
export function requestedTextForms(
  raw: string,
  ctx: Pick<PathContext, "platform" | "home" | "workspace">,
): { absolute: string; lexical: string } | { problem: string } {
  if (raw.length > MAX_REQUESTED_PATH_CHARS)
    return { problem: `longer than ${MAX_REQUESTED_PATH_CHARS} characters` };
  const problem = pathSyntaxProblem(raw, ctx.platform);
  if (problem) return { problem };
  const expanded = expandRequestedPath(raw, ctx.home, ctx.platform);
  const absolute = absoluteFrom(expanded, ctx.workspace.realpath, ctx.platform);
  return { absolute, lexical: lexicalForm(absolute, ctx.platform) };
}

/** Section 4 for a requested path. With `create`, a missing folder inside W is created (0700). */
export async function checkRequestedPath(
  raw: string,
  ctx: PathContext,
  options: { create: boolean },
): Promise<PathCheck> {
  const forms = requestedTextForms(raw, ctx);
  if ("problem" in forms) {
    return {
      ok: false,
      code: "invalid-path",
      reason: forms.problem,
      lexical: null,
      resolved: null,
      root: null,
    };
  }
  // On Windows the OS collapses `..` as text, so resolution starts from L.
  const start = ctx.platform === "win32" ? forms.lexical : forms.absolute;
  const first = await evaluate(start, forms.lexical, ctx);
  if (!first.ok || !first.wouldCreate || !options.create) return first;
  await createInside(first.resolved, ctx);
  // Steps 5–7 again on the new folder, so a link planted in the meantime is caught.
  const again = await evaluate(first.resolved, forms.lexical, ctx);
  if (!again.ok) return again;
  if (again.wouldCreate) {
    return { ...failure("missing-directory", "vanished after creation", again), lexical: forms.lexical };
  }
  return { ...again, created: true };
}

function failure(
  code: PathCode,
  reason: string,
  forms: { lexical: string | null; resolved: string | null; root?: ActiveRoot | null },
): PathCheck {
  return {
    ok: false,
    code,
    reason,
    lexical: forms.lexical,
    resolved: forms.resolved,
    root: forms.root ?? null,
  };
}

/** Steps 4–8 from `start` (the text resolution begins with) and L. */
async function evaluate(start: string, lexical: string, ctx: PathContext): Promise<PathCheck> {
  const { platform } = ctx;
  const lexicalLabel = protectionOf(lexical, ctx.protect);
  if (lexicalLabel) return failure("sensitive-directory", lexicalLabel, { lexical, resolved: null });
  const real = await resolveRealForm(start, platform, ctx.realpath);
  if (real.problem?.code === "invalid-path") {
    return failure("invalid-path", real.problem.reason, { lexical, resolved: real.resolved });
  }
  const resolved = real.resolved;
  const realLabel = protectionOf(resolved, ctx.protect);
  if (realLabel) return failure("sensitive-directory", realLabel, { lexical, resolved });
  const root = containingRoot(resolved, ctx);
  if (!root) {
    const code = containingRoot(lexical, ctx) ? "symlink-escape" : "outside-allowed-roots";
    return failure(code, code, { lexical, resolved });
  }
  if (real.problem) return failure("unreadable", real.problem.reason, { lexical, resolved, root });
  let stat;
  try {
    stat = await fs.stat(real.existing);
  } catch (error) {
    return failure("unreadable", (error as NodeJS.ErrnoException).code ?? "stat failed", {
      lexical,
      resolved,
      root,
    });
  }
  if (!stat.isDirectory()) return failure("not-a-directory", "not a folder", { lexical, resolved, root });
  if (real.missing.length > 0) {
    if (!insideWorkspace(resolved, ctx)) {
      return failure("missing-directory", "missing outside W", { lexical, resolved, root });
    }
    const denied = await accessProblem(real.existing, platform);
    if (denied) return failure("unreadable", denied, { lexical, resolved, root });
    return { ok: true, cwd: resolved, lexical, resolved, root, created: false, wouldCreate: true };
  }
  const denied = await accessProblem(resolved, platform);
  if (denied) return failure("unreadable", denied, { lexical, resolved, root });
  return { ok: true, cwd: resolved, lexical, resolved, root, created: false, wouldCreate: false };
}

/** mkdir -p of the missing components below the existing real prefix, new folders 0700. */
async function createInside(resolved: string, ctx: PathContext): Promise<void> {
  const comps = pathComponents(resolved, ctx.platform);
  for (let n = pathComponents(ctx.workspace.realpath, ctx.platform).length + 1; n <= comps.length; n += 1) {
    const dir = joinComponents(comps.slice(0, n), ctx.platform);
    try {
      await fs.mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return; // the re-run reports what is wrong
      // Someone else made it: never create through a link planted there.
      const stat = await fs.lstat(dir).catch(() => null);
      if (!stat?.isDirectory()) return;
    }
  }
}

/**
 * workdir.md §8: steps 5–8 again on a resolved cwd, against the current roots and protected
 * folders. Its real path must still equal `cwd`, compared with the root's case rule.
 */
export async function recheckResolvedCwd(
  cwd: string,
  ctx: PathContext,
): Promise<{ ok: true; root: ActiveRoot } | { ok: false; code: PathCode | "changed"; reason: string }> {
  const result = await evaluate(cwd, cwd, ctx);
  if (!result.ok) return { ok: false, code: result.code, reason: result.reason };
  if (result.wouldCreate) return { ok: false, code: "missing-directory", reason: "the folder is gone" };
  if (!samePath(result.resolved, cwd, ctx.platform, rootRule(result.root.caseInsensitive, ctx.platform))) {
    return { ok: false, code: "changed", reason: "its real path changed" };
  }
  return { ok: true, root: result.root };
}
