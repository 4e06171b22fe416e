// Analysing a command (exec-policy.md "Analysing a command"): every simple command that would run becomes
// a segment — across operators, inside substitutions, subshells, groups, process substitutions and
// `sh -c` scripts, through dispatch wrappers — and everything that needs a person whatever the allowlist
// says becomes a flag. Executables are resolved here too, so an Analysis says exactly what would run.
import path from "node:path";
import { collectAnalysis, type Collected, type RawSegment } from "./analyze-walk.js";
import { readRuleFlags } from "./file-reads.js";
import { DiskLookup, protectedFoldersFor, type FileLookup } from "./io/file-lookup.js";
import { ExecutableResolver } from "./io/resolve-executable.js";
import type { OwnFiles } from "./own-files.js";
import { ScriptCache } from "./io/shell-script.js";
import type { Dialect } from "./tool-readings.js";
import type { Analysis, CommandInput, Segment } from "./types.js";

export interface AnalyzeOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  platform?: NodeJS.Platform;
  /** Parsed-script memo (default: one shared by the process). */
  scripts?: ScriptCache;
  /** Executable memo (default: a fresh one for this call). */
  resolver?: ExecutableResolver;
  /** Which shell runs a shell string (default bash: what Gatehouse runs; the hook passes the agent's). */
  dialect?: Dialect;
  /**
   * Gatehouse's own files: with them the read rule applies (file-reads.ts) — the files the command opens
   * are worked out and judged against E and the protected folders.
   */
  ownFiles?: OwnFiles;
  /** File-system lookups for the read rule (default: a fresh one for this call). */
  files?: FileLookup;
}

/** The process-wide parse memo used when none is given: same text, same parse. */
export const defaultScriptCache = new ScriptCache(512);

export async function analyzeCommand(input: CommandInput, options: AnalyzeOptions): Promise<Analysis> {
  const platform = options.platform ?? process.platform;
  const scripts = options.scripts ?? defaultScriptCache;
  // What a command text contains does not depend on the file system: memoise it with the parse.
  const dialect = options.dialect ?? oneDialect(input.posixShell);
  const key = `collect\0${platform}\0${dialect}\0${input.shell ?? ""}\0${input.argv ? JSON.stringify(input.argv) : `\0${input.command}`}`;
  const collected = await scripts.memo(key, () => collectAnalysis(input, { platform, scripts, dialect }));
  const analysis = resolveSegments(collected, options, platform);
  // the read rule looks at this machine's disk: not for another platform's command analysed here
  if (options.ownFiles && collected.ok && platform === process.platform) {
    const folders = await protectedFoldersFor(options.ownFiles, options.env, platform);
    const read = readRuleFlags(collected, {
      cwd: options.cwd,
      env: options.env,
      home: options.home,
      platform,
      folders,
      lookup: options.files ?? new DiskLookup(),
    });
    analysis.flags.push(...read);
  }
  return analysis;
}

/** The shell that reads the string; several candidates are explained one by one (explain.ts), never here. */
function oneDialect(posixShell: CommandInput["posixShell"]): Dialect {
  if (!Array.isArray(posixShell)) return posixShell ?? "bash";
  if (posixShell.length !== 1) throw new Error("analyse each candidate shell on its own (explainCommand)");
  return posixShell[0]!;
}

function resolveSegments(collected: Collected, options: AnalyzeOptions, platform: NodeJS.Platform): Analysis {
  const resolver = options.resolver ?? new ExecutableResolver();
  const p = platform === "win32" ? path.win32 : path.posix;
  // more than one name to look up: PATH folders listed before are viewed first (resolve-executable.ts)
  const manyNames = collected.segments.length > 1;
  const segments: Segment[] = collected.segments.map((raw: RawSegment) => {
    const base: Segment = {
      argv: raw.args.map((a) => a.value),
      executable: raw.executable,
      resolvedPath: null,
      foundVia: null,
      context: raw.context,
      matchedEntryId: null,
    };
    if (raw.wrapper) base.wrapper = true;
    if (raw.inlineCode) base.inlineCode = true;
    if (raw.builtin) base.builtin = raw.builtin;
    if (raw.cwdUnknown) base.cwdUnknown = true;
    if (raw.chdir !== undefined) base.chdir = raw.chdir;
    if (raw.args.slice(1).some((a) => !a.literal)) base.dynamicArgs = true;
    if (raw.unresolvable) {
      base.resolveError = raw.unresolvable;
      return base;
    }
    const relative =
      !p.isAbsolute(raw.executable) && /[\\/]/.test(raw.executable) && !raw.executable.startsWith("~");
    if (raw.cwdUnknown && (relative || raw.chdir !== undefined)) {
      base.resolveError = "after a cd the folder it runs from is known only when it runs";
      return base;
    }
    const cwd = raw.chdir ? p.resolve(options.cwd, raw.chdir) : options.cwd;
    const pathEnv = raw.pathOverride ?? options.env.PATH ?? options.env.Path;
    const resolution = resolver.resolve(raw.executable, {
      cwd,
      // after a cd, a relative PATH entry names another folder than the one analysed
      pathEnv: raw.cwdUnknown ? absoluteEntries(pathEnv, platform) : pathEnv,
      pathExt: options.env.PATHEXT,
      home: options.home,
      platform,
      manyNames,
    });
    base.resolvedPath = resolution.resolvedPath;
    base.foundVia = resolution.foundVia;
    if (resolution.foundPath) base.foundPath = resolution.foundPath;
    if (resolution.error) base.resolveError = resolution.error;
    return base;
  });
  return { ok: collected.ok, segments, flags: collected.flags.map((f) => ({ ...f })) };
}

function absoluteEntries(pathEnv: string | undefined, platform: NodeJS.Platform): string | undefined {
  if (pathEnv === undefined) return undefined;
  const p = platform === "win32" ? path.win32 : path.posix;
  return pathEnv
    .split(p.delimiter)
    .filter((entry) => p.isAbsolute(entry))
    .join(p.delimiter);
}
