// The environment a child gets (exec-policy.md "Running", docs/decisions.md "Child environments"):
// from the runner's environment only the variables an allowlist names (core/env-rules.ts plus the
// user's `environment.inherit`), never Gatehouse's secrets (by name and by value), never the
// variables that make bash read a command differently from how it was analysed. A request's own
// variables are kept apart (`requestEnv`) so the policy can judge them like `NAME=value command`
// prefixes; they reach the child only when the command is allowed. A request may put folders in
// front of PATH, never replace or reorder the runner's PATH.
import path from "node:path";
import {
  INHERITED_NAMES,
  INHERITED_PREFIXES,
  inheritPatternMatches,
  isGatehouseSecretName,
  shellBehaviourVariable,
  codeLoadingVariable,
  unsafeCharsetLocale,
} from "../core/env-rules.js";
import type { Env } from "../core/paths.js";

export interface InheritRules {
  /** Names and `PREFIX*` patterns the user added (settings `environment.inherit`, already validated). */
  inherit?: readonly string[];
  /** True when a value holds a known secret (the logger's registry, the socket token, …). */
  holdsSecret?: (value: string) => boolean;
  platform?: NodeJS.Platform;
}

export interface InheritedEnv {
  env: Record<string, string>;
  /** Names a rule refused (secrets, shell behaviour, loader and interpreter variables, secret values). */
  dropped: string[];
}

export interface ChildEnv extends InheritedEnv {
  /**
   * The request's own variables that the child gets (PATH only when it differs from the runner's):
   * what the policy must judge (`PolicyContext.requestEnv`).
   */
  requestEnv: Record<string, string>;
  /** Plain-words notes for the requester, e.g. why a PATH override was ignored. */
  warnings: string[];
}

/** True when `override` is `base` itself or `<folders><delimiter><base>` (prepend only). */
export function pathOverrideAllowed(override: string, base: string, delimiter: string): boolean {
  if (base === "") return false;
  return override === base || override.endsWith(`${delimiter}${base}`);
}

const fold = (name: string, platform: NodeJS.Platform) => (platform === "win32" ? name.toUpperCase() : name);
const isPathName = (name: string, platform: NodeJS.Platform) => fold(name, platform) === "PATH";

const BUILT_IN = new Set(INHERITED_NAMES);
const BUILT_IN_FOLDED = new Set(INHERITED_NAMES.map((n) => n.toUpperCase()));

function builtIn(name: string, platform: NodeJS.Platform): boolean {
  const listed = platform === "win32" ? BUILT_IN_FOLDED.has(name.toUpperCase()) : BUILT_IN.has(name);
  return listed || INHERITED_PREFIXES.some((prefix) => fold(name, platform).startsWith(prefix));
}

/** A configured name that may still never pass: it changes how bash, the loader or an interpreter behaves. */
function behaviourVariable(name: string, platform: NodeJS.Platform): boolean {
  if (isPathName(name, platform)) return false;
  return shellBehaviourVariable(name) || codeLoadingVariable(fold(name, platform));
}

/** Gatehouse's own secrets as the runner's environment holds them (e.g. `WEGENT_AUTH_TOKEN`), in every spelling. */
function secretValuesIn(base: Env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (!value || !isGatehouseSecretName(name)) continue;
    const trimmed = value.trim();
    out.push(trimmed, trimmed.replace(/^bearer\s+/i, "").trim());
  }
  return out.filter((v) => v.length >= 4);
}

/** Combines the caller's secret test with the secrets the runner's environment itself carries. */
function secretTest(base: Env, rules: InheritRules): (value: string) => boolean {
  const own = secretValuesIn(base);
  const other = rules.holdsSecret;
  return (value) => own.some((secret) => value.includes(secret)) || (other ? other(value) : false);
}

/**
 * The runner's variables a child inherits: the built-in names, the configured ones and `extra`
 * patterns (an agent runtime's own), minus secrets by name and by value and minus behaviour variables
 * among the configured names. Old-style exported functions (a value starting with `() {`) never pass.
 */
export function inheritedEnv(
  base: Env,
  rules: InheritRules = {},
  extra: readonly string[] = [],
): InheritedEnv {
  const platform = rules.platform ?? process.platform;
  const holdsSecret = secretTest(base, rules);
  const patterns = [...(rules.inherit ?? []), ...extra];
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const listed = builtIn(name, platform);
    const configured = !listed && patterns.some((p) => inheritPatternMatches(p, name, platform));
    if (!listed && !configured) continue;
    const refused =
      isGatehouseSecretName(name) ||
      (configured && behaviourVariable(name, platform)) ||
      value.startsWith("() {") ||
      unsafeCharsetLocale(fold(name, platform), value) ||
      holdsSecret(value);
    if (refused) dropped.push(name);
    else env[name] = value;
  }
  return { env, dropped };
}

/**
 * A command's environment: what it inherits plus the request's variables. A request variable that is
 * one of Gatehouse's secrets, or whose value holds one, is ignored with a warning; a PATH that does
 * not end with the runner's PATH is ignored with a warning; every other request variable is kept and
 * listed in `requestEnv` for the policy to judge.
 */
export function buildChildEnv(
  base: Env,
  requested?: Readonly<Record<string, string>>,
  rules: InheritRules = {},
): ChildEnv {
  const platform = rules.platform ?? process.platform;
  const { env, dropped } = inheritedEnv(base, rules);
  const holdsSecret = secretTest(base, rules);
  const requestEnv: Record<string, string> = {};
  const warnings: string[] = [];
  const pathName = Object.keys(env).find((name) => isPathName(name, platform)) ?? "PATH";
  const basePath = env[pathName] ?? "";
  const delimiter = platform === "win32" ? path.win32.delimiter : path.posix.delimiter;

  for (const [name, value] of Object.entries(requested ?? {})) {
    if (isGatehouseSecretName(name)) {
      dropped.push(name);
      warnings.push(`${name} ignored: Gatehouse's own secrets never reach a command`);
    } else if (holdsSecret(value)) {
      dropped.push(name);
      warnings.push(`${name} ignored: its value holds one of Gatehouse's secrets`);
    } else if (unsafeCharsetLocale(fold(name, platform), value)) {
      dropped.push(name);
      warnings.push(`${name} ignored: only C, POSIX and UTF-8 locales choose how a command is read`);
    } else if (isPathName(name, platform)) {
      if (value === basePath) continue; // the runner's PATH itself: nothing changes
      if (pathOverrideAllowed(value, basePath, delimiter)) {
        env[pathName] = value;
        requestEnv[name] = value;
      } else {
        dropped.push(name);
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
      requestEnv[name] = value;
    }
  }
  return { env, requestEnv, dropped, warnings };
}

export interface AgentEnvInput {
  /** The runtime's own variables (`RUNTIME_INHERIT`): how it reaches its model. */
  runtime: readonly string[];
  /** The launch spec's variables (its config folders, the skills overlay). */
  spec: Readonly<Record<string, string>>;
  /** Secret values this launch hands the agent on purpose (skill keys in the overlay): allowed in `spec`. */
  launchSecrets: readonly string[];
  /** Set last, as they are (e.g. which shell the runtime runs its commands with). */
  fixed?: Readonly<Record<string, string>>;
}

/**
 * An agent runtime's environment: what any command inherits, its runtime's own variables, then the
 * launch spec's variables — never Gatehouse's secret names, never a shell behaviour variable, never a
 * value holding a secret other than the launch's own.
 */
export function buildAgentEnv(base: Env, input: AgentEnvInput, rules: InheritRules = {}): InheritedEnv {
  const platform = rules.platform ?? process.platform;
  const { env, dropped } = inheritedEnv(base, rules, input.runtime);
  const holdsSecret = secretTest(base, rules);
  const launchSecrets = new Set(input.launchSecrets);
  for (const [name, value] of Object.entries(input.spec)) {
    const refused =
      isGatehouseSecretName(name) ||
      behaviourVariable(name, platform) ||
      (!launchSecrets.has(value) && holdsSecret(value));
    if (refused) dropped.push(name);
    else env[name] = value;
  }
  return { env: { ...env, ...input.fixed }, dropped };
}
