// The environment a command runs with (exec-policy.md "Running"): the app's environment plus the
// request's variables, minus the variables that change how interpreters and the dynamic loader
// behave. A request may put folders in front of PATH, never replace or reorder the app's PATH, and
// may not set what the policy would flag as a dangerous assignment (`BASH_ENV`, `GIT_SSH_COMMAND`,
// `PAGER`, …): `{env: {X: v}}` must not run what `X=v cmd` would have needed a person for.
import path from "node:path";
import { dangerousVariable } from "../core/policy/index.js";

export interface ChildEnv {
  env: Record<string, string>;
  /** Names removed from the base or the request (and `PATH` when its override was ignored). */
  dropped: string[];
  /** Plain-words notes for the requester, e.g. why a PATH override was ignored. */
  warnings: string[];
}

const DROPPED_NAMES = new Set([
  "NODE_OPTIONS",
  "PYTHONHOME",
  "PYTHONPATH",
  "PERL5LIB",
  "PERL5OPT",
  "RUBYOPT",
]);
const DROPPED_PREFIXES = ["LD_", "DYLD_"];

export function isScrubbedVariable(name: string, platform: NodeJS.Platform = process.platform): boolean {
  const key = platform === "win32" ? name.toUpperCase() : name;
  return DROPPED_NAMES.has(key) || DROPPED_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** True when `override` is `base` itself or `<folders><delimiter><base>` (prepend only). */
export function pathOverrideAllowed(override: string, base: string, delimiter: string): boolean {
  if (base === "") return false;
  return override === base || override.endsWith(`${delimiter}${base}`);
}

export function buildChildEnv(
  base: Readonly<Record<string, string | undefined>>,
  requested?: Readonly<Record<string, string>>,
  platform: NodeJS.Platform = process.platform,
): ChildEnv {
  const env: Record<string, string> = {};
  const dropped = new Set<string>();
  const warnings: string[] = [];
  const isPath = (name: string) => (platform === "win32" ? name.toUpperCase() === "PATH" : name === "PATH");
  const delimiter = platform === "win32" ? path.win32.delimiter : path.posix.delimiter;

  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isScrubbedVariable(name, platform)) dropped.add(name);
    else env[name] = value;
  }
  const pathName = Object.keys(env).find(isPath) ?? "PATH";
  const basePath = env[pathName] ?? "";

  for (const [name, value] of Object.entries(requested ?? {})) {
    if (isScrubbedVariable(name, platform)) {
      dropped.add(name);
    } else if (!isPath(name) && dangerousVariable(platform === "win32" ? name.toUpperCase() : name)) {
      dropped.add(name);
      warnings.push(`${name} ignored: a request may not set it (it changes what the command runs)`);
    } else if (isPath(name)) {
      if (pathOverrideAllowed(value, basePath, delimiter)) {
        env[pathName] = value;
      } else {
        dropped.add(name);
        warnings.push(
          `${name} override ignored: it must end with the app's PATH (only prepending is allowed)`,
        );
      }
    } else {
      // Windows names are case-insensitive: replace an existing spelling instead of adding a twin.
      const existing =
        platform === "win32"
          ? Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase())
          : undefined;
      if (existing !== undefined && existing !== name) delete env[existing];
      env[name] = value;
    }
  }
  return { env, dropped: [...dropped], warnings };
}
