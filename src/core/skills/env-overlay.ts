// The environment agent runs get from skill settings (skills.md §10 "Environment"): an overlay the
// executor adds to a copy of the base environment, and `withSkillEnv` for in-process runners.
import type { Logger } from "../log.js";
import type { EnvMaterial } from "./io/build.js";

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "";
}

/**
 * For each eligible winner in name order: its `env` pairs, then its `apiKey` as `primaryEnv`, each only
 * when the variable is not already set (non-empty) in the base environment or the overlay. When two
 * skills give one variable different values the first wins, with a warning naming both skills.
 */
export function computeEnvOverlay(
  material: readonly EnvMaterial[],
  baseEnv: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Record<string, string> {
  const overlay: Record<string, string> = {};
  const setBy = new Map<string, string>();
  const offer = (skill: string, variable: string, value: string) => {
    logger.addSecret(value);
    if (isSet(baseEnv[variable])) return;
    const owner = setBy.get(variable);
    if (owner !== undefined) {
      if (overlay[variable] !== value) {
        logger.warn(`Skills ${owner} and ${skill} both set ${variable}; using the value from ${owner}`);
      }
      return;
    }
    overlay[variable] = value;
    setBy.set(variable, skill);
  };
  for (const item of material) {
    for (const [variable, value] of item.env) offer(item.name, variable, value);
    if (item.apiKey !== null && item.primaryEnv !== null) offer(item.name, item.primaryEnv, item.apiKey);
  }
  return overlay;
}

/** A one-at-a-time lock (a promise chain): `withSkillEnv` calls never interleave. */
export class AsyncLock {
  private tail: Promise<void> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * Sets the overlay's variables that are missing (unset or empty) in `target`, runs `fn`, and in
 * `finally` puts back exactly those variables, whether `fn` succeeded, failed or was cancelled.
 */
export async function applyEnvDuring<T>(
  target: Record<string, string | undefined>,
  overlay: Readonly<Record<string, string>>,
  fn: () => Promise<T>,
): Promise<T> {
  const added: Array<[string, string | undefined]> = [];
  for (const [variable, value] of Object.entries(overlay)) {
    if (isSet(target[variable])) continue;
    added.push([variable, target[variable]]);
    target[variable] = value;
  }
  try {
    return await fn();
  } finally {
    for (const [variable, previous] of added) {
      if (previous === undefined) delete target[variable];
      else target[variable] = previous;
    }
  }
}
