// What the commands share for reading their input: argument parsing that turns every mistake into a
// UsageError (exit 2), the common option checks and stdin.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./context.js";
import { readAllBytes } from "./stdin.js";

/** `node:util` parseArgs (strict unless told otherwise) whose errors are UsageErrors. */
export function parseCommandArgs<const T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The options several commands take, each declared once: a command names the ones it takes
 * (`parseCommandLine`) and reads them with the helpers below, so `--agent` or `--timeout` mean the same
 * everywhere.
 */
type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export const COMMON_OPTIONS = {
  agent: { type: "string" },
  cwd: { type: "string" },
  timeout: { type: "string" },
  shell: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  /** `--security` / `--ask`: settings a command asks for, which may only tighten the policy. */
  security: { type: "string" },
  ask: { type: "string" },
} as const satisfies OptionsConfig;

type CommonOptions = typeof COMMON_OPTIONS;

/**
 * A command line (strict, positionals allowed): the shared options `names` (COMMON_OPTIONS) and the
 * command's `own` ones. Every mistake is a UsageError.
 */
export function parseCommandLine<
  const N extends keyof CommonOptions,
  const O extends OptionsConfig = Record<never, never>,
>(args: string[], names: readonly N[], own?: O) {
  const options: OptionsConfig = { ...own };
  for (const name of names) options[name] = COMMON_OPTIONS[name];
  return parseCommandArgs({
    args,
    options: options as Pick<CommonOptions, N> & O,
    allowPositionals: true,
    strict: true,
  });
}

/** For commands whose only option is --json and which take no positionals: whether --json was given. */
export function parseJsonFlag(args: string[]): boolean {
  return (
    parseCommandArgs({ args, options: { json: { type: "boolean" } }, strict: true }).values.json === true
  );
}

/** An optional string option: `fallback` when absent, a UsageError when given blank. */
export function nonEmptyOption(name: string, value: string | undefined, fallback: string): string;
export function nonEmptyOption(name: string, value: string | undefined): string | undefined;
export function nonEmptyOption(
  name: string,
  value: string | undefined,
  fallback?: string,
): string | undefined {
  if (value === undefined) return fallback;
  if (value.trim() === "") throw new UsageError(`--${name} must not be empty`);
  return value;
}

/**
 * A `--timeout S` style option in milliseconds (at least 1), or undefined when absent; anything but a
 * positive number of seconds up to `maxSeconds` is a UsageError.
 */
export function secondsOption(
  name: string,
  text: string | undefined,
  maxSeconds: number,
): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > maxSeconds) {
    throw new UsageError(`--${name} must be a number of seconds above 0 and up to ${maxSeconds}`);
  }
  return Math.max(1, Math.round(seconds * 1000));
}

/** The real path of an existing folder given as `--cwd` (relative to the current folder), else a UsageError. */
export function existingFolderOption(given: string, option = "cwd"): string {
  const wanted = path.resolve(process.cwd(), given);
  let real: string;
  // Blocking calls: a command checks its options before it does anything else (issue 12, start-up)
  try {
    real = realpathSync(wanted);
  } catch {
    throw new UsageError(`--${option} ${wanted} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--${option} ${wanted} is not a folder`);
  return real;
}

/** Everything on a stream, as UTF-8 text. */
export async function readAllText(stream: NodeJS.ReadableStream): Promise<string> {
  return (await readAllBytes(stream)).toString("utf8");
}

const SECURITY_VALUES = ["deny", "allowlist", "full"] as const;
const ASK_VALUES = ["off", "on-miss", "always"] as const;

/** The parsed `--security` / `--ask` values (a UsageError for anything else). */
export function requestedSettingsOption(values: {
  security?: string | undefined;
  ask?: string | undefined;
}): {
  security?: (typeof SECURITY_VALUES)[number];
  ask?: (typeof ASK_VALUES)[number];
} {
  const result: { security?: (typeof SECURITY_VALUES)[number]; ask?: (typeof ASK_VALUES)[number] } = {};
  if (values.security !== undefined) {
    const found = SECURITY_VALUES.find((v) => v === values.security);
    if (!found) throw new UsageError(`--security must be one of ${SECURITY_VALUES.join(", ")}`);
    result.security = found;
  }
  if (values.ask !== undefined) {
    const found = ASK_VALUES.find((v) => v === values.ask);
    if (!found) throw new UsageError(`--ask must be one of ${ASK_VALUES.join(", ")}`);
    result.ask = found;
  }
  return result;
}
